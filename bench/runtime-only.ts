/**
 * `npm run bench:runtime [-- 1000 10000]`: only the runtime suite on the in-memory cluster (default 1 000 and 10 000
 * Applications).
 */
import { runtimeBenchmarks } from './runtime.bench.js';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((size) => Number.isInteger(size) && size > 0);
for (const row of await runtimeBenchmarks(sizes.length > 0 ? sizes : [1000, 10000], (line) =>
  process.stderr.write(`${line}\n`),
))
  console.log(JSON.stringify(row));
