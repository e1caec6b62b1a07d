/**
 * Memory adapter: the storage protection controllers (controllers/storage-protection.ts). A
 * deleting claim keeps `kubernetes.io/pvc-protection` while a scheduled pod uses it, and only
 * then (an unscheduled pod does not count, as in kube-controller-manager); a deleting volume keeps
 * `kubernetes.io/pv-protection` while it is `Bound`. Without garbage collection (no controller
 * manager) nothing is released.
 */
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import type { ObjectRef, Resource } from '../../../core/internal.js';
import { must } from './support.js';

const claimRef: ObjectRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' };
const claim: Resource = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

const pod = (name: string, nodeName?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: {
    ...(nodeName === undefined ? {} : { nodeName }),
    containers: [{ name: 'app', image: 'busybox' }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
  },
});
const podRef = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name });

const finalizersOf = async (cluster: ReturnType<typeof createMemoryCluster>, ref: ObjectRef) => {
  const read = await must(cluster.get(ref));
  return O.isSome(read) ? (read.value.metadata.finalizers ?? []) : undefined;
};

describe('memory storage protection', () => {
  it('a deleting claim stays while a scheduled pod uses it (not for an unscheduled one), then goes', async () => {
    const cluster = createMemoryCluster();
    await must(cluster.create(claim));
    await must(cluster.create(pod('scheduled', 'node-1')));
    await must(cluster.create(pod('pending')));
    await must(cluster.delete(claimRef));
    await cluster.settle();
    expect(await finalizersOf(cluster, claimRef)).toEqual(['kubernetes.io/pvc-protection']);
    await must(cluster.delete(podRef('scheduled')));
    await cluster.settle();
    expect(await finalizersOf(cluster, claimRef)).toBeUndefined();
  });

  it('a deleting volume stays while Bound, and goes once it is not', async () => {
    const cluster = createMemoryCluster();
    const volumeRef: ObjectRef = { apiVersion: 'v1', kind: 'PersistentVolume', name: 'pv-1' };
    const volume = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv-1' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv-1' } },
      }),
    );
    await must(cluster.updateStatus({ ...volume, status: { phase: 'Bound' } }));
    await must(cluster.delete(volumeRef));
    await cluster.settle();
    expect(await finalizersOf(cluster, volumeRef)).toEqual(['kubernetes.io/pv-protection']);
    const bound = await must(cluster.get(volumeRef));
    if (O.isSome(bound)) await must(cluster.updateStatus({ ...bound.value, status: { phase: 'Released' } }));
    await cluster.settle();
    expect(await finalizersOf(cluster, volumeRef)).toBeUndefined();
  });

  it('without garbage collection (no controller manager) a deleting claim keeps its finalizer', async () => {
    const cluster = createMemoryCluster({ gc: false });
    await must(cluster.create(claim));
    await must(cluster.delete(claimRef));
    await cluster.settle();
    expect(await finalizersOf(cluster, claimRef)).toEqual(['kubernetes.io/pvc-protection']);
  });
});
