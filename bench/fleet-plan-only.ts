/** `npm run bench:fleet-plan`: only the fleet-plan rows (bench/fleet-plan.bench.ts), as a table and JSON lines. */
import { fleetPlanBenchmarks } from './fleet-plan.bench.js';

const rows = fleetPlanBenchmarks(process.argv.includes('--quick'), (line) => process.stderr.write(`${line}\n`));
for (const row of rows)
  console.log(
    `${row.case}: ${((row.valueMs ?? 0) / 1000).toFixed(2)} s (CPU ${((Number(row.cpuMs) || 0) / 1000).toFixed(2)} s), peak RSS ${((row.memoryBytes ?? 0) / 1024 / 1024).toFixed(0)} MiB${row.goal === undefined ? '' : `, goal ${row.goal}: ${row.goalMet === true ? 'met' : 'NOT met'}`}`,
  );
for (const row of rows) console.log(JSON.stringify(row));
if (rows.some((row) => row.goalMet === false)) process.exitCode = 1;
