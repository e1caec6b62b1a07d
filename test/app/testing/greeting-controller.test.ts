/**
 * docs/testing.md, first part: a controller written against the kit's Promise facade, caught
 * hot-looping (it rewrites its ConfigMap every pass), then fixed and passing under flaky faults.
 */
import { describe, expect, it } from 'vitest';
import {
  checkConvergence,
  ConvergenceFailure,
  faultProfiles,
  isClusterCallError,
  type ConvergenceOptions,
  type PromiseCluster,
} from '../../../app/testing/index.js';
import { converged, perturb, setup, worldArbitrary, type World } from './greeting-world.js';

/** One pass: every Greeting gets a ConfigMap `<name>-greeting` with its message. */
const syncGreetings =
  (options: { readonly compareFirst: boolean }) =>
  async (api: PromiseCluster): Promise<void> => {
    const { items } = await api.list({ apiVersion: 'demo.example/v1', kind: 'Greeting', namespace: 'default' });
    for (const greeting of items) {
      const name = `${greeting.metadata.name}-greeting`;
      const message = (greeting.spec as { message: string }).message;
      const existing = await api.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });
      if (existing === undefined) {
        const owner = {
          apiVersion: greeting.apiVersion,
          kind: greeting.kind,
          name: greeting.metadata.name,
          uid: greeting.metadata.uid ?? '',
          controller: true,
        };
        await api
          .create({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace: 'default', ownerReferences: [owner] },
            data: { message },
          })
          .catch((error: unknown) => {
            if (!isClusterCallError(error, 'AlreadyExists')) throw error;
          });
      } else if (!options.compareFirst || (existing.data as { message?: string } | undefined)?.message !== message) {
        await api.update({ ...existing, data: { ...(existing.data as object), message } });
      }
    }
  };

const options = (compareFirst: boolean): ConvergenceOptions<World> => ({
  world: worldArbitrary,
  setup,
  reconcile: (_cluster, _clock, { api }) => syncGreetings({ compareFirst })(api),
  perturb,
  converged,
  faults: faultProfiles.flaky,
  numRuns: 40,
});

describe('the Greeting controller on the Promise facade (docs/testing.md)', () => {
  it('fails first: an update on every pass never becomes quiet', async () => {
    const failure = await checkConvergence(options(false)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConvergenceFailure);
    expect((failure as ConvergenceFailure).message).toMatch(/got: still writing after 20 passes without faults/);
  });

  it('passes once it compares before writing', async () => {
    await checkConvergence(options(true));
  }, 60_000);
});
