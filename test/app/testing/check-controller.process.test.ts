/**
 * checkController on an unchanged controller process (a Node script on @kubernetes/client-node
 * that reads the default kubeconfig and opens its watch when it loads): a correct one converges
 * under faults, a slow starter is not called quiet before it connects, and a crash is a finding
 * with exit codes, restarts and the last output lines.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkController,
  ConvergenceFailure,
  faultProfiles,
  type ControllerCheckOptions,
} from '../../../app/testing/index.js';
import { converged, perturb, setup, worldArbitrary, type World } from './greeting-world.js';

const script = fileURLToPath(new URL('./fixtures/greeting-process-controller.mjs', import.meta.url));

const options = (behaviour: string): ControllerCheckOptions<World> => ({
  world: worldArbitrary,
  setup,
  converged,
  controller: { command: [process.execPath, script], env: { BEHAVIOUR: behaviour }, maxRestarts: 3 },
  numRuns: 2,
  faultyMs: 800,
  settleMs: 1_000,
  quietWithinMs: 20_000,
});

const failureOf = (run: Promise<void>): Promise<ConvergenceFailure> =>
  run.then(
    () => {
      throw new Error('expected checkController to fail');
    },
    (error: unknown) => {
      if (!(error instanceof ConvergenceFailure)) throw error;
      return error;
    },
  );

describe('checkController: a controller process run as it is written', () => {
  it('a correct controller converges under flaky faults, perturbation and an API-server restart', async () => {
    await checkController({ ...options('correct'), faults: faultProfiles.flaky, perturb, apiServerRestartsAt: [400] });
    // the correct controller re-lists after the dropped connection: no exit, no finding
  }, 60_000);

  it('a controller that takes 800 ms to connect is not called quiet before it has', async () => {
    await checkController({ ...options('slow-start'), faultyMs: 0, numRuns: 1 });
  }, 30_000);

  it('a crash is a finding: exit code, when, restarts and the last output lines', async () => {
    const failure = await failureOf(
      checkController({
        ...options('crash-on-watch-end'),
        faultyMs: 3_000,
        apiServerRestartsAt: [2_000],
        numRuns: 1,
      }),
    );
    const message = (failure.cause as Error).message;
    expect(message).toMatch(/^the controller exited with code 1 at \d+\.\d\d s/);
    expect(message).toMatch(/API-server restart \(connections dropped, watch cache starts over\) at \d+\.\d\d s/);
    expect(message).toMatch(/restarted [1-9]\d* times?/);
    expect(message).toContain('stderr| ');
    expect(message).toContain('watch failed');
    expect(message).not.toContain('threw no error');
  }, 90_000);
});
