/**
 * examples/kit/debounce-controller.mjs, run unchanged under checkController: its one global
 * debounce flag drops the events of other objects, so a world with two Greetings fails, shrunk
 * to two, naming the Greeting left without its ConfigMap.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkController, ConvergenceFailure } from '../../../app/testing/index.js';
import { converged, setup, worldArbitrary } from './greeting-world.js';

const script = fileURLToPath(new URL('../../../examples/kit/debounce-controller.mjs', import.meta.url));

describe('examples/kit: the kit finds the planted bug of a controller run as it is', () => {
  it('a global debounce flag: the second Greeting never gets its ConfigMap', async () => {
    const failure = await checkController({
      world: worldArbitrary,
      setup,
      converged,
      controller: { command: [process.execPath, script] },
      numRuns: 4,
      seed: 7,
      faultyMs: 0,
      settleMs: 1_000,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConvergenceFailure);
    const message = failure instanceof Error ? failure.message : '';
    // the shrunk world has two Greetings; one of them was never reconciled
    expect(message).toMatch(/counterexample: world = \[\{.*\},\{.*\}\]/);
    expect(message).toMatch(/got: \w+: wanted "\w+", found null/);
    expect(message).toContain('the controller process never exited');
  }, 180_000);
});
