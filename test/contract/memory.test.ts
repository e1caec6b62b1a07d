/** The Cluster contract suite against the in-memory API server (always runs). */
import { expect } from 'vitest';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import { describeClusterContract } from './cluster-contract.js';

describeClusterContract('memory adapter', async () => {
  const cluster = createMemoryCluster({ seed: 7 });
  const namespace = 'contract';
  const created = await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
  if (created._tag === 'Left') throw new Error(created.left.message);
  // the suite's namespace is really there before any contract test runs in it
  expect(await cluster.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })()).toMatchObject({
    _tag: 'Right',
    right: { _tag: 'Some' },
  });
  return {
    cluster,
    namespace,
    gc: true,
    cleanup: async () => {
      await cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace })();
    },
  };
});
