/**
 * The package's public API, written down and checked (issue 40, docs/decisions/0031-public-api-on-purpose.md):
 * for each entry point of package.json "exports" (`kreconcile`, `kreconcile/runtime`, …), every
 * exported name with its kind and signature, one line each, sorted, in `api/<entry>.api.md`.
 *
 *   node --import tsx tools/api/api-report.ts            check: exit 1 naming each export added, removed or changed
 *   node --import tsx tools/api/api-report.ts --update   rewrite api/*.api.md from the sources (npm run api:update)
 *
 * The reports are read from the sources with the TypeScript compiler API (what a consumer's tsc
 * sees through the entry), so an export that leaks in through `export *` shows up as a new line.
 * Why not @microsoft/api-extractor: it is not among the installed dependencies.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** One entry point: the name users import, its report's file stem, and its TypeScript source. */
export type EntryPoint = { readonly specifier: string; readonly stem: string; readonly source: string };

/**
 * One exported name: `kind` is e.g. `function`, `const`, `class`, `type`, `interface`, several joined
 * by `+` (a codec and its type); `signature` is what follows the name: `: type` of a value, ` { … }`
 * of a class, `<T> = …;` of a type alias, `extends … { … }` of an interface, joined by ` ;; `.
 */
export type ApiLine = { readonly name: string; readonly kind: string; readonly signature: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `types` file of an export condition (`{ import: { types } }`, `{ types }` or a string). */
const typesOf = (target: unknown): string | undefined => {
  if (typeof target === 'string') return target.endsWith('.d.ts') ? target : undefined;
  if (!isRecord(target)) return undefined;
  if (typeof target.types === 'string') return target.types;
  return typesOf(target.import) ?? typesOf(target.default);
};

/**
 * The entry points of a package.json: each "exports" key whose target has declarations under
 * dist/, mapped back to its source (`./dist/app/runtime/index.d.ts` → `app/runtime/index.ts`).
 */
export const entryPointsOf = (packageJson: unknown): ReadonlyArray<EntryPoint> => {
  if (!isRecord(packageJson) || typeof packageJson.name !== 'string' || !isRecord(packageJson.exports)) return [];
  const name = packageJson.name;
  return Object.entries(packageJson.exports).flatMap(([key, target]) => {
    const types = typesOf(target);
    const source = types === undefined ? undefined : /^\.\/dist\/(.+)\.d\.ts$/.exec(types)?.[1];
    if (source === undefined) return [];
    const subpath = key === '.' ? '' : key.replace(/^\.\//, '');
    return [
      {
        specifier: subpath === '' ? name : `${name}/${subpath}`,
        stem: subpath === '' ? name : subpath.replaceAll('/', '-'),
        source: `${source}.ts`,
      },
    ];
  });
};

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const PRINTER = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/**
 * A type alias or interface as declared, after its name (`<T> = A | B;`, `extends X { … }`): printed
 * from the syntax tree, so the text does not depend on the order the checker met the types in.
 */
const declarationText = (declaration: ts.InterfaceDeclaration | ts.TypeAliasDeclaration): string => {
  const printed = oneLine(PRINTER.printNode(ts.EmitHint.Unspecified, declaration, declaration.getSourceFile()));
  const name = declaration.name.text;
  return printed.replace(new RegExp(`^(export\\s+)?(declare\\s+)?(type|interface)\\s+${name}\\b\\s*`), '');
};

const isPublicMember = (symbol: ts.Symbol): boolean =>
  !symbol.name.startsWith('#') &&
  !(symbol.declarations ?? []).some(
    (declaration) =>
      (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0,
  );

/** A class: its constructor and public instance members, by the checker. */
const classText = (checker: ts.TypeChecker, symbol: ts.Symbol, at: ts.Node): string => {
  const constructors = checker
    .getTypeOfSymbolAtLocation(symbol, at)
    .getConstructSignatures()
    .map((signature) => `constructor${checker.signatureToString(signature, at, FORMAT)}`.replace(/ => .*$/, ''));
  const members = checker
    .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))
    .filter(isPublicMember)
    .map(
      (member) => `${member.name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(member, at), at, FORMAT)}`,
    )
    .sort();
  return `{ ${[...constructors, ...members].join('; ')} }`;
};

/** The kinds and signature of one resolved export. */
const describe = (checker: ts.TypeChecker, symbol: ts.Symbol): { kind: string; signature: string } => {
  const declarations = symbol.declarations ?? [];
  const at = declarations[0] ?? checker.getAliasedSymbol(symbol).valueDeclaration;
  const parts: Array<{ kind: string; text: string }> = [];
  const flags = symbol.flags;
  if (at === undefined) return { kind: 'unknown', signature: '' };
  if (flags & ts.SymbolFlags.Class) parts.push({ kind: 'class', text: classText(checker, symbol, at) });
  else if (flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)) {
    const annotation = symbol.valueDeclaration;
    const declared =
      annotation !== undefined && ts.isVariableDeclaration(annotation) && annotation.type !== undefined
        ? oneLine(PRINTER.printNode(ts.EmitHint.Unspecified, annotation.type, annotation.getSourceFile()))
        : undefined;
    const type = checker.getTypeOfSymbolAtLocation(symbol, at);
    const calls = type.getCallSignatures();
    const callable = calls.length > 0 && type.getProperties().length === 0;
    parts.push({
      kind: flags & ts.SymbolFlags.Function ? 'function' : 'const',
      text:
        declared !== undefined
          ? `: ${declared}`
          : callable
            ? `: ${calls.map((signature) => checker.signatureToString(signature, at, FORMAT)).join(' & ')}`
            : `: ${checker.typeToString(type, at, FORMAT)}`,
    });
  }
  if (flags & ts.SymbolFlags.Enum) parts.push({ kind: 'enum', text: '' });
  if (flags & (ts.SymbolFlags.NamespaceModule | ts.SymbolFlags.ValueModule))
    parts.push({ kind: 'namespace', text: '' });
  for (const declaration of declarations)
    if (ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration))
      parts.push({
        kind: ts.isInterfaceDeclaration(declaration) ? 'interface' : 'type',
        text: declarationText(declaration),
      });
  return {
    kind: parts.map((part) => part.kind).join('+') || 'unknown',
    signature: parts
      .map((part) => part.text)
      .filter((text) => text !== '')
      .join(' ;; '),
  };
};

