/**
 * checkController's `killAfterWrites`: the kit kills the controller once its Nth write is answered,
 * before the answer reaches it (kill -9 mid-write), and its pod restarts it. A correct controller
 * converges across the kills, which are faults, not findings; one that is not idempotent across a
 * kill (fixtures/greeting-process-controller.mjs, `register-once`: a create it cannot repeat) is
 * caught, as a process and in process.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkController,
  ConvergenceFailure,
  type ControllerCheckOptions,
  type InProcessRun,
} from '../../../app/testing/index.js';
import { converged, perturb, setup, worldArbitrary, type World } from './greeting-world.js';

const fixture = fileURLToPath(new URL('./fixtures/greeting-process-controller.mjs', import.meta.url));

const asProcess = (behaviour: string): ControllerCheckOptions<World> => ({
  world: worldArbitrary,
  setup,
  converged,
  controller: { command: [process.execPath, fixture], env: { BEHAVIOUR: behaviour }, maxRestarts: 3 },
  faultyMs: 1_500,
  settleMs: 1_000,
  quietWithinMs: 20_000,
});

/** The message of the run's error a check that must fail rejects with. */
const failureOf = (run: Promise<void>): Promise<string> =>
  run.then(
    () => {
      throw new Error('expected checkController to fail');
    },
    (error: unknown) => {
      if (!(error instanceof ConvergenceFailure)) throw error;
      return `${error.message}\n${(error.cause as Error).message}`;
    },
  );

/** Runs `check` with `BEHAVIOUR` set in this process's environment (the in-process fixture reads it there). */
const withBehaviour = async <T>(behaviour: string, check: () => Promise<T>): Promise<T> => {
  const before = process.env.BEHAVIOUR;
  process.env.BEHAVIOUR = behaviour;
  try {
    return await check();
  } finally {
    if (before === undefined) delete process.env.BEHAVIOUR;
    else process.env.BEHAVIOUR = before;
  }
};

const REGISTRATION = 'create v1 ConfigMap default/greeting-controller-registration';

describe('killAfterWrites: the controller killed mid-write, then restarted', () => {
  it('a process: a correct controller converges across SIGKILLs after writes 1 and 6, each restarted', async () => {
    const runs: InProcessRun[] = [];
    await checkController({
      ...asProcess('correct'),
      // the other actor's edits make the controller write again after its first kill; they last long enough that
      // some come after its restart even on a loaded machine (a Node process takes up to ~1.5 s to send a request)
      perturb,
      faultyMs: 4_000,
      // not [1, 3]: a process sends the creates of up to three Greetings at once, and a write in flight from a
      // process killed already kills nothing
      killAfterWrites: [1, 6],
      numRuns: 2,
      onRun: (run) => runs.push(run),
    });
    expect(runs.map((run) => [run.kills, run.restarts])).toEqual([
      [2, 2],
      [2, 2],
    ]);
  }, 90_000);

  it('a process that cannot repeat a write it was killed after is caught: the report names the kill, then the crash', async () => {
    const message = await failureOf(
      checkController({
        ...asProcess('register-once'),
        killAfterWrites: [1],
        numRuns: 1,
        shrinkBudget: { runs: 1 },
      }),
    );
    expect(message).toContain('faults injected by the server: none; by the kit: 1 controller kill (after write 1)');
    expect(message).toMatch(
      new RegExp(`controller killed \\(SIGKILL\\) after write 1: ${REGISTRATION} at \\d+\\.\\d\\d s`),
    );
    expect(message).toMatch(
      /the controller was killed by the kit \(SIGKILL, a fault\) at \d+\.\d\d s, then exited with code 1 at \d+\.\d\d s/,
    );
    expect(message).toContain('another greeting controller is registered (AlreadyExists): giving up');
  }, 90_000);

  it('a process: without the kill the same controller passes (the kill is what it cannot survive)', async () => {
    const runs: InProcessRun[] = [];
    await checkController({ ...asProcess('register-once'), numRuns: 1, onRun: (run) => runs.push(run) });
    expect(runs.map((run) => [run.kills, run.restarts])).toEqual([[0, 0]]);
  }, 60_000);

  it('in process: the kill drops the instance and a fresh import of the module converges; kills and restarts counted', async () => {
    const runs: InProcessRun[] = [];
    await checkController({
      world: worldArbitrary,
      setup,
      converged,
      perturb,
      controller: { module: fixture, process },
      killAfterWrites: [1, 3],
      numRuns: 3,
      seed: 29,
      onRun: (run) => runs.push(run),
    });
    expect(runs.map((run) => [run.kills, run.restarts])).toEqual([
      [2, 2],
      [2, 2],
      [2, 2],
    ]);
    // the killed instance never got the answer to write 1: the next instance's first requests read the world again
    const [first] = runs;
    expect(first?.trace.filter((call) => call.startsWith('list demo.example/v1 Greeting')).length).toBeGreaterThan(2);
  }, 120_000);

  it('in process: a module that cannot repeat the write it was killed after is caught, the kill named first', async () => {
    const message = await withBehaviour('register-once', () =>
      failureOf(
        checkController({
          world: worldArbitrary,
          setup,
          converged,
          controller: { module: fixture, process, maxRestarts: 1 },
          killAfterWrites: [1],
          numRuns: 1,
          seed: 3,
          shrinkBudget: { runs: 1 },
        }),
      ),
    );
    expect(message).toMatch(
      /got: the controller crashed at \d+\.\d\d s \(the run's clock\): an exception while its module loaded/,
    );
    expect(message).toContain('another greeting controller is registered (AlreadyExists): giving up');
    expect(message).toMatch(
      new RegExp(
        `controller killed \\(its instance dropped, as by SIGKILL\\) after write 1: ${REGISTRATION} at [\\d.]+ s; ` +
          'the controller restarted \\(instance 2',
      ),
    );
    expect(message).toMatch(/kit faults: 1 controller kill \(after write 1\); restarted 2 times, then stayed down/);
  }, 120_000);
});
