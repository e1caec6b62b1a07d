/**
 * Counts type assertions (`x as T`, `<T>x`; `as const` excluded) in source folders, and how many of them carry a
 * comment saying why (a comment on the same line or the line above). Run: `npx tsx tools/lint/count-casts.ts [--list]`.
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
  /\/\/|\/\*/.test(lines[line] ?? '') || /^\s*(\/\/|\*|\/\*)/.test(lines[line - 1] ?? '');

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
for (const [folder, { total, explained }] of [...byFolder].sort())
  console.log(`${folder}\t${total}\t${explained} explained`);
const top = (name: string) => casts.filter((cast) => cast.file.startsWith(name));
for (const name of ['core', 'app', 'adapters'])
  console.log(`${name}\t${top(name).length}\t${top(name).filter((cast) => cast.explained).length} explained`);
console.log(`total\t${casts.length}\t${casts.filter((cast) => cast.explained).length} explained`);
