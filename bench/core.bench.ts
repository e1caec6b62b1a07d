/**
 * Core benchmark: `plan` per resource for realistic resources (as the API server returns them),
 * in sync and drifted, against a generic full deep diff (microdiff) of the same objects.
 */
import diff from 'microdiff';
import { builtinScopes, plan, type Application, type Resource } from '../core/index.js';
import { asServed, configMapSpec, deploymentSpec, serviceSpec } from './fixtures.js';
import { measure, retainedBytes, type Row } from './measure.js';

const NAMESPACE = 'bench';
const OWNER = `${NAMESPACE}/shop`;
const NOW = '2026-11-22T00:00:00Z';

const manifestOf = (count: number): ReadonlyArray<Resource> =>
  Array.from({ length: count }, (_, i) => [deploymentSpec, serviceSpec, configMapSpec][i % 3]!(`app-${i}`));

const applicationOf = (manifest: ReadonlyArray<Resource>): Application => ({
  apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application',
  metadata: { name: 'shop', namespace: NAMESPACE, uid: 'app-uid', generation: 1, finalizers: ['kreconcile.io/cleanup'] },
  spec: { manifest },
});

/** Live objects after another actor changed one observed field on every tenth resource. */
const drifted = (live: ReadonlyArray<Resource>): ReadonlyArray<Resource> =>
  live.map((object, i) => (i % 10 !== 0 ? object : { ...object, metadata: { ...object.metadata, labels: { ...object.metadata.labels, app: 'tampered' } } }));

export const coreBenchmarks = (sizes: ReadonlyArray<number>): ReadonlyArray<Row> => sizes.flatMap((count) => {
  const manifest = manifestOf(count);
  const inSyncLive = manifest.map((resource, i) => asServed(resource, NAMESPACE, i, OWNER));
  const first = plan({ application: applicationOf(manifest), live: inSyncLive, scopes: builtinScopes, now: NOW });
  const application: Application = { ...applicationOf(manifest), status: first.status };
  const cases = [['in sync', inSyncLive], ['drifted 10%', drifted(inSyncLive)]] as const;
  return cases.flatMap(([state, live]) => {
    const planned = plan({ application, live, scopes: builtinScopes, now: NOW });
    const expected = state === 'in sync' ? 0 : Math.ceil(count / 10);
    if (planned.summary.patch !== expected || planned.summary.create + planned.summary.delete !== 0) {
      throw new Error(`benchmark setup is wrong: ${state} with ${count} resources planned ${JSON.stringify(planned.summary)}`);
    }
    const desired = planned.status.lastAppliedManifest ?? [];
    const kreconcile = measure(() => plan({ application, live, scopes: builtinScopes, now: NOW }));
    const baseline = measure(() => { for (let i = 0; i < live.length; i++) diff(desired[i] as object, live[i] as object); });
    const memory = retainedBytes(() => plan({ application, live, scopes: builtinScopes, now: NOW }));
    return [{
      suite: 'core', case: `plan ${count} resources, ${state}`, resources: count,
      valueMs: kreconcile.medianMs, perItemUs: (kreconcile.medianMs * 1000) / count,
      baselineName: 'microdiff full diff', baselineMs: baseline.medianMs, ratio: kreconcile.medianMs / baseline.medianMs,
      memoryBytes: memory, iterations: kreconcile.iterations,
    }];
  });
});
