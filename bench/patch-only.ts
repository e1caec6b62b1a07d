/**
 * `npm run bench:patch`: only the patch suite on the in-memory API server (strategic merge and server-side apply, each
 * beside merge, requests/s).
 */
import { patchBenchmarks } from './patch.bench.js';

for (const row of await patchBenchmarks((line) => process.stderr.write(`${line}\n`))) console.log(JSON.stringify(row));
