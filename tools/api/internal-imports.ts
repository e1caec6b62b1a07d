/**
 * Codemod and lint step: code inside the repository imports the core through its internal path,
 * `core/internal.ts`, never through the public entry `core/index.ts` (`kreconcile`), so the public
 * entry holds only what docs/ describe for users (docs/decisions/0031-public-api-on-purpose.md).
 *
 *   node --import tsx tools/api/internal-imports.ts          check: lists each import of core/index.js as file:line;
 * exit 1 when there is one
 *   node --import tsx tools/api/internal-imports.ts --write  rewrites them to core/internal.js (npm run
 * api:internal-imports)
 *
 * A rewritten file is formatted with Prettier (the longer path may wrap a line, and `npm test`
 * checks the format). Idempotent: a rewritten file has nothing left to rewrite. Every relative specifier that resolves
 * to core/index (`from '…'`, `import '…'`, `import('…')`, `vi.mock('…')`) in app/, adapters/,
 * tools/, bench/ and test/ is rewritten, with its quotes and the rest of the file untouched.
 * examples/ is left alone: an example imports the package as its users do.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';

/** The folders whose files are rewritten; core/ itself imports its modules directly. */
export const REWRITTEN_FOLDERS: ReadonlyArray<string> = ['app', 'adapters', 'tools', 'bench', 'test'];

const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** A module specifier in an import position: the quote is group 2, the relative specifier group 3. */
const SPECIFIER =
  /((?:\bfrom|\bimport|\bimport\s*\(|\bmock\s*\(|\bimportActual\s*(?:<[^>]*>)?\s*\()\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g;

/** The public entry, as specifiers name it (with or without `.js`/`.ts`, or the folder itself). */
const isPublicEntry = (target: string, root: string): boolean => {
  const core = join(root, 'core');
  return [core, join(core, 'index'), join(core, 'index.js'), join(core, 'index.ts')].includes(target);
};

/** The specifier of core/internal.js from `file`, in the repository's style (`./`/`../`, `.js`). */
const internalSpecifier = (file: string, root: string): string => {
  const path = relative(dirname(file), join(root, 'core', 'internal.js'))
    .split(sep)
    .join('/');
  return path.startsWith('.') ? path : `./${path}`;
};

/** `text` (the source of `file`) with every import of core's public entry pointed at core/internal.js. */
export const rewriteImports = (text: string, file: string, root: string): string =>
  text.replace(SPECIFIER, (whole, before: string, quote: string, specifier: string) =>
    isPublicEntry(resolve(dirname(file), specifier), root)
      ? `${before}${quote}${internalSpecifier(file, root)}${quote}`
      : whole,
  );

/** The 1-based lines of `text` that import core's public entry. */
export const publicEntryImports = (text: string, file: string, root: string): ReadonlyArray<number> =>
  [...text.matchAll(SPECIFIER)]
    .filter((match) => isPublicEntry(resolve(dirname(file), match[3] ?? ''), root))
    .map((match) => text.slice(0, match.index).split('\n').length);

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    return statSync(path).isDirectory() ? sources(path) : SOURCE_FILE.test(name) ? [path] : [];
  });

/** Every source file under the rewritten folders of `root`. */
export const filesOf = (root: string): ReadonlyArray<string> =>
  REWRITTEN_FOLDERS.flatMap((folder) => {
    try {
      return sources(join(root, folder));
    } catch {
      return []; // a folder this checkout does not have
    }
  });

/** `text` formatted as `npm run format` would format `file`. */
const formatted = async (text: string, file: string): Promise<string> =>
  prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const unknown = argv.filter((arg) => arg !== '--write');
  if (unknown.length > 0) {
    console.error(`internal-imports: unknown argument ${unknown.join(' ')}: use no argument (check) or --write`);
    return 2;
  }
  const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
  let rewritten = 0;
  const left: string[] = [];
  for (const file of filesOf(root)) {
    const text = readFileSync(file, 'utf8');
    if (argv.includes('--write')) {
      const next = rewriteImports(text, file, root);
      if (next !== text) {
        writeFileSync(file, await formatted(next, file));
        rewritten++;
      }
    } else for (const line of publicEntryImports(text, file, root)) left.push(`${relative(root, file)}:${line}`);
  }
  if (argv.includes('--write')) {
    console.log(`internal-imports: pointed ${rewritten} file(s) at core/internal.js`);
    return 0;
  }
  for (const where of left) console.error(`${where}: imports core/index.js, the public entry (kreconcile)`);
  if (left.length > 0) {
    console.error(
      `internal-imports: ${left.length} import(s) of core's public entry inside the repository: ` +
        'import core/internal.js instead (npm run api:internal-imports rewrites them)',
    );
    return 1;
  }
  console.log('internal-imports: the repository imports the core through core/internal.js');
  return 0;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  process.exit(await main(process.argv.slice(2)));
