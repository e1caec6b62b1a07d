/**
 * Pruning a PersistentVolumeClaim through the operator on the memory cluster (garbage collection
 * on, no guard): the delete is answered while `kubernetes.io/pvc-protection` is pending, the
 * protection controller releases the claim at once, and the watch delivers its deletion before
 * the answer is read. The answer must not bring the claim back into the child cache: the
 * Application ends Ready, not `WaitingForDeletion` for a claim that is gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
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

const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'web',
};
const claimRef: ObjectRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data' };

const claim: Resource = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};
const settings: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'a' } };

const find = (cluster: MemoryCluster, target: ObjectRef): Resource | undefined =>
  cluster
    .objects()
    .find(
      (o) => o.kind === target.kind && o.metadata.namespace === target.namespace && o.metadata.name === target.name,
    );

const readyCondition = (cluster: MemoryCluster) =>
  conditionOf((find(cluster, appRef) as unknown as Application | undefined)?.status?.conditions, 'Ready');

describe('pruning a PersistentVolumeClaim on the memory cluster', () => {
  it('the claim leaves the manifest: it is deleted, released by the protection controller, and the Application is Ready', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock });
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    await cluster.create(applicationOf('shop', 'web', { manifest: [claim, settings] }))();
    operator = await startOperator({ cluster, clock, random: distinct(), workers: 1, readiness: 'existence' });
    await runUntil(clock, () => readyCondition(cluster)?.status === 'True');
    expect(find(cluster, claimRef)?.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);

    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: [settings] } } })();
    await runUntil(clock, () => readyCondition(cluster)?.status === 'True', 10_000);
    expect(find(cluster, claimRef)).toBeUndefined();
    expect(readyCondition(cluster)).toMatchObject({ status: 'True', reason: 'Reconciled', observedGeneration: 2 });
  });
});
