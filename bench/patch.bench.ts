/**
 * Patch benchmarks on the in-memory API server, in requests per second through the cluster port
 * (the verbs; no HTTP), each beside the merge patch that makes the same change (a merge patch
 * replaces lists, so it carries the whole container list):
 * - a strategic merge patch of a Deployment (what `kubectl set env` sends: one container, one env
 *   var, merged by name);
 * - a server-side apply of the Deployment (what a controller sends: its whole applied
 *   configuration, forced, by a field manager other than the one that created the object, so
 *   that field ownership is computed on every request).
 */
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryCluster, type MemoryCluster } from '../adapters/memory/index.js';
import type { JsonObject } from '../core/json/json.js';
import type { Patch } from '../core/ports/cluster.js';
import type { Row } from './measure.js';

const REF = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
const SELECTOR = { matchLabels: { app: 'web' } };
const TEMPLATE_LABELS = { labels: { app: 'web' } };

const container = (name: string, mode: string): JsonObject => ({
  name,
  image: 'nginx:1.27',
  ports: [{ name: 'http', containerPort: 80 }],
  env: [
    { name: 'MODE', value: mode },
    { name: 'LEVEL', value: 'info' },
  ],
  resources: { limits: { cpu: '500m', memory: '128Mi' } },
});

const ready = async (): Promise<MemoryCluster> => {
  const cluster = createMemoryCluster({ seed: 1, gc: false, workloads: false });
  const created = await cluster.create(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: SELECTOR,
        template: { metadata: TEMPLATE_LABELS, spec: { containers: [container('web', 'a'), container('side', 'a')] } },
      },
    },
    { fieldManager: 'setup' },
  )();
  if (E.isLeft(created)) throw new Error(created.left.message);
  return cluster;
};

type Side = { readonly cluster: MemoryCluster; readonly patchFor: (mode: string) => Patch; readonly samples: number[] };

/** One round of `batch` patches that flip MODE between two values (each request a real write). */
const round = async (side: Side, batch: number, timed: boolean): Promise<void> => {
  const t0 = performance.now();
  for (let i = 0; i < batch; i++) {
    const patched = await side.cluster.patch(REF, side.patchFor(i % 2 === 0 ? 'b' : 'a'))();
    if (E.isLeft(patched)) throw new Error(patched.left.message);
  }
  if (timed) side.samples.push(performance.now() - t0);
};

const medianOf = (samples: ReadonlyArray<number>): number =>
  [...samples].sort((a, b) => a - b)[samples.length >> 1] ?? 0;

/** Median round time of each side, rounds alternating (A B, B A, …) so that neither gets the quieter moments. */
const rates = async (a: Side, b: Side, batch: number): Promise<readonly [number, number]> => {
  await round(a, batch, false);
  await round(b, batch, false);
  for (let i = 0; i < 8; i++) for (const side of i % 2 === 0 ? [a, b] : [b, a]) await round(side, batch, true);
  return [medianOf(a.samples), medianOf(b.samples)];
};

const strategic = (mode: string): Patch => ({
  type: 'strategic',
  body: { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'MODE', value: mode }] }] } } } },
});
const merge = (mode: string): Patch => ({
  type: 'merge',
  body: { spec: { template: { spec: { containers: [container('web', mode), container('side', 'a')] } } } },
});

const apply = (mode: string): Patch => ({
  type: 'apply',
  fieldManager: 'controller',
  force: true,
  body: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: SELECTOR,
      template: { metadata: TEMPLATE_LABELS, spec: { containers: [container('web', mode), container('side', 'a')] } },
    },
  },
});

/** A row: `patchFor` against the merge patch of the same change, timed in alternating rounds. */
const versusMerge = async (
  label: string,
  patchFor: (mode: string) => Patch,
  caseName: string,
  batch: number,
  log: (line: string) => void,
): Promise<Row> => {
  const [ms, mergeMs] = await rates(
    { cluster: await ready(), patchFor, samples: [] },
    { cluster: await ready(), patchFor: merge, samples: [] },
    batch,
  );
  const [perSecond, mergePerSecond] = [(batch * 1000) / ms, (batch * 1000) / mergeMs];
  log(`patch: ${label} ${perSecond.toFixed(0)} requests/s, merge ${mergePerSecond.toFixed(0)} requests/s`);
  return {
    suite: 'apiserver-memory',
    case: caseName,
    resources: batch,
    valueMs: ms,
    perItemUs: (ms * 1000) / batch,
    requestsPerSecond: perSecond,
    baselineName: 'merge patch of the same change',
    baselineMs: mergeMs,
    baselineRequestsPerSecond: mergePerSecond,
    ratio: ms / mergeMs,
  };
};

export const patchBenchmarks = async (log: (line: string) => void, batch = 500): Promise<ReadonlyArray<Row>> => {
  log(`patch: ${batch} requests on a Deployment per round: strategic merge, server-side apply, each beside merge…`);
  return [
    await versusMerge(
      'strategic merge',
      strategic,
      'strategic merge patch of a Deployment (kubectl set env), requests/s',
      batch,
      log,
    ),
    await versusMerge(
      'server-side apply',
      apply,
      "server-side apply of a Deployment (a controller's whole configuration, forced), requests/s",
      batch,
      log,
    ),
  ];
};
