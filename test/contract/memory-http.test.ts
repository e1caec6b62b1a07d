/**
 * The Cluster contract suite on a third target: the Kubernetes adapter (client-node) talking
 * HTTP to the memory cluster served on loopback, so the endpoint a user's client-node
 * controller sees under the test kit behaves like the real API server too.
 */
import { expect } from 'vitest';
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import { serveMemoryCluster } from '../../adapters/memory/http/index.js';
import { describeClusterContract } from './cluster-contract.js';

describeClusterContract('memory adapter over HTTP (client-node → loopback endpoint)', async () => {
  const memory = createMemoryCluster({ seed: 7 });
  const served = await serveMemoryCluster(memory);
  const cluster = createKubernetesCluster({ kubeconfigYaml: served.kubeconfig });
  const namespace = 'contract';
  const created = await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
  if (created._tag === 'Left') throw new Error(created.left.message);
  // the suite's namespace is really there, in the memory cluster behind the endpoint
  expect(memory.objects().some((o) => o.kind === 'Namespace' && o.metadata.name === namespace)).toBe(true);
  return {
    cluster,
    namespace,
    gc: true,
    cleanup: async () => {
      await served.close();
    },
  };
});
