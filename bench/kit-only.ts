/** `npm run bench:kit`: only the kit rows (bench/kit.bench.ts), printed as JSON lines. */
import { kitBenchmarks } from './kit.bench.js';

const rows = await kitBenchmarks((line) => process.stderr.write(`${line}\n`));
for (const row of rows) console.log(JSON.stringify(row));
