/**
 * Protection annotations through the operator on the memory cluster (issue 22): a child under
 * `kreconcile.io/prune: disabled` survives its Application's deletion (garbage collection on)
 * without any owner mark, and survives leaving the manifest; `apply: IfNotPresent` is created
 * but another actor's change to it stays; `apply: Ignore` is never written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  getIn,
  type Application,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf } from '../hooks/support.js';
import { distinct, runUntil } from '../../support/operator-clock.js';

let operator: Operator | undefined;

afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const configMap = (name: string, annotations: Record<string, string> = {}, mode = 'a'): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, annotations },
  data: { mode },
});

const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'web',
};
const ref = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name });

const find = (cluster: MemoryCluster, target: ObjectRef): Resource | undefined =>
  cluster
    .objects()
    .find(
      (o) => o.kind === target.kind && o.metadata.namespace === target.namespace && o.metadata.name === target.name,
    );

const ready = (cluster: MemoryCluster): boolean =>
  conditionOf((find(cluster, appRef) as unknown as Application | undefined)?.status?.conditions, 'Ready')?.status ===
  'True';

const start = async (manifest: ReadonlyArray<Resource>) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock });
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
  await cluster.create(applicationOf('shop', 'web', { manifest }))();
  operator = await startOperator({ cluster, clock, random: distinct(), workers: 1, readiness: 'existence' });
  await runUntil(clock, () => ready(cluster));
  return { clock, cluster };
};

const unmarked = (object: Resource | undefined): void => {
  expect(object).toBeDefined();
  expect(object?.metadata.annotations?.['kreconcile.io/owner']).toBeUndefined();
  expect(object?.metadata.labels?.['app.kubernetes.io/managed-by']).toBeUndefined();
  expect(object?.metadata.ownerReferences ?? []).toEqual([]);
  // The user's own annotation stays.
  expect(object?.metadata.annotations?.['kreconcile.io/prune']).toBe('disabled');
};

describe('protection annotations in the operator', () => {
  it('a child under prune: disabled survives its Application deletion (with garbage collection) without its owner mark', async () => {
    const { clock, cluster } = await start([
      configMap('kept', { 'kreconcile.io/prune': 'disabled' }),
      configMap('other'),
    ]);
    const before = find(cluster, ref('kept'));
    expect(before?.metadata.annotations?.['kreconcile.io/owner']).toBe('shop/web');
    expect(before?.metadata.ownerReferences).toHaveLength(1);
    await cluster.delete(appRef)();
    await runUntil(clock, () => find(cluster, appRef) === undefined);
    await cluster.settle();
    await runUntil(clock, () => false, 2_000);
    expect(find(cluster, appRef)).toBeUndefined();
    expect(find(cluster, ref('other'))).toBeUndefined();
    unmarked(find(cluster, ref('kept')));
  });

  it('a child under prune: disabled leaving the manifest stays, unmarked, and the Application is Ready', async () => {
    const { clock, cluster } = await start([
      configMap('kept', { 'kreconcile.io/prune': 'disabled' }),
      configMap('other'),
    ]);
    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: [configMap('other')] } } })();
    await runUntil(
      clock,
      () => find(cluster, ref('kept'))?.metadata.annotations?.['kreconcile.io/owner'] === undefined,
    );
    await runUntil(clock, () => ready(cluster));
    unmarked(find(cluster, ref('kept')));
    expect(ready(cluster)).toBe(true);
  });

  it('apply: IfNotPresent is created but never patched; apply: Ignore is never created', async () => {
    const { clock, cluster } = await start([
      configMap('seeded', { 'kreconcile.io/apply': 'IfNotPresent' }),
      configMap('ignored', { 'kreconcile.io/apply': 'Ignore' }),
      configMap('normal'),
    ]);
    expect(find(cluster, ref('seeded'))?.data).toEqual({ mode: 'a' });
    expect(find(cluster, ref('ignored'))).toBeUndefined();
    // Another actor changes both created ConfigMaps: only the ordinary one is corrected.
    for (const name of ['seeded', 'normal'])
      await cluster.patch(ref(name), { type: 'merge', body: { data: { mode: 'changed' } } })();
    await runUntil(clock, () => getIn(find(cluster, ref('normal')), ['data', 'mode']) === 'a');
    await runUntil(clock, () => false, 3_000);
    expect(find(cluster, ref('normal'))?.data).toEqual({ mode: 'a' });
    expect(find(cluster, ref('seeded'))?.data).toEqual({ mode: 'changed' });
    expect(find(cluster, ref('ignored'))).toBeUndefined();
  });
});

describe('spec.driftPolicy: Report in the operator', () => {
  it("leaves another actor's change to an observed field in place and reports it in status.drift", async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock });
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    await cluster.create(applicationOf('shop', 'web', { driftPolicy: 'Report', manifest: [configMap('settings')] }))();
    operator = await startOperator({ cluster, clock, random: distinct(), workers: 1, readiness: 'existence' });
    await runUntil(clock, () => ready(cluster));
    await cluster.patch(ref('settings'), { type: 'merge', body: { data: { mode: 'theirs' } } })();
    const status = () => (find(cluster, appRef) as unknown as Application | undefined)?.status;
    await runUntil(clock, () => (status()?.drift ?? []).length > 0);
    await runUntil(clock, () => false, 3_000);
    expect(find(cluster, ref('settings'))?.data).toEqual({ mode: 'theirs' });
    expect(status()?.drift).toEqual([
      {
        resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: 'shop' },
        path: 'data.mode',
        live: 'theirs',
        desired: 'a',
      },
    ]);
    expect(conditionOf(status()?.conditions, 'Ready')?.message).toContain('drift left in place (driftPolicy Report)');
    const events = cluster
      .objects()
      .filter((o) => o.kind === 'Event' && (o as { reason?: string }).reason === 'DriftReported');
    expect(events.map((o) => (o as { message?: string }).message)).toEqual([
      'drift left in place (driftPolicy Report) ConfigMap shop/settings: data.mode',
    ]);
    // A spec change is still applied; with the drift gone, so is the report.
    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: [configMap('settings', {}, 'b')] } } })();
    await runUntil(clock, () => getIn(find(cluster, ref('settings')), ['data', 'mode']) === 'b');
    await runUntil(clock, () => status()?.drift === undefined);
    expect(status()?.drift).toBeUndefined();
  });
});
