/**
 * End to end on a real API server (issue 13, item 4): the dependsOn chain of
 * test/support/dependency-scenario.ts is created in order and deleted in reverse.
 */
import { afterAll, beforeAll, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { builtinScopes } from '../../core/internal.js';
import { dependencyChainScenario } from '../support/dependency-scenario.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';

describeWithApiServer('end to end: dependsOn on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-depends'));
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('a chain is created in order, one link per reconcile, and deleted in reverse', async () => {
    // The test control plane may run no workload controllers: children count as ready once they exist.
    await dependencyChainScenario(
      {
        cluster,
        scopes: builtinScopes,
        now: () => new Date().toISOString(),
        random: Math.random,
        planOptions: { readiness: 'existence' },
      },
      namespace,
    );
  });
});
