/**
 * The Cluster contract suite against the Kubernetes adapter on a real kube-apiserver (fresh
 * namespace per run), so the memory adapter cannot drift from what a real server does.
 */
import { describe, expect, it } from 'vitest';
import { connect, freshNamespace, kubernetesEnv } from '../support/kubernetes-env.js';
import { describeClusterContract } from './cluster-contract.js';

const env = kubernetesEnv();

if (env.available) {
  describeClusterContract('kubernetes adapter (real kube-apiserver)', async () => {
    const cluster = connect(env);
    const { namespace, cleanup } = await freshNamespace(cluster, 'kr-contract');
    // the suite's namespace is really there before any contract test runs in it
    expect(await cluster.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })()).toMatchObject({
      _tag: 'Right',
      right: { _tag: 'Some' },
    });
    // Garbage collection of ownerReferences needs kube-controller-manager.
    return { cluster, namespace, cleanup, gc: env.controllerManager };
  });
} else {
  describe('Cluster contract: kubernetes adapter (real kube-apiserver)', () => {
    it.skip(`SKIPPED: ${env.reason}`, () => undefined);
  });
}
