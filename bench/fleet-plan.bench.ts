/**
 * `kreconcile fleet-plan` from a snapshot (issue 38): N Applications × 4 objects (the fleet shape of
 * bench/fleet-objects.ts: Deployment, headless Service, ServiceAccount, ConfigMap) recorded in sync,
 * and the change under review: every instance's template bumped (a new image), given with -f. Each
 * run is a process of its own (bench/cli-run.ts): its wall time and peak RSS are the CLI's, reading
 * and decoding the snapshot and the files included.
 *
 * Goal: 10 000 Applications × 4 objects under 30 s and 2 GiB on this machine.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { Resource } from '../core/internal.js';
import { runCli } from './cli-growth.js';
import { applicationObjects } from './fleet-objects.js';
import type { Row } from './measure.js';

const NOW = '2026-11-01T10:00:00Z';
const MiB = 1024 * 1024;
/** Items per snapshot or -f file: one input file is capped at 32 MiB. */
const PER_FILE = 2_500;
const NAMESPACES = 100;

const namespaceOf = (i: number): string => `team-${i % NAMESPACES}`;

/** The objects of `app-<i>` as declared (no namespace: the Application's), the image given. */
const declared = (i: number, image: string): ReadonlyArray<Resource> =>
  applicationObjects('flux', i, namespaceOf(i)).map((object) => {
    const { namespace: _namespace, ...metadata } = object.metadata;
    return object.kind === 'Deployment' ? withImage({ ...object, metadata }, image) : { ...object, metadata };
  });

/** A Deployment with every container's image set to `image` (the template bump). */
const withImage = (deployment: Resource, image: string): Resource => {
  const bumped = Resource.decode(
    JSON.parse(JSON.stringify(deployment).replace(/"image":"[^"]*"/g, `"image":${JSON.stringify(image)}`)),
  );
  if (E.isLeft(bumped)) throw new Error('the bumped Deployment is no longer a resource');
  return bumped.right;
};

const application = (i: number, image: string) => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: {
    name: `app-${i}`,
    namespace: namespaceOf(i),
    uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    generation: 1,
    finalizers: ['kreconcile.io/cleanup'],
  },
  spec: { manifest: declared(i, image) },
});

/** An object as the API server returns it: namespace, server fields, the owner mark. */
const live = (i: number, object: Resource, index: number): Resource => ({
  ...object,
  metadata: {
    ...object.metadata,
    namespace: namespaceOf(i),
    uid: `10000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    resourceVersion: String(1000 + index),
    generation: 1,
    creationTimestamp: NOW,
    labels: { ...object.metadata.labels, 'app.kubernetes.io/managed-by': 'kreconcile' },
    annotations: { ...object.metadata.annotations, 'kreconcile.io/owner': `${namespaceOf(i)}/app-${i}` },
  },
});

const writeLists = (dir: string, prefix: string, items: ReadonlyArray<object>): ReadonlyArray<string> => {
  const files: string[] = [];
  for (let from = 0; from < items.length; from += PER_FILE) {
    const file = join(dir, `${prefix}-${from}.json`);
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.slice(from, from + PER_FILE) }));
    files.push(file);
  }
  return files;
};

/** Writes the recorded fleet and the bumped Applications; the arguments of `fleet-plan` over them. */
export const fleetInputs = (dir: string, count: number): ReadonlyArray<string> => {
  const recorded: object[] = [];
  const bumped: object[] = [];
  for (let i = 0; i < count; i++) {
    recorded.push(application(i, 'ghcr.io/example/app:1.0'));
    declared(i, 'ghcr.io/example/app:1.0').forEach((object, k) => recorded.push(live(i, object, i * 4 + k)));
    bumped.push(application(i, 'ghcr.io/example/app:1.1'));
  }
  return [
    'fleet-plan',
    ...writeLists(dir, 'snapshot', recorded).flatMap((file) => ['--snapshot', file]),
    ...writeLists(dir, 'bump', bumped).flatMap((file) => ['-f', file]),
    '-o',
    'json',
    '--now',
    NOW,
  ];
};

export const fleetPlanBenchmarks = (quick: boolean, log: (line: string) => void): ReadonlyArray<Row> => {
  const dir = mkdtempSync(join(tmpdir(), 'kreconcile-fleet-plan-bench-'));
  try {
    return (quick ? [1_000] : [1_000, 10_000]).map((count): Row => {
      log(`fleet-plan: ${count} Applications × 4 objects from a snapshot, every template bumped…`);
      const run = runCli(dir, undefined, fleetInputs(dir, count));
      return {
        suite: 'fleet-plan',
        case: `fleet-plan --snapshot, ${count} Applications × 4 objects, every template bumped (own process)`,
        resources: count * 4,
        valueMs: run.cliMs,
        perItemUs: (run.cliMs * 1000) / count,
        memoryBytes: run.maxRssBytes,
        cpuMs: run.cpuMs,
        ...(count === 10_000
          ? { goal: '≤ 30 s and ≤ 2 GiB', goalMet: run.cliMs <= 30_000 && run.maxRssBytes <= 2048 * MiB }
          : {}),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
