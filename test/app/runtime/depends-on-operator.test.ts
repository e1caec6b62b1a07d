/**
 * `spec.dependsOn` through the operator on the memory cluster, with the resync off (a wait can end
 * only by the dependants index requeueing): A→B→C converges in order (B writes nothing while A is not
 * Ready; the children's resourceVersions say who was created first), a cycle stalls every member
 * naming it, deleting A waits while B, which depends on it, exists, and a dependency in another
 * namespace stalls unless the tenancy policy lets the namespace reach it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  type Condition,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import { widgetCrd, widgetGroup } from '../../support/test-crds.js';
import { applicationOf } from '../hooks/support.js';
import { distinct, runUntil } from '../../support/operator-clock.js';

let operator: Operator | undefined;

afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const NS = 'shop';

const appRef = (name: string): ObjectRef => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: NS,
  name,
});

const find = (cluster: MemoryCluster, kind: string, name: string): Resource | undefined =>
  cluster.objects().find((o) => o.kind === kind && o.metadata.namespace === NS && o.metadata.name === name);

const condition = (cluster: MemoryCluster, app: string, type: Condition['type']): Condition | undefined => {
  const status = find(cluster, APPLICATION_KIND, app)?.status as { conditions?: ReadonlyArray<Condition> } | undefined;
  return conditionOf(status?.conditions, type);
};

const ready = (cluster: MemoryCluster, app: string): boolean => condition(cluster, app, 'Ready')?.status === 'True';

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { app: name } });

/** A's Widget counts as ready only once its status says so (a readiness rule): A's readiness is the test's to give. */
const widget = { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', metadata: { name: 'a-widget' }, spec: { size: 1 } };

const world = async (): Promise<{ clock: ManualClock; cluster: MemoryCluster }> => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock });
  await cluster.create(widgetCrd)();
  await cluster.settle();
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })();
  return { clock, cluster };
};

const start = async (clock: ManualClock, cluster: MemoryCluster): Promise<void> => {
  // No resync: nothing but events (and the dependants index) brings an Application back.
  // On the manual clock: rules evaluated in the plan (their isolation is readiness-isolation.test.ts's).
  operator = await startOperator({ cluster, clock, random: distinct(), workers: 2, resyncMs: 0, ruleIsolation: false });
};

const create = async (cluster: MemoryCluster, name: string, spec: Record<string, unknown>): Promise<void> => {
  const created = await cluster.create(applicationOf(NS, name, spec))();
  expect(created._tag).toBe('Right');
};

const resourceVersion = (object: Resource | undefined): bigint => BigInt(object?.metadata.resourceVersion ?? '-1');

