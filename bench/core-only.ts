/** `npm run bench:core`: only the core suite (quick check of planning cost). */
import { coreBenchmarks } from './core.bench.js';
for (const row of coreBenchmarks([100, 1000, 10000]))
  console.log(
    `${row.case.padEnd(44)} ${row.valueMs?.toPrecision(3)} ms  ratio ${row.ratio?.toPrecision(3)} (${(row.ratioQuartiles as ReadonlyArray<number>).map((q) => q.toPrecision(3)).join('–')})  microdiff ${row.baselineMs?.toPrecision(3)} ms  ${row.allocatedBytesPerResource === undefined ? '' : `alloc ${String(row.allocatedBytesPerResource)} B/resource`}`,
  );
