#!/usr/bin/env node
// Launcher of `npm run kreconcile` in a checkout of this repository: runs the TypeScript sources
// through tsx (a devDependency), so the command always runs the code as it is now and never a
// stale dist/. Without tsx (a checkout installed with --omit=dev) it runs the build in dist/.
// The published package does not use this file: its `kreconcile` bin is the compiled CLI,
// dist/app/cli/kreconcile.js, which needs production dependencies only.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../../dist/app/cli/kreconcile.js', import.meta.url));

const tsxApi = async () => {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
};

const tsx = await tsxApi();
if (tsx !== undefined) {
  tsx.register();
  await import('./kreconcile.ts');
} else if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  process.stderr.write(
    'error: kreconcile is neither runnable from source (npm install gets tsx) nor built (npm run build)\n',
  );
  process.exit(1);
}
