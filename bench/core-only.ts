/**
 * `npm run bench:core [-- 1 10 100]`: only the core suite (quick check of planning cost), at the
 * sizes given (default 1, 10, 100, 1 000 and 10 000 resources), each row with its goal; exit 1 when
 * a goal is missed, as `npm run bench`.
 */
import { coreBenchmarks, impactBenchmark } from './core.bench.js';

const given = process.argv
  .slice(2)
  .map(Number)
  .filter((size) => Number.isInteger(size) && size > 0);
const sizes = given.length > 0 ? given : [1, 10, 100, 1000, 10000];
let missed = 0;
const rowsOf = (size: number) => [...coreBenchmarks([size]), ...(size === 1000 ? [impactBenchmark(size)] : [])];
for (const size of sizes)
  for (const row of rowsOf(size)) {
    const quartiles = (row.ratioQuartiles as ReadonlyArray<number>).map((q) => q.toPrecision(3)).join('–');
    const allocation =
      typeof row.allocatedBytesPerResource !== 'number'
        ? ''
        : `alloc ${String(row.allocatedBytesPerResource)} B/resource`;
    const goal = row.goal === undefined ? '' : `  goal ${row.goal}: ${row.goalMet === true ? 'met' : 'MISSED'}`;
    if (row.goalMet === false) missed++;
    console.log(
      `${row.case.padEnd(44)} ${row.valueMs?.toPrecision(3)} ms  ratio ${row.ratio?.toPrecision(3)} (${quartiles})  ${row.baselineName ?? ''} ${row.baselineMs?.toPrecision(3)} ms  ${allocation}${goal}`,
    );
  }
if (missed > 0) {
  console.log(`${missed} goal(s) missed`);
  process.exitCode = 1;
}
