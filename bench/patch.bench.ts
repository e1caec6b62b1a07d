/**
 * Patch benchmarks on the in-memory API server: a strategic merge patch of a Deployment (what
 * `kubectl set env` sends: one container, one env var, merged by name) beside the merge patch that
 * makes the same change (a merge patch replaces lists, so it carries the whole container list), in
 * requests per second through the cluster port (the verbs; no HTTP).
 */
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryCluster, type MemoryCluster } from '../adapters/memory/index.js';
import type { JsonObject } from '../core/json/json.js';
import type { Patch } from '../core/ports/cluster.js';
import type { Row } from './measure.js';

const REF = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };

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
  const created = await cluster.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [container('web', 'a'), container('side', 'a')] },
      },
    },
  })();
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

export const patchBenchmarks = async (log: (line: string) => void, batch = 500): Promise<ReadonlyArray<Row>> => {
  log(`patch: ${batch} patches of a Deployment per round, strategic merge and merge…`);
  const [smpMs, mergeMs] = await rates(
    { cluster: await ready(), patchFor: strategic, samples: [] },
    { cluster: await ready(), patchFor: merge, samples: [] },
    batch,
  );
  const smp = { ms: smpMs, perSecond: (batch * 1000) / smpMs };
  const plain = { ms: mergeMs, perSecond: (batch * 1000) / mergeMs };
  log(`patch: strategic merge ${smp.perSecond.toFixed(0)} requests/s, merge ${plain.perSecond.toFixed(0)} requests/s`);
  return [
    {
      suite: 'apiserver-memory',
      case: 'strategic merge patch of a Deployment (kubectl set env), requests/s',
      resources: batch,
      valueMs: smp.ms,
      perItemUs: (smp.ms * 1000) / batch,
      requestsPerSecond: smp.perSecond,
      baselineName: 'merge patch of the same change',
      baselineMs: plain.ms,
      baselineRequestsPerSecond: plain.perSecond,
      ratio: smp.ms / plain.ms,
    },
  ];
};
