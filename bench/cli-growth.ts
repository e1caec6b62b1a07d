/**
 * End-to-end cost of `kreconcile plan` as inputs grow (issue 26 item 1): one Application of
 * 1 000 to 100 000 ConfigMaps, and many Application files against a snapshot of their live
 * objects. Each run is a process of its own (bench/cli-run.ts), so its peak RSS is the CLI's.
 *
 * Goals (a row's `goal`, checked by bench/run.ts):
 * - the time per resource at the largest size is at most 1.5× the time at 1 000 (linear growth);
 * - 100 000 resources in at most 10 s and 1 GiB;
 * - the whole CLI at most 5× a bare fresh plan of the same Application;
 * - the time per Application of the largest fleet below that of 250 files (live objects indexed once).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { Row } from './measure.js';

const here = dirname(fileURLToPath(import.meta.url));
const NOW = '2026-11-01T10:00:00Z';

const configMap = (name: string, index: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { 'app.kubernetes.io/name': 'bench' } },
  data: { 'settings.conf': `mode=production\nindex=${index}\n`, LOG_LEVEL: 'info' },
});

const application = (name: string, resources: number) => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace: 'bench' },
  spec: { manifest: Array.from({ length: resources }, (_, i) => configMap(`${name}-cm-${i}`, i)) },
});

/** A ConfigMap as the API server returns it: server fields, and the owner mark of its Application. */
const liveConfigMap = (owner: string, name: string, index: number) => {
  const desired = configMap(name, index);
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      namespace: 'bench',
      uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      resourceVersion: String(1000 + index),
      creationTimestamp: NOW,
      annotations: { 'kreconcile.io/owner': `bench/${owner}` },
    },
  };
};

const RunResult = t.type({
  cliMs: t.number,
  cpuMs: t.union([t.number, t.undefined]),
  maxRssBytes: t.number,
  exitCode: t.number,
  planMs: t.union([t.number, t.undefined]),
});
type RunResult = t.TypeOf<typeof RunResult>;

/** Runs `kreconcile <args>` in its own process (stdout discarded); `application`: the file a bare plan is timed on. */
export const runCli = (dir: string, application: string | undefined, args: ReadonlyArray<string>): RunResult => {
  const result = join(dir, 'result.json');
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(here, 'cli-run.ts'), result, application ?? '-', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (child.status !== 0) throw new Error(`kreconcile ${args.join(' ')} failed: ${child.stderr}`);
  const decoded = RunResult.decode(JSON.parse(readFileSync(result, 'utf8')));
  if (E.isLeft(decoded)) throw new Error('bench/cli-run.ts wrote no result');
  // 0: no changes, 2: changes planned (the usual plan exit codes); anything else is a failed run.
  if (decoded.right.exitCode !== 0 && decoded.right.exitCode !== 2)
    throw new Error(`kreconcile ${args.join(' ')} exited ${decoded.right.exitCode}: ${child.stderr}`);
  return decoded.right;
};

const MiB = 1024 * 1024;
const SNAPSHOT_OBJECTS = 25_000;

/** `plan` of one Application of `resources` ConfigMaps against an empty cluster. */
const oneApplication = (dir: string, resources: number): RunResult => {
  const file = join(dir, `app-${resources}.json`);
  writeFileSync(file, JSON.stringify(application('big', resources)));
  const run = runCli(dir, file, ['plan', '-f', file, '-o', 'json', '--now', NOW]);
  rmSync(file);
  return run;
};

/** `plan` of `count` Application files of `resources` ConfigMaps each, against a snapshot of their live objects. */
const fleet = (dir: string, count: number, resources: number): RunResult => {
  const apps = join(dir, `fleet-${count}`);
  mkdirSync(apps, { recursive: true });
  const live = [];
  for (let a = 0; a < count; a++) {
    const name = `app-${a}`;
    writeFileSync(join(apps, `${name}.json`), JSON.stringify(application(name, resources)));
    for (let r = 0; r < resources; r++) live.push(liveConfigMap(name, `${name}-cm-${r}`, a * resources + r));
  }
  // Several snapshot files, as `kubectl get` per namespace would write them: one file is capped at 32 MiB.
  const snapshots = [];
  for (let from = 0; from < live.length; from += SNAPSHOT_OBJECTS) {
    const snapshot = join(dir, `snapshot-${count}-${from}.json`);
    writeFileSync(
      snapshot,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: live.slice(from, from + SNAPSHOT_OBJECTS) }),
    );
    snapshots.push(snapshot);
  }
  const run = runCli(dir, undefined, [
    'plan',
    '-f',
    apps,
    ...snapshots.flatMap((snapshot) => ['--snapshot', snapshot]),
    '-o',
    'json',
    '--now',
    NOW,
  ]);
  rmSync(apps, { recursive: true });
  for (const snapshot of snapshots) rmSync(snapshot);
  return run;
};

