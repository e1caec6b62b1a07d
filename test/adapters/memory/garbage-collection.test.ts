/** Memory adapter: ownerReference garbage collection and namespace termination, run in the background. */
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { Resource } from '../../../core/model/resource.js';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { cmRef, configMap, failure, must } from './support.js';

const ownerRef = (owner: Resource, extra: Record<string, boolean> = {}) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid ?? '',
  ...extra,
});

const owned = (name: string, owners: ReadonlyArray<ReturnType<typeof ownerRef>>, namespace = 'default'): Resource => ({
  ...configMap(name, {}, namespace),
  metadata: { name, namespace, ownerReferences: owners },
});

const stored = (cluster: ReturnType<typeof createMemoryCluster>): ReadonlyArray<string> =>
  cluster
    .objects()
    .filter((o) => o.kind === 'ConfigMap')
    .map((o) => o.metadata.name);

describe('memory garbage collection', () => {
  it('runs in the background, after the write, and cascades through generations', async () => {
    const cluster = createMemoryCluster();
    const root = await must(cluster.create(configMap('root')));
    const child = await must(cluster.create(owned('child', [ownerRef(root)])));
    await must(cluster.create(owned('grandchild', [ownerRef(child)])));
    await must(cluster.create(configMap('bystander')));
    const deleting = cluster.delete(cmRef('root'))();
    // The delete itself has run (synchronously, no latency injected); collection has not.
    expect(stored(cluster)).toEqual(['bystander', 'child', 'grandchild']);
    await deleting;
    await cluster.settle();
    expect(stored(cluster)).toEqual(['bystander']);
  });

  it('matches owners by UID: a re-created owner of the same name does not keep old dependents', async () => {
    const cluster = createMemoryCluster();
    const first = await must(cluster.create(configMap('owner')));
    await must(cluster.create(owned('dependent', [ownerRef(first)])));
    await must(cluster.delete(cmRef('owner')));
    await must(cluster.create(configMap('owner')));
    await cluster.settle();
    expect(stored(cluster)).toEqual(['owner']);
  });

  it('a dependent created with an owner that never existed is collected; an owner of an unknown kind keeps it', async () => {
    const cluster = createMemoryCluster();
    await must(
      cluster.create(owned('dangling', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'no-such-uid' }])),
    );
    await must(
      cluster.create(owned('unresolvable', [{ apiVersion: 'example.com/v1', kind: 'Unknown', name: 'x', uid: 'u' }])),
    );
    await cluster.settle();
    expect(stored(cluster)).toEqual(['unresolvable']);
  });

  it('a cluster-scoped owner (Namespace-less kind) owns namespaced dependents', async () => {
    const cluster = createMemoryCluster();
    const role = await must(
      cluster.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'owner' },
        rules: [],
      }),
    );
    await must(cluster.create(owned('dependent', [ownerRef(role)])));
    await cluster.settle();
    expect(stored(cluster)).toEqual(['dependent']);
    await must(cluster.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'owner' }));
    await cluster.settle();
    expect(stored(cluster)).toEqual([]);
  });

  it('a dependent with finalizers is marked, not removed, until they are gone', async () => {
    const cluster = createMemoryCluster();
    const owner = await must(cluster.create(configMap('owner')));
    await must(
      cluster.create({
        ...owned('held', [ownerRef(owner)]),
        metadata: {
          name: 'held',
          namespace: 'default',
          ownerReferences: [ownerRef(owner)],
          finalizers: ['example.com/hold'],
        },
      }),
    );
    await must(cluster.delete(cmRef('owner')));
    await cluster.settle();
    const held = await must(cluster.get(cmRef('held')));
    expect(O.isSome(held) && typeof held.value.metadata.deletionTimestamp).toBe('string');
    await must(
      cluster.patch(cmRef('held'), { type: 'json', operations: [{ op: 'remove', path: '/metadata/finalizers' }] }),
    );
    expect(stored(cluster)).toEqual([]);
  });

  it('foreground deletion waits for blocking dependents, which are deleted in the foreground too', async () => {
    const cluster = createMemoryCluster();
    const owner = await must(cluster.create(configMap('owner')));
    const child = await must(cluster.create(owned('child', [ownerRef(owner, { blockOwnerDeletion: true })])));
    await must(
      cluster.create({
        ...owned('grandchild', []),
        metadata: {
          name: 'grandchild',
          namespace: 'default',
          ownerReferences: [ownerRef(child, { blockOwnerDeletion: true })],
          finalizers: ['example.com/hold'],
        },
      }),
    );
    await must(cluster.delete(cmRef('owner'), { propagationPolicy: 'Foreground' }));
    await cluster.settle();
    const marked = cluster
      .objects()
      .filter((o) => o.kind === 'ConfigMap')
      .map((o) => [o.metadata.name, o.metadata.finalizers]);
    expect(marked).toEqual([
      ['child', ['foregroundDeletion']],
      ['grandchild', ['example.com/hold']],
      ['owner', ['foregroundDeletion']],
    ]);
    await must(cluster.patch(cmRef('grandchild'), { type: 'merge', body: { metadata: { finalizers: null } } }));
    await cluster.settle();
    expect(stored(cluster)).toEqual([]);
  });

  it('Orphan on a dependent-free owner, and an explicit Background replacing a pending Orphan', async () => {
    const cluster = createMemoryCluster();
    const owner = await must(cluster.create(configMap('owner')));
    await must(cluster.create(owned('kept', [ownerRef(owner)])));
    const pending = await must(cluster.delete(cmRef('owner'), { propagationPolicy: 'Orphan' }));
    expect(O.isSome(pending) && pending.value.metadata.finalizers).toEqual(['orphan']);
    await cluster.settle();
    expect(stored(cluster)).toEqual(['kept']);
    expect(cluster.objects().find((o) => o.metadata.name === 'kept')?.metadata.ownerReferences).toBeUndefined();
  });

  it('with gc off, dependents stay and no garbage-collection finalizers are added', async () => {
    const cluster = createMemoryCluster({ gc: false });
    const owner = await must(cluster.create(configMap('owner')));
    await must(cluster.create(owned('dependent', [ownerRef(owner)])));
    expect(await must(cluster.delete(cmRef('owner'), { propagationPolicy: 'Foreground' }))).toEqual(O.none);
    await cluster.settle();
    expect(stored(cluster)).toEqual(['dependent']);
  });

  it('deleting a namespace empties it and then removes it; the immortal namespaces cannot be deleted', async () => {
    const cluster = createMemoryCluster();
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } }));
    await must(cluster.create(configMap('a', {}, 'doomed')));
    await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'svc', namespace: 'doomed' },
        spec: { clusterIP: '10.96.0.9', ports: [{ port: 80 }] },
      }),
    );
    await must(cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' }));
    await cluster.settle();
    expect(cluster.objects().filter((o) => o.metadata.name === 'doomed' || o.metadata.namespace === 'doomed')).toEqual(
      [],
    );
    const reused = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'svc' },
        spec: { clusterIP: '10.96.0.9', ports: [{ port: 80 }] },
      }),
    );
    expect((reused.spec as { clusterIP: string }).clusterIP).toBe('10.96.0.9');
    for (const name of ['default', 'kube-system', 'kube-public']) {
      expect((await failure(cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name })))._tag).toBe('Forbidden');
    }
  });
});
