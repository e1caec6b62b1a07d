#!/usr/bin/env node
// Launcher of the `kreconcile` executable: runs the compiled CLI (dist/, after `npm run build`)
// when present, else the TypeScript sources through tsx (a development checkout).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../../dist/app/cli/kreconcile.js', import.meta.url));

const loadTsx = async () => {
  try {
    return await import('tsx/esm/api');
  } catch {
    process.stderr.write('error: kreconcile is neither built (run npm run build) nor runnable from source (run npm install to get tsx)\n');
    process.exit(1);
  }
};

if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await loadTsx();
  register();
  await import('./kreconcile.ts');
}
