/**
 * `npm run bench`: runs every benchmark suite, prints a table (with each ratio of the previous run
 * on this machine beside it) and writes JSON under bench/results/.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { carriedRows, type Carried } from './carried.js';
import { cliGrowthBenchmarks } from './cli-growth.js';
import { fleetPlanBenchmarks } from './fleet-plan.bench.js';
import { coreBenchmarks, impactBenchmark } from './core.bench.js';
import { kitBenchmarks } from './kit.bench.js';
import { patchBenchmarks } from './patch.bench.js';
import { runtimeBenchmarks } from './runtime.bench.js';
import type { Row } from './measure.js';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const sizes = quick ? [1, 100] : [1, 10, 100, 1000, 10000];

const format = (value: number | undefined, digits = 3): string =>
  value === undefined ? '' : value.toPrecision(digits);

/** A row of an earlier result file, as far as the comparison needs it. */
const PreviousRow = t.type({ suite: t.string, case: t.string, ratio: t.number });
const PreviousResult = t.type({ rows: t.array(t.unknown) });

/** The ratios of the previous run on this machine (`bench/results/latest.json`), by suite and case. */
const previousRatios = (path: string): ReadonlyMap<string, number> => {
  if (!existsSync(path)) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return new Map(); /* an unreadable earlier result is no reason to lose this run's */
  }
  const result = PreviousResult.decode(parsed);
  if (E.isLeft(result)) return new Map();
  return new Map(
    result.right.rows.flatMap((row) => {
      const decoded = PreviousRow.decode(row);
      return E.isRight(decoded) ? [[`${decoded.right.suite}|${decoded.right.case}`, decoded.right.ratio] as const] : [];
    }),
  );
};

const printTable = (rows: ReadonlyArray<Row>, previous: ReadonlyMap<string, number>): void => {
  const header = [
    'suite',
    'case',
    'value',
    'baseline',
    'baseline value',
    'ratio',
    'previous run',
    'memory KiB',
    'goal',
  ];
  const value = (r: Row): string =>
    r.valueMs !== undefined
      ? `${format(r.valueMs)} ms`
      : r.value !== undefined
        ? String(r.value)
        : r.bytesPerObject !== undefined
          ? `${format(r.bytesPerObject as number)} B/object`
          : '';
  const baseline = (r: Row): string =>
    r.baselineMs !== undefined
      ? `${format(r.baselineMs)} ms`
      : r.baseline !== undefined
        ? String(r.baseline)
        : r.jsonBytesPerObject !== undefined
          ? `${format(r.jsonBytesPerObject as number)} B/object`
          : '';
  const lines = rows.map((r) => [
    r.suite,
    r.case,
    value(r),
    r.baselineName ?? '',
    baseline(r),
    format(r.ratio),
    format(previous.get(`${r.suite}|${r.case}`)),
    r.memoryBytes === undefined ? '' : (r.memoryBytes / 1024).toFixed(0),
    r.goal === undefined ? '' : `${r.goal}: ${r.goalMet === true ? 'met' : 'FAILED'}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const show = (cells: ReadonlyArray<string>): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(show(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(show(line));
};

/** The fleet rows of the last `bench:fleet` runs, each with its goal and the day it was measured. */
const printCarried = (carried: Carried): void => {
  if (carried.rows.length > 0) {
    console.log('\nNot rerun here (the last `npm run bench:fleet` runs on this machine; docs/performance.md):');
    for (const row of carried.rows) {
      const value = row.valueMs === undefined ? '' : `${format(row.valueMs / 1000)} s`;
      const ratio = row.ratio === undefined ? '' : `, ${format(row.ratio)}× ${row.baselineName ?? ''}`.trimEnd();
      const goal = row.goal === undefined ? '' : `; goal ${row.goal}: ${row.goalMet === true ? 'met' : 'missed'}`;
      console.log(`  ${row.suite} ${row.case}: ${value}${ratio}${goal} (measured ${row.measuredAt})`);
    }
  }
  for (const command of carried.missing) console.log(`\nNot measured on this machine yet: \`${command}\`.`);
};

const main = async (): Promise<void> => {
  const rows: Row[] = [];
  for (const size of sizes) {
    process.stderr.write(`core: planning ${size} resources…\n`);
    rows.push(...coreBenchmarks([size]));
    if (size === 1000) rows.push(impactBenchmark(size));
  }
  if (!process.argv.includes('--no-cli'))
    rows.push(...cliGrowthBenchmarks(quick, (line) => process.stderr.write(`${line}\n`)));
  if (!process.argv.includes('--no-cli'))
    rows.push(...fleetPlanBenchmarks(quick, (line) => process.stderr.write(`${line}\n`)));
  rows.push(...(await runtimeBenchmarks(quick ? [100] : [1000, 10000], (line) => process.stderr.write(`${line}\n`))));
  rows.push(...(await patchBenchmarks((line) => process.stderr.write(`${line}\n`), quick ? 100 : 500)));
  rows.push(...(await kitBenchmarks((line) => process.stderr.write(`${line}\n`))));
  if (!process.argv.includes('--no-apiserver')) {
    // Loaded only when run: the Kubernetes client it needs does not load on every Node the rest runs on.
    const { apiServerBenchmarks } = await import('./apiserver.bench.js');
    rows.push(...(await apiServerBenchmarks(quick ? 10 : 100, (line) => process.stderr.write(`${line}\n`))));
  }
  const latest = join(here, 'results', 'latest.json');
  printTable(rows, previousRatios(latest));
  printCarried(carriedRows(join(here, 'results')));
  const out = join(here, 'results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
  writeFileSync(latest, JSON.stringify({ node: process.version, date: new Date().toISOString(), rows }, null, 2));
  console.log(`\nwrote ${out}`);
  const failed = rows.filter((r) => r.goalMet === false);
  if (failed.length > 0) {
    console.log(
      `\n${failed.length} goal(s) not met:\n${failed.map((r) => `  ${r.suite} ${r.case}: ${r.goal}`).join('\n')}`,
    );
    process.exitCode = 1;
  }
};

await main();
