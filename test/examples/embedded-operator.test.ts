/**
 * examples/embedded-operator on the memory cluster: the Greeting operator built on
 * `startEmbeddedOperator` creates, converges Ready, corrects drift, keeps the author's own status
 * fields, reports a bad spec as Stalled InvalidSpec, and prunes on delete.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ManualClock, createMemoryCluster, flushMicrotasks, type MemoryCluster } from '../../adapters/memory/index.js';
import type { Operator } from '../../app/runtime/index.js';
import {
  APPLICATION_API_VERSION,
  FINALIZER,
  conditionOf,
  type ApplicationStatus,
  type Resource,
} from '../../core/internal.js';
import { GREETING, startGreetingOperator } from '../../examples/embedded-operator/controller.js';
import { Replica } from '../app/runtime/replica.js';

let operator: Operator | undefined;
afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const runUntil = async (clock: ManualClock, done: () => boolean, ms = 60_000): Promise<void> => {
  for (let t = 0; t < ms && !done(); t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  await flushMicrotasks();
};

const find = (cluster: MemoryCluster, kind: string, name: string): Resource | undefined =>
  cluster.objects().find((o) => o.kind === kind && o.metadata.namespace === 'default' && o.metadata.name === name);

const statusOf = (cluster: MemoryCluster, name: string): ApplicationStatus | undefined =>
  find(cluster, 'Greeting', name)?.status as ApplicationStatus | undefined;
const condition = (cluster: MemoryCluster, name: string, type: 'Ready' | 'Stalled') =>
  conditionOf(statusOf(cluster, name)?.conditions, type);

const greeting = (name: string, spec: Record<string, unknown>): Resource =>
  ({ ...GREETING, metadata: { name, namespace: 'default' }, spec }) as Resource;

const withCrd = async () => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, workloads: true });
  const crd = parse(
    readFileSync(new URL('../../examples/embedded-operator/crd.yaml', import.meta.url), 'utf8'),
  ) as Resource;
  expect((await cluster.create(crd)())._tag).toBe('Right');
  await cluster.settle();
  await clock.advance(1_000);
  return { clock, cluster };
};

const setUp = async () => {
  const { clock, cluster } = await withCrd();
  operator = await startGreetingOperator({ cluster, clock, random: () => 0.5 });
  return { clock, cluster };
};

describe('examples/embedded-operator (memory cluster)', () => {
  it("creates the children, converges Ready, corrects drift, keeps the author's status and prunes on delete", async () => {
    const { clock, cluster } = await setUp();
    expect((await cluster.create(greeting('hello', { message: 'hi', replicas: 2 }))())._tag).toBe('Right');
    await runUntil(clock, () => condition(cluster, 'hello', 'Ready')?.status === 'True');

    const primary = find(cluster, 'Greeting', 'hello')!;
    expect(condition(cluster, 'hello', 'Ready')?.status).toBe('True');
    expect(statusOf(cluster, 'hello')?.observedGeneration).toBe(primary.metadata.generation);
    expect(primary.metadata.finalizers).toContain(FINALIZER);
    const configMap = find(cluster, 'ConfigMap', 'hello-greeting')!;
    const deployment = find(cluster, 'Deployment', 'hello-greeting')!;
    expect(configMap.data).toEqual({ message: 'hi' });
    expect((deployment.spec as { replicas: number }).replicas).toBe(2);
    // The marks name the Greeting, not an Application of the same name.
    expect(configMap.metadata.annotations?.['kreconcile.io/owner']).toBe(
      'Greeting.example.kreconcile.io:default/hello',
    );
    expect(configMap.metadata.ownerReferences).toEqual([
      {
        apiVersion: GREETING.apiVersion,
        kind: 'Greeting',
        name: 'hello',
        uid: primary.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);

    // The author's own status field survives kreconcile's status writes.
    await cluster.patchStatus(
      { ...GREETING, namespace: 'default', name: 'hello' },
      { type: 'merge', body: { status: { greeted: 3 } } },
    )();
    // Drift: someone edits the ConfigMap; the child watch queues the Greeting and the change is undone.
    await cluster.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'hello-greeting' },
      { type: 'merge', body: { data: { message: 'tampered' } } },
    )();
    await runUntil(clock, () => find(cluster, 'ConfigMap', 'hello-greeting')?.data?.['message' as never] === 'hi');
    expect(find(cluster, 'ConfigMap', 'hello-greeting')?.data).toEqual({ message: 'hi' });

    // A spec change reaches the children and the status records the new generation.
    await cluster.patch(
      { ...GREETING, namespace: 'default', name: 'hello' },
      { type: 'merge', body: { spec: { message: 'hello there' } } },
    )();
    await runUntil(
      clock,
      () =>
        (find(cluster, 'ConfigMap', 'hello-greeting')?.data as { message?: string } | undefined)?.message ===
          'hello there' &&
        statusOf(cluster, 'hello')?.observedGeneration === find(cluster, 'Greeting', 'hello')?.metadata.generation &&
        condition(cluster, 'hello', 'Ready')?.status === 'True',
    );
    expect(statusOf(cluster, 'hello')?.observedGeneration).toBe(
      find(cluster, 'Greeting', 'hello')?.metadata.generation,
    );
    expect((find(cluster, 'Greeting', 'hello')?.status as { greeted?: number }).greeted).toBe(3);

    // Delete: the children are pruned, then the finalizer is removed and the Greeting is gone.
    await cluster.delete({ ...GREETING, namespace: 'default', name: 'hello' })();
    await runUntil(clock, () => find(cluster, 'Greeting', 'hello') === undefined);
    expect(find(cluster, 'Greeting', 'hello')).toBeUndefined();
    expect(find(cluster, 'ConfigMap', 'hello-greeting')).toBeUndefined();
    expect(find(cluster, 'Deployment', 'hello-greeting')).toBeUndefined();
  });

  it('reports a spec the Greeting codec rejects as Stalled InvalidSpec on the Greeting and creates nothing', async () => {
    const { clock, cluster } = await setUp();
    // A wrong type never reaches the controller: the API server validates against the CRD's schema.
    const wrongType = await cluster.create(greeting('typed', { message: 5 }))();
    expect(wrongType._tag === 'Left' && wrongType.left._tag).toBe('Invalid');
    // What the schema allows but the codec does not (a missing message) is the controller's to report.
    await cluster.create(greeting('bad', {}))();
    await runUntil(clock, () => condition(cluster, 'bad', 'Stalled')?.status === 'True');
    const stalled = condition(cluster, 'bad', 'Stalled');
    expect(stalled?.reason).toBe('InvalidSpec');
    expect(stalled?.message).toContain('spec.message: expected string');
    expect(find(cluster, 'ConfigMap', 'bad-greeting')).toBeUndefined();
    // kreconcile's own status fields mangled beside the author's: the next stall rewrites only kreconcile's.
    await cluster.patchStatus(
      { ...GREETING, namespace: 'default', name: 'bad' },
      { type: 'merge', body: { status: { greeted: 3, conditions: 'garbage' } } },
    )();
    await cluster.patch(
      { ...GREETING, namespace: 'default', name: 'bad' },
      { type: 'merge', body: { spec: { replicas: 2 } } },
    )();
    await runUntil(
      clock,
      () =>
        Array.isArray(statusOf(cluster, 'bad')?.conditions) &&
        statusOf(cluster, 'bad')?.observedGeneration === find(cluster, 'Greeting', 'bad')?.metadata.generation,
    );
    expect(condition(cluster, 'bad', 'Stalled')?.reason).toBe('InvalidSpec');
    expect((find(cluster, 'Greeting', 'bad')?.status as { greeted?: number }).greeted).toBe(3);
    // Fixing the spec makes it converge.
    await cluster.patch(
      { ...GREETING, namespace: 'default', name: 'bad' },
      { type: 'merge', body: { spec: { message: 'fixed' } } },
    )();
    await runUntil(clock, () => condition(cluster, 'bad', 'Ready')?.status === 'True');
    expect(find(cluster, 'ConfigMap', 'bad-greeting')?.data).toEqual({ message: 'fixed' });
  });

  it('never takes over a child an Application of the same name owns (the marks name the kind)', async () => {
    const { clock, cluster } = await setUp();
    // The ConfigMap the Greeting twin wants already belongs to the Application default/twin (the plain mark).
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'twin-greeting',
        namespace: 'default',
        annotations: { 'kreconcile.io/owner': 'default/twin' },
        labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
      },
      data: { owner: APPLICATION_API_VERSION },
    })();
    await cluster.create(greeting('twin', { message: 'from greeting' }))();
    await runUntil(clock, () => condition(cluster, 'twin', 'Stalled')?.status === 'True');
    expect(condition(cluster, 'twin', 'Stalled')?.message).toContain('default/twin');
    expect(find(cluster, 'ConfigMap', 'twin-greeting')?.data).toEqual({ owner: APPLICATION_API_VERSION });
    await cluster.delete({ ...GREETING, namespace: 'default', name: 'twin' })();
    await runUntil(clock, () => find(cluster, 'Greeting', 'twin') === undefined);
    // Deleting the Greeting never prunes the Application's object.
    expect(find(cluster, 'ConfigMap', 'twin-greeting')?.data).toEqual({ owner: APPLICATION_API_VERSION });
    expect(find(cluster, 'Deployment', 'twin-greeting')).toBeUndefined();
  });

  it('runs under leader election with metrics: only the leader writes; when it stops, the other takes over', async () => {
    const { clock, cluster } = await withCrd();
    const [a, b] = [new Replica(clock, cluster), new Replica(clock, cluster)];
    const start = (replica: Replica, identity: string) =>
      startGreetingOperator({
        cluster: replica.cluster,
        clock: replica.clock,
        random: () => 0.5,
        leaderElection: { namespace: 'default', name: 'greeting-leader', identity },
      });
    const leader = await start(a, 'a');
    await runUntil(clock, () => leader.isLeader());
    const follower = await start(b, 'b');
    try {
      await cluster.create(greeting('one', { message: 'first' }))();
      await runUntil(clock, () => condition(cluster, 'one', 'Ready')?.status === 'True');
      expect(a.writes).toContain('create ConfigMap one-greeting');
      expect(b.writes.filter((write) => !write.includes('Lease'))).toEqual([]);
      const reconciles = await leader.metrics.registry.getSingleMetric('kreconcile_reconciles_total')?.get();
      expect(reconciles?.values.find((value) => value.labels.result === 'success')?.value).toBeGreaterThan(0);

      await leader.stop(1_000);
      await cluster.patch(
        { ...GREETING, namespace: 'default', name: 'one' },
        { type: 'merge', body: { spec: { message: 'second' } } },
      )();
      await runUntil(
        clock,
        () =>
          (find(cluster, 'ConfigMap', 'one-greeting')?.data as { message?: string } | undefined)?.message === 'second',
      );
      expect(follower.isLeader()).toBe(true);
      expect(b.writes).toContain('patch ConfigMap one-greeting');
    } finally {
      await leader.stop(1_000);
      await follower.stop(1_000);
    }
  });
});