/** Every export of one source file as a consumer of the entry sees it, sorted by name. */
export const apiOf = (program: ts.Program, source: string): ReadonlyArray<ApiLine> => {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(source);
  const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
  if (module === undefined) throw new Error(`${source}: not a module of the program (is it an entry's source?)`);
  return checker
    .getExportsOfModule(module)
    .map((exported) => {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      return { name: exported.name, ...describe(checker, target) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
};

const FENCE = '```';
/** A report's line for one export: `kind name signature`, e.g. `const FINALIZER: 'kreconcile.io/finalizer'`. */
const lineOf = (line: ApiLine): string => {
  const signature = /^[:<]/.test(line.signature) ? line.signature : ` ${line.signature}`;
  return `${line.kind} ${line.name}${signature}`.trimEnd();
};

/** The text of `api/<stem>.api.md` for one entry. */
export const renderReport = (entry: EntryPoint, lines: ReadonlyArray<ApiLine>): string =>
  [
    `# API report: \`${entry.specifier}\``,
    '',
    `What \`import … from '${entry.specifier}'\` offers (source: \`${entry.source}\`): ${lines.length} exports,`,
    'one per line as `kind name signature`. Generated by `npm run api:update` (tools/api/api-report.ts),',
    'checked by `npm run lint`; do not edit by hand. Why an export is public: docs/decisions/0031-public-api-on-purpose.md.',
    '',
    `${FENCE}ts`,
    ...lines.map(lineOf),
    FENCE,
    '',
  ].join('\n');

/** The export lines of a report text, by name (the lines between the fences). */
export const parseReport = (text: string): ReadonlyMap<string, string> => {
  const lines = text.split('\n');
  const start = lines.indexOf(`${FENCE}ts`);
  const end = lines.indexOf(FENCE, start + 1);
  if (start < 0 || end < 0) return new Map();
  return new Map(
    lines.slice(start + 1, end).flatMap((line) => {
      const name = /^\S+ ([A-Za-z_$][\w$]*)/.exec(line)?.[1];
      return name === undefined ? [] : [[name, line] as const];
    }),
  );
};

/** What differs between the checked-in report and the sources: one message per export, empty when they agree. */
export const compareReports = (entry: EntryPoint, checkedIn: string, current: string): ReadonlyArray<string> => {
  const before = parseReport(checkedIn);
  const after = parseReport(current);
  const where = `api/${entry.stem}.api.md`;
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const problems = names.flatMap((name) => {
    const was = before.get(name);
    const is = after.get(name);
    if (was === undefined) return [`${where}: export \`${name}\` added to '${entry.specifier}' (${entry.source})`];
    if (is === undefined) return [`${where}: export \`${name}\` removed from '${entry.specifier}' (${entry.source})`];
    return was === is
      ? []
      : [`${where}: export \`${name}\` of '${entry.specifier}' changed\n  was: ${was}\n  now: ${is}`];
  });
  // Same exports, other text (the header, by hand): still out of date.
  return problems.length === 0 && checkedIn !== current ? [`${where}: differs from the generated report`] : problems;
};

/** The program of every entry's source, with the repository's compiler options. */
export const programOf = (root: string, sources: ReadonlyArray<string>): ts.Program => {
  const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  return ts.createProgram({
    rootNames: sources.map((source) => join(root, source)),
    options: { ...parsed.options, noEmit: true },
  });
};

/** The generated reports of a package at `root`: file path (relative) → text. */
export const reportsOf = (root: string): ReadonlyArray<{ entry: EntryPoint; path: string; text: string }> => {
  const entries = entryPointsOf(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  const program = programOf(
    root,
    entries.map((entry) => entry.source),
  );
  return entries.map((entry) => ({
    entry,
    path: join('api', `${entry.stem}.api.md`),
    // A type printed as `import("/abs/path").T` names the checkout: made relative, the report is the same in CI.
    text: renderReport(entry, apiOf(program, join(root, entry.source))).replaceAll(`${root}/`, ''),
  }));
};

/** Checks (or with `update`, writes) the reports of the package at `root`; the problems, empty when up to date. */
export const checkReports = (root: string, update: boolean): ReadonlyArray<string> =>
  reportsOf(root).flatMap(({ entry, path, text }) => {
    const file = join(root, path);
    if (update) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return [];
    }
    if (!existsSync(file)) return [`${path}: missing (the report of '${entry.specifier}')`];
    return compareReports(entry, readFileSync(file, 'utf8'), text);
  });

const main = (argv: ReadonlyArray<string>): number => {
  const unknown = argv.filter((arg) => arg !== '--update');
  if (unknown.length > 0) {
    console.error(`api-report: unknown argument ${unknown.join(' ')}: use no argument (check) or --update`);
    return 2;
  }
  const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
  const update = argv.includes('--update');
  const problems = checkReports(root, update);
  if (update) {
    console.log('api-report: wrote api/*.api.md');
    return 0;
  }
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(
      `api-report: the public API differs from api/*.api.md (${problems.length} difference(s)). ` +
        'If the change is meant (docs/ describe it for users), run `npm run api:update` and commit api/; ' +
        'otherwise stop exporting it from the entry (code inside the repository imports core/internal.ts).',
    );
    return 1;
  }
  console.log('api-report: the public API matches api/*.api.md');
  return 0;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  process.exit(main(process.argv.slice(2)));
