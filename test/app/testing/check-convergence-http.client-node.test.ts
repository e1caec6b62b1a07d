/**
 * The test kit on a controller written with @kubernetes/client-node, as most TypeScript
 * operators are: it runs against the memory cluster's HTTP endpoint under flaky faults and the
 * kit's clock. A correct controller converges; one that never fixes drift is caught with a seed
 * and path, and replaying them reproduces the same failure.
 */
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  checkConvergence,
  ConvergenceFailure,
  faultProfiles,
  type ConvergenceOptions,
} from '../../../app/testing/index.js';
import { converged, perturb, setup, worldArbitrary, type World } from './greeting-world.js';

// ---- the controller under test: keeps a ConfigMap `<name>-greeting` in sync with each Greeting ----
const GREETINGS = { group: 'demo.example', version: 'v1', plural: 'greetings', namespace: 'default' };
type Greeting = { metadata: { name: string; uid: string }; spec: { message: string } };

const greetingController =
  (fixesDrift: boolean) =>
  async (kubeconfig: string): Promise<void> => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfig);
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const greetings = ((await custom.listNamespacedCustomObject(GREETINGS)) as { items: Greeting[] }).items;
    for (const greeting of greetings) {
      const name = `${greeting.metadata.name}-greeting`;
      const existing = await core.readNamespacedConfigMap({ namespace: 'default', name }).catch((error: unknown) => {
        if (error instanceof ApiException && error.code === 404) return undefined;
        throw error;
      });
      if (existing === undefined) {
        const owner = {
          apiVersion: 'demo.example/v1',
          kind: 'Greeting',
          name: greeting.metadata.name,
          uid: greeting.metadata.uid,
          controller: true,
        };
        await core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name, ownerReferences: [owner] }, data: { message: greeting.spec.message } },
        });
      } else if (fixesDrift && existing.data?.message !== greeting.spec.message) {
        // replace carries the resourceVersion read above: a concurrent change answers 409, retried next pass
        await core.replaceNamespacedConfigMap({
          namespace: 'default',
          name,
          body: { ...existing, data: { ...existing.data, message: greeting.spec.message } },
        });
      }
    }
  };
// ---------------------------------------------------------------------------------------------------

const options = (fixesDrift: boolean, answered: Set<number> = new Set()): ConvergenceOptions<World> => ({
  world: worldArbitrary,
  overHttp: true,
  setup,
  reconcile: async (_cluster, _clock, pass) => {
    if (pass.endpoint === undefined) throw new Error('overHttp gives every pass an endpoint');
    await greetingController(fixesDrift)(pass.endpoint.kubeconfig).catch((error: unknown) => {
      if (error instanceof ApiException) answered.add(error.code);
      throw error;
    });
  },
  perturb,
  converged,
  faults: faultProfiles.flaky,
  faultyPasses: 6,
});

const failureOf = (run: Promise<void>): Promise<ConvergenceFailure> =>
  run.then(
    () => {
      throw new Error('expected checkConvergence to fail');
    },
    (error: unknown) => {
      if (!(error instanceof ConvergenceFailure)) throw error;
      return error;
    },
  );

describe('checkConvergence on a client-node controller over HTTP', () => {
  it('passes under flaky faults (409/429/500 answers, latency on the kit clock) while another actor edits', async () => {
    const answered = new Set<number>();
    await checkConvergence({ ...options(true, answered), numRuns: 25 });
    // the faults reached the controller as HTTP answers
    expect([...answered].sort()).toEqual(expect.arrayContaining([409, 429, 500]));
  }, 120_000);

  it('a controller that never fixes drift fails with a seed and path; replaying them reproduces the failure', async () => {
    const failure = await failureOf(checkConvergence({ ...options(false), numRuns: 25, seed: 42 }));
    expect((failure.cause as Error).message).toMatch(/^not converged: .*wanted/);
    expect(failure.message).toContain(`seed: ${failure.seed}, path: "${failure.path}"`);
    expect(failure.path).toMatch(/^\d+(:\d+)*$/);
    expect(failure.message).toMatch(/\ngot: not converged: /);
    const replayed = await failureOf(
      checkConvergence({ ...options(false), seed: failure.seed, path: failure.path, verbose: true }),
    );
    expect(replayed.counterexample).toEqual(failure.counterexample);
    expect((replayed.cause as Error).message).toBe((failure.cause as Error).message);
    // the correct controller passes on the very world that broke the other one
    await checkConvergence({ ...options(true), seed: failure.seed, path: failure.path });
  }, 120_000);
});
