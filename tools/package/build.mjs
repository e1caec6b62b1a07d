#!/usr/bin/env node
// Builds dist/ for the package (tsc -p tsconfig.build.json). Plain JavaScript without
// dependencies, because npm runs it from lifecycle scripts before anything else is known to work.
//   node tools/package/build.mjs            prepack: always a fresh dist/ (stale files removed)
//   node tools/package/build.mjs --prepare  prepare: build only when dist/ is missing
// Why two modes: `npm pack`/`npm publish` run prepack and then prepare, so prepare must not build
// a second time; a git install (npm install github:…) runs only prepare, in a fresh clone where
// npm has installed the devDependencies first, so it builds there; `npm ci --omit=dev` in a
// checkout runs prepare without TypeScript, so it skips with a note instead of failing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');
const prepare = process.argv.includes('--prepare');

const typescript = (() => {
  try {
    return createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
})();

if (prepare && existsSync(join(dist, 'core', 'index.js'))) process.exit(0);
if (typescript === undefined) {
  if (prepare) {
    process.stderr.write(
      'kreconcile: dist/ not built (TypeScript is a devDependency, absent here): run npm run build after installing devDependencies\n',
    );
    process.exit(0);
  }
  process.stderr.write('kreconcile: cannot build dist/: TypeScript is not installed (npm ci first)\n');
  process.exit(1);
}
rmSync(dist, { recursive: true, force: true });
const built = spawnSync(process.execPath, [typescript, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);
writeCommonJsDeclarations(dist);

/**
 * Declarations for CommonJS consumers (the package's `require` type conditions): every .d.ts
 * copied as .d.cts, its relative imports pointing at the .d.cts copies. A .d.ts of this ESM
 * package resolves fast-check to its ESM declarations, while a CommonJS consumer's own
 * `import fc from 'fast-check'` resolves to the CommonJS ones: two declarations of the same
 * classes, which TypeScript refuses to mix (`separate declarations of a private property`). In a
 * .d.cts, fast-check resolves as the consumer's does.
 */
function writeCommonJsDeclarations(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) writeCommonJsDeclarations(path);
    else if (entry.name.endsWith('.d.ts'))
      writeFileSync(
        path.replace(/\.d\.ts$/, '.d.cts'),
        readFileSync(path, 'utf8').replace(/((?:from|import\()\s*["'])(\.{1,2}\/[^"']+)\.js(["'])/g, '$1$2.cjs$3'),
      );
  }
}
