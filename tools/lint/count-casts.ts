/**
 * Counts type assertions (`x as T`, `<T>x`; `as const` excluded) in source folders, and how many of them carry a
 * comment saying why (a comment on the same line or the line above). Run: `npx tsx tools/lint/count-casts.ts [--list]`.
 * As a lint step (`npm run lint`): `--max N` fails when there are more than N casts, `--require-why` when one has
 * no why-comment (`--exempt <folder>` leaves a folder out of that check while its code is being rewritten).
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';

type Cast = { readonly file: string; readonly line: number; readonly explained: boolean; readonly text: string };

const sourceFiles = (): ReadonlyArray<string> =>
  execFileSync('git', ['ls-files', 'core/*.ts', 'app/*.ts', 'adapters/*.ts'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));

const isConstAssertion = (node: ts.AsExpression | ts.TypeAssertion): boolean =>
  ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';

const hasComment = (lines: ReadonlyArray<string>, line: number): boolean =>
  // The line above may open with a ternary's `?` or `:` (prettier puts a branch's comment there).
  /\/\/|\/\*/.test(lines[line] ?? '') || /^\s*[?:]?\s*(\/\/|\*|\/\*)/.test(lines[line - 1] ?? '');

const castsIn = (file: string): ReadonlyArray<Cast> => {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Cast[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isConstAssertion(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const typeLine = source.getLineAndCharacterOfPosition(node.type.getStart()).line;
      found.push({
        file,
        line: line + 1,
        explained: hasComment(lines, typeLine) || hasComment(lines, line),
        text: node.type.getText(),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

const casts = sourceFiles().flatMap(castsIn);
const byFolder = new Map<string, { total: number; explained: number }>();
for (const cast of casts) {
  const folder = cast.file.split('/').slice(0, 2).join('/');
  const entry = byFolder.get(folder) ?? { total: 0, explained: 0 };
  byFolder.set(folder, { total: entry.total + 1, explained: entry.explained + (cast.explained ? 1 : 0) });
}
if (process.argv.includes('--list')) {
  for (const cast of casts)
    console.log(`${cast.file}:${cast.line}\t${cast.explained ? 'why' : '   '}\tas ${cast.text}`);
}
const checking = process.argv.includes('--max') || process.argv.includes('--require-why');
if (!checking)
  for (const [folder, { total, explained }] of [...byFolder].sort())
    console.log(`${folder}\t${total}\t${explained} explained`);
const optionAfter = (flag: string): string | undefined => {
  const at = process.argv.indexOf(flag);
  return at < 0 ? undefined : process.argv[at + 1];
};
const top = (name: string) => casts.filter((cast) => cast.file.startsWith(name));
if (!checking)
  for (const name of ['core', 'app', 'adapters'])
    console.log(`${name}\t${top(name).length}\t${top(name).filter((cast) => cast.explained).length} explained`);
if (!checking) console.log(`total\t${casts.length}\t${casts.filter((cast) => cast.explained).length} explained`);

const problems: string[] = [];
const max = optionAfter('--max');
if (max !== undefined && casts.length > Number(max))
  problems.push(
    `${casts.length} type assertions, more than the ${max} allowed: make the types say it (a generic helper, a type guard, ` +
      'narrowing, io-ts decoding where data enters) instead of asserting it',
  );
if (process.argv.includes('--require-why')) {
  const exempt = optionAfter('--exempt');
  for (const cast of casts)
    if (!cast.explained && (exempt === undefined || !cast.file.startsWith(`${exempt}/`)))
      problems.push(
        `${cast.file}:${cast.line}: \`as ${cast.text}\` says no why: remove it, or add a comment (same line or the line above) saying why it holds`,
      );
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
if (checking)
  console.log(`${casts.length} type assertions${max === undefined ? '' : ` (at most ${max})`}, each saying why`);