describe('spec.dependsOn in the operator', () => {
  it('A→B→C converges in order: nothing of B or C is written before A is Ready, and B is requeued without a resync', async () => {
    const { clock, cluster } = await world();
    await create(cluster, 'c', { manifest: [configMap('c-config')], dependsOn: [{ name: 'b' }] });
    await create(cluster, 'b', { manifest: [configMap('b-config')], dependsOn: [{ name: 'a' }] });
    await create(cluster, 'a', {
      manifest: [widget, configMap('a-config')],
      readiness: [{ kind: 'Widget', ready: 'has(self.status) && self.status.phase == "Ready"' }],
    });
    await start(clock, cluster);
    await runUntil(clock, () => condition(cluster, 'c', 'Reconciling')?.reason === 'DependencyNotReady', 10_000);
    await runUntil(clock, () => false, 10_000);
    // A is waiting for its Widget: B and C wait for their dependency, and have written nothing.
    expect(find(cluster, 'Widget', 'a-widget')).toBeDefined();
    expect(ready(cluster, 'a')).toBe(false);
    expect(condition(cluster, 'b', 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'DependencyNotReady',
      message: expect.stringContaining(`${NS}/a (not ready: `),
    });
    expect(condition(cluster, 'c', 'Reconciling')?.message).toContain(`${NS}/b (not ready: `);
    expect(find(cluster, 'ConfigMap', 'b-config')).toBeUndefined();
    expect(find(cluster, 'ConfigMap', 'c-config')).toBeUndefined();
    expect(find(cluster, APPLICATION_KIND, 'b')?.metadata.finalizers ?? []).toEqual([]);

    const marked = await cluster.patchStatus(
      { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', namespace: NS, name: 'a-widget' },
      { type: 'merge', body: { status: { phase: 'Ready' } } },
    )();
    expect(marked._tag).toBe('Right');
    await runUntil(clock, () => ready(cluster, 'c'), 20_000);
    expect([ready(cluster, 'a'), ready(cluster, 'b'), ready(cluster, 'c')]).toEqual([true, true, true]);
    // The order, from the state of the world: each child was created after the one before it.
    const [a, b, c] = ['a-config', 'b-config', 'c-config'].map((name) =>
      resourceVersion(find(cluster, 'ConfigMap', name)),
    );
    expect(a).toBeLessThan(b!);
    expect(b).toBeLessThan(c!);
    // Each waited for the Ready status its dependency wrote.
    const readyAt = (name: string): bigint => resourceVersion(find(cluster, APPLICATION_KIND, name));
    expect(readyAt('a')).toBeLessThan(b!);
    expect(readyAt('b')).toBeLessThan(c!);
  });

  it('a cycle stalls every member, naming it; an Application depending on the cycle only waits', async () => {
    const { clock, cluster } = await world();
    await create(cluster, 'x', { manifest: [configMap('x-config')], dependsOn: [{ name: 'y' }] });
    await start(clock, cluster);
    await runUntil(clock, () => condition(cluster, 'x', 'Reconciling')?.reason === 'DependencyNotReady');
    // y appears afterwards and closes the cycle: x is requeued by the index and stalls too.
    await create(cluster, 'y', { manifest: [configMap('y-config')], dependsOn: [{ name: 'x' }] });
    await create(cluster, 'self', { manifest: [configMap('self-config')], dependsOn: [{ name: 'self' }] });
    await create(cluster, 'outside', { manifest: [configMap('o-config')], dependsOn: [{ name: 'x' }] });
    const stalled = (name: string): boolean => condition(cluster, name, 'Stalled')?.status === 'True';
    await runUntil(clock, () => stalled('x') && stalled('y') && stalled('self'), 10_000);
    expect(condition(cluster, 'x', 'Stalled')).toMatchObject({
      reason: 'DependencyCycle',
      message: expect.stringContaining(`${NS}/x → ${NS}/y → ${NS}/x`),
    });
    expect(condition(cluster, 'y', 'Stalled')?.message).toContain(`${NS}/y → ${NS}/x → ${NS}/y`);
    expect(condition(cluster, 'self', 'Stalled')?.message).toContain(`${NS}/self → ${NS}/self`);
    await runUntil(clock, () => condition(cluster, 'outside', 'Reconciling')?.reason === 'DependencyNotReady');
    expect(condition(cluster, 'outside', 'Stalled')?.status).toBe('False');
    for (const name of ['x-config', 'y-config', 'self-config', 'o-config'])
      expect(find(cluster, 'ConfigMap', name)).toBeUndefined();
  });

  it('deleting A keeps its finalizer and children while B depends on it; deleting B releases it', async () => {
    const { clock, cluster } = await world();
    await create(cluster, 'a', { manifest: [configMap('a-config')] });
    await create(cluster, 'b', { manifest: [configMap('b-config')], dependsOn: [{ name: 'a' }] });
    await start(clock, cluster);
    await runUntil(clock, () => ready(cluster, 'a') && ready(cluster, 'b'), 10_000);
    expect(await cluster.delete(appRef('a'))()).toMatchObject({ _tag: 'Right' });
    await runUntil(clock, () => condition(cluster, 'a', 'Reconciling')?.reason === 'DependantsExist', 10_000);
    await runUntil(clock, () => false, 5_000);
    const a = find(cluster, APPLICATION_KIND, 'a');
    expect(a?.metadata.deletionTimestamp).toBeDefined();
    expect(a?.metadata.finalizers).toContain('kreconcile.io/cleanup');
    expect(find(cluster, 'ConfigMap', 'a-config')).toBeDefined();
    expect(condition(cluster, 'a', 'Reconciling')?.message).toContain(`${NS}/b`);
    // B goes: the index requeues A (no resync runs), which then cleans up and goes too.
    expect(await cluster.delete(appRef('b'))()).toMatchObject({ _tag: 'Right' });
    await runUntil(clock, () => find(cluster, APPLICATION_KIND, 'a') === undefined, 10_000);
    expect(find(cluster, APPLICATION_KIND, 'a')).toBeUndefined();
    expect(find(cluster, 'ConfigMap', 'a-config')).toBeUndefined();
    expect(find(cluster, APPLICATION_KIND, 'b')).toBeUndefined();
  });

  it('a dependency in another namespace stalls DependencyForbidden unless the tenancy policy lets the namespace reach it', async () => {
    const { clock, cluster } = await world();
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'data' } })();
    await cluster.create({ ...applicationOf('data', 'db', { manifest: [configMap('db-config')] }) })();
    await create(cluster, 'web', {
      manifest: [configMap('web-config')],
      dependsOn: [{ name: 'db', namespace: 'data' }],
    });
    await start(clock, cluster);
    await runUntil(clock, () => condition(cluster, 'web', 'Stalled')?.status === 'True', 10_000);
    expect(condition(cluster, 'web', 'Stalled')).toMatchObject({
      reason: 'DependencyForbidden',
      message: expect.stringContaining('data/db'),
    });
    expect(find(cluster, 'ConfigMap', 'web-config')).toBeUndefined();
    await operator?.stop(1_000);
    operator = await startOperator({
      cluster,
      clock,
      random: distinct(),
      resyncMs: 0,
      tenancy: { destinations: [{ from: NS, to: ['data'] }] },
      ruleIsolation: false,
    });
    await runUntil(clock, () => ready(cluster, 'web'), 10_000);
    expect(find(cluster, 'ConfigMap', 'web-config')).toBeDefined();
  });
});