const goal = (text: string, met: boolean) => ({ goal: text, goalMet: met });

export const cliGrowthBenchmarks = (quick: boolean, log: (line: string) => void): ReadonlyArray<Row> => {
  const dir = mkdtempSync(join(tmpdir(), 'kreconcile-cli-bench-'));
  try {
    const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];
    const rows: Row[] = [];
    const perResource = new Map<number, number>();
    for (const size of sizes) {
      log(`cli: plan one Application of ${size} ConfigMaps…`);
      const run = oneApplication(dir, size);
      const planMs = run.planMs ?? Number.NaN;
      perResource.set(size, (run.cliMs * 1000) / size);
      rows.push({
        suite: 'cli',
        case: `plan -f, one Application of ${size} ConfigMaps (own process)`,
        resources: size,
        valueMs: run.cliMs,
        perItemUs: (run.cliMs * 1000) / size,
        baselineName: 'bare fresh plan',
        baselineMs: planMs,
        ratio: run.cliMs / planMs,
        memoryBytes: run.maxRssBytes,
        ...goal('ratio ≤ 5', run.cliMs / planMs <= 5),
      });
      if (size === 100_000)
        rows.push({
          suite: 'cli',
          case: 'plan -f, 100 000 resources: time and peak RSS',
          resources: size,
          valueMs: run.cliMs,
          memoryBytes: run.maxRssBytes,
          ...goal('≤ 10 s and ≤ 1 GiB', run.cliMs <= 10_000 && run.maxRssBytes <= 1024 * MiB),
        });
    }
    const largest = sizes[sizes.length - 1] as number;
    const growth = (perResource.get(largest) as number) / (perResource.get(1000) as number);
    rows.push({
      suite: 'cli',
      case: `plan -f growth: time per resource at ${largest} ÷ at 1000`,
      resources: largest,
      value: Number(growth.toFixed(3)),
      ratio: growth,
      ...goal('ratio ≤ 1.5', growth <= 1.5),
    });

    const counts = quick ? [250, 1000] : [250, 4000];
    const perApplication = counts.map((count) => {
      log(`cli: plan ${count} Application files against a snapshot…`);
      const run = fleet(dir, count, 1);
      rows.push({
        suite: 'cli',
        case: `plan -f dir/, ${count} Application files against a snapshot (own process)`,
        resources: count,
        valueMs: run.cliMs,
        perItemUs: (run.cliMs * 1000) / count,
        memoryBytes: run.maxRssBytes,
      });
      return run.cliMs / count;
    });
    const fleetGrowth = (perApplication[1] as number) / (perApplication[0] as number);
    rows.push({
      suite: 'cli',
      case: `plan -f dir/ growth: time per Application at ${counts[1]} ÷ at ${counts[0]} files`,
      value: Number(fleetGrowth.toFixed(3)),
      ratio: fleetGrowth,
      ...goal('ratio < 1', fleetGrowth < 1),
    });
    if (!quick) {
      log('cli: plan 10 000 Applications of 10 ConfigMaps against a snapshot…');
      const run = fleet(dir, 10_000, 10);
      rows.push({
        suite: 'cli',
        case: 'plan -f dir/, 10 000 Applications × 10 ConfigMaps against a snapshot (own process)',
        resources: 100_000,
        valueMs: run.cliMs,
        perItemUs: (run.cliMs * 1000) / 100_000,
        memoryBytes: run.maxRssBytes,
        ...goal(
          'per resource ≤ 1.5× one Application of 1000',
          (run.cliMs * 1000) / 100_000 / (perResource.get(1000) as number) <= 1.5,
        ),
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
