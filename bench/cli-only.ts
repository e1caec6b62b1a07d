/** `npm run bench:cli`: only the CLI growth rows (bench/cli-growth.ts), printed as JSON lines. */
import { cliGrowthBenchmarks } from './cli-growth.js';

const rows = cliGrowthBenchmarks(process.argv.includes('--quick'), (line) => process.stderr.write(`${line}\n`));
for (const row of rows) console.log(JSON.stringify(row));
