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
import { existsSync, rmSync } from 'node:fs';
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
process.exit(built.status ?? 1);
