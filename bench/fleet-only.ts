/**
 * `npm run bench:fleet`: kreconcile beside direct creates and Flux's apply engine on one real
 * control plane (bench/fleet.bench.ts; docs/performance.md). Prints a table with each goal and the
 * previous run's value, writes JSON under bench/results/ (fleet-latest.json is the previous run
 * next time), exits 1 when a goal is missed.
 *
 *   --sizes=100,300,1000   Applications per round (fleet mode)
 *   --rounds=3             alternating rounds per size
 *   --argo                 Argo CD's fleet shape instead: --applications=10000 --argo-qps=500,50
 *   --memory               the operator and direct creates only, under each --variants entry:
 *                          what their RSS is made of (process.memoryUsage) and what a setting costs
 *   --variants='tuned:|untuned:--untuned|full:--full-client'
 *                          name:node flags, separated by |; ours: --untuned keeps V8's default heap
 *                          sizing (not the operator's), --full-client loads the client whole, untuned,
 *                          --heap-snapshot writes one at Ready into .cache/fleet/, --set=--flag sets a V8
 *                          flag at start instead of the operator's (as `kreconcile run` sets its own)
 *   --memory-contenders=kreconcile,direct
 *   --workers=4 --qps=50 --burst=100 --flux-interval-ms=1000
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  argoBenchmarks,
  fleetBenchmarks,
  memoryBenchmarks,
  type FleetSettings,
  type MemoryVariant,
} from './fleet.bench.js';
import type { Row } from './measure.js';

const here = dirname(fileURLToPath(import.meta.url));

const flagValue = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

/** A flag of positive numbers (`--sizes=100,300`); a one-line error and exit 2 when it is not. */
const numbers = (name: string, fallback: ReadonlyArray<number>): ReadonlyArray<number> => {
  const raw = flagValue(name);
  if (raw === undefined) return fallback;
  const values = raw.split(',').map(Number);
  if (values.some((value) => !Number.isFinite(value) || value <= 0)) {
    process.stderr.write(
      `bench:fleet: --${name}=${raw}: expected positive numbers separated by commas, e.g. --${name}=${fallback.join(',')}\n`,
    );
    process.exit(2);
  }
  return values;
};
const number = (name: string, fallback: number): number => numbers(name, [fallback])[0] ?? fallback;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const settings: FleetSettings = {
  workers: number('workers', 4),
  qps: number('qps', 50),
  burst: number('burst', 100),
  fluxIntervalMs: number('flux-interval-ms', 1000),
  log,
};

const argo = process.argv.includes('--argo');
const memory = process.argv.includes('--memory');

/** `--memory-contenders=kreconcile,direct` (both by default). */
const memoryContenders = (): ReadonlyArray<'kreconcile' | 'direct'> => {
  const names = (flagValue('memory-contenders') ?? 'kreconcile,direct').split(',');
  const known = names.filter((name): name is 'kreconcile' | 'direct' => name === 'kreconcile' || name === 'direct');
  if (known.length !== names.length || known.length === 0) {
    process.stderr.write(`bench:fleet: --memory-contenders=${names.join(',')}: expected kreconcile and/or direct\n`);
    process.exit(2);
  }
  return known;
};

/**
 * `--variants=name:flags|name:flags` (flags separated by spaces; `--full-client`, `--untuned`, `--heap-snapshot`,
 * `--set=` are ours).
 */
const memoryVariants = (): ReadonlyArray<MemoryVariant> =>
  (flagValue('variants') ?? 'tuned:|untuned:--untuned|full:--full-client').split('|').map((entry) => {
    const [name = '', ...rest] = entry.split(':');
    const flags = rest
      .join(':')
      .split(' ')
      .filter((flag) => flag !== '');
    if (name === '' || flags.some((flag) => !flag.startsWith('--'))) {
      process.stderr.write(
        `bench:fleet: --variants: "${entry}" is not name:--flag --flag…, e.g. --variants='lean:|semi1:--max-semi-space-size=1'\n`,
      );
      process.exit(2);
    }
    return {
      name,
      nodeFlags: flags.filter(
        (flag) => !['--full-client', '--untuned', '--heap-snapshot'].includes(flag) && !flag.startsWith('--set='),
      ),
      fullClient: flags.includes('--full-client'),
      untuned: flags.includes('--untuned'),
      heapSnapshot: flags.includes('--heap-snapshot'),
      setFlags: flags.filter((flag) => flag.startsWith('--set=')).map((flag) => flag.slice('--set='.length)),
    };
  });
