/** The immutable-field scenario (test/support/immutable-scenario.ts) on the in-memory API server. */
import { describe, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../adapters/memory/index.js';
import { builtinScopes } from '../../core/index.js';
import { must } from '../support/kubernetes-env.js';
import { immutableFieldScenario } from '../support/immutable-scenario.js';

describe('immutable fields on the memory API server', () => {
  it('an immutable change stalls ImmutableField naming the field; with recreate it converges', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5 });
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    await immutableFieldScenario({ cluster, scopes: builtinScopes, now: () => new Date(clock.now()).toISOString(), random: () => 0.5, planOptions: { readiness: 'existence' } }, 'shop');
  });
});
