/**
 * End to end on a real API server (issue 13, item 5): the immutable-field scenario of
 * test/support/immutable-scenario.ts — the server's own refusal stalls the Application
 * `ImmutableField`; with `kreconcile.io/recreate: "true"` the objects are recreated and it converges.
 */
import { afterAll, beforeAll, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { builtinScopes } from '../../core/internal.js';
import { immutableFieldScenario } from '../support/immutable-scenario.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';

describeWithApiServer('end to end: immutable fields on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-immutable'));
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('an immutable change stalls ImmutableField naming the field; with recreate it converges', async () => {
    // The test control plane runs no workload controllers: children count as ready once they exist.
    await immutableFieldScenario(
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