const machine = {
  nproc: cpus().length,
  memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
  loadAverageBefore: loadavg().map((l) => Number(l.toFixed(2))),
};

/** A missing binary, a peer that did not build, a contender that failed: its message, without a stack. */
const orExit = async (run: Promise<ReadonlyArray<Row>>): Promise<ReadonlyArray<Row>> => {
  try {
    return await run;
  } catch (error) {
    process.stderr.write(`bench:fleet: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
};

const rows = await orExit(
  argo
    ? argoBenchmarks(number('applications', 10_000), numbers('argo-qps', [500, 50]), settings)
    : memory
      ? memoryBenchmarks(numbers('sizes', [300]), number('rounds', 1), memoryVariants(), memoryContenders(), settings)
      : fleetBenchmarks(numbers('sizes', [100, 300, 1000]), number('rounds', 3), settings),
);

const PreviousFile = t.type({ rows: t.array(t.type({ suite: t.string, case: t.string })) });
const suite = argo ? 'argo' : memory ? 'fleet-memory' : 'fleet';
const latest = join(here, 'results', `${suite}-latest.json`);

/** The previous run's rows by suite and case (none when the file is absent or unreadable). */
const previousRows = (): ReadonlyMap<string, Row> => {
  if (!existsSync(latest)) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(latest, 'utf8'));
  } catch {
    return new Map();
  }
  const decoded = PreviousFile.decode(parsed);
  return E.isLeft(decoded)
    ? new Map()
    : new Map(decoded.right.rows.map((row) => [`${row.suite}|${row.case}`, row as Row]));
};

const shown = (row: Row | undefined): string => {
  if (row === undefined) return '';
  if (row.ratio !== undefined) return `${row.ratio.toFixed(2)}×`;
  if (row.valueMs !== undefined) return `${(row.valueMs / 1000).toFixed(1)} s`;
  return row.value === undefined ? '' : String(row.value);
};

const cell = (value: unknown, digits: number, unit = ''): string =>
  typeof value === 'number' ? `${value.toFixed(digits)}${unit}` : '';

const previous = previousRows();
const header = [
  'case',
  'time',
  'baseline',
  'ratio',
  'req/object',
  'apiserver+etcd CPU',
  'kcm CPU',
  'peak RSS',
  'previous',
  'goal',
];
const lines = rows.map((row) => [
  `${row.suite}: ${row.case}`,
  row.valueMs === undefined ? String(row.value ?? '') : cell(row.valueMs / 1000, 1, ' s'),
  row.baselineMs === undefined
    ? ''
    : `${cell(row.baselineMs / 1000, row.baselineMs < 1000 ? 3 : 1, ' s')} ${row.baselineName ?? ''}`,
  cell(row.ratio, 2, '×'),
  cell(row.requestsPerObject, 2),
  cell(typeof row.serverCpuMs === 'number' ? row.serverCpuMs / 1000 : undefined, 1, ' s'),
  cell(typeof row.controllerManagerCpuMs === 'number' ? row.controllerManagerCpuMs / 1000 : undefined, 1, ' s'),
  cell(row.memoryBytes === undefined ? undefined : row.memoryBytes / 2 ** 20, 0, ' MiB'),
  shown(previous.get(`${row.suite}|${row.case}`)),
  row.goal === undefined ? '' : `${row.goal}: ${row.goalMet === true ? 'met' : 'FAILED'}`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => (line[i] ?? '').length)));
const show = (cells: ReadonlyArray<string>): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(show(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const line of lines) console.log(show(line));

const result = {
  node: process.version,
  date: new Date().toISOString(),
  machine: { ...machine, loadAverageAfter: loadavg().map((l) => Number(l.toFixed(2))) },
  settings: {
    workers: settings.workers,
    qps: settings.qps,
    burst: settings.burst,
    fluxIntervalMs: settings.fluxIntervalMs,
  },
  rows,
};
console.log(
  `\nmachine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB; load average before ${machine.loadAverageBefore.join(' ')}, after ${result.machine.loadAverageAfter.join(' ')}`,
);
const out = join(here, 'results', `${suite}-${result.date.replace(/[:.]/g, '-')}.json`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2));
writeFileSync(latest, JSON.stringify(result, null, 2));
console.log(`wrote ${out}`);
const failed = rows.filter((row) => row.goalMet === false);
if (failed.length > 0) {
  console.log(
    `\n${failed.length} goal(s) not met:\n${failed.map((row) => `  ${row.suite} ${row.case}: ${row.goal}`).join('\n')}`,
  );
  process.exitCode = 1;
}
