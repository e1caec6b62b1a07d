/** The dependsOn chain scenario (test/support/dependency-scenario.ts) on the in-memory API server. */
import { describe, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../adapters/memory/index.js';
import { builtinScopes } from '../../core/internal.js';
import { dependencyChainScenario } from '../support/dependency-scenario.js';
import { must } from '../support/kubernetes-env.js';

describe('dependsOn on the memory API server', () => {
  it('a chain is created in order, one link per reconcile, and deleted in reverse', async () => {
    const clock = new ManualClock();
    // No garbage collector: deleted children go at once, as on the test control plane.
    const cluster = createMemoryCluster({ clock, seed: 11, gc: false });
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    await dependencyChainScenario(
      {
        cluster,
        scopes: builtinScopes,
        now: () => new Date(clock.now()).toISOString(),
        random: () => 0.5,
        planOptions: { readiness: 'existence' },
      },
      'shop',
    );
  });
});
