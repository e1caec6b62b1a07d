/**
 * checkController with a module run in process: the unchanged entry point of
 * test/app/testing/fixtures/greeting-process-controller.mjs, its timers on the run's manual
 * clock and its requests released by the kit's seeded scheduler.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as timerPromises from 'node:timers/promises';
import {
  checkController,
  ConvergenceFailure,
  faultProfiles,
  type ControllerCheckOptions,
  type FaultProfile,
} from '../../../app/testing/index.js';
import { converged, perturb, setup, worldArbitrary, type World } from './greeting-world.js';

const fixture = fileURLToPath(new URL('./fixtures/greeting-process-controller.mjs', import.meta.url));
const backoff = fileURLToPath(new URL('./fixtures/backoff-controller.mjs', import.meta.url));
const exiting = fileURLToPath(new URL('./fixtures/exit-controller.mjs', import.meta.url));
const framework = fileURLToPath(new URL('../../../examples/kit/framework-controller.mjs', import.meta.url));
const debounce = fileURLToPath(new URL('../../../examples/kit/debounce-controller.mjs', import.meta.url));

describe('checkController: a module in process, on the kit clock', () => {
  it('a correct controller converges under flaky faults, perturbations and an API-server restart', async () => {
    const timersBefore = globalThis.setTimeout;
    const started = performance.now();
    await checkController({
      world: worldArbitrary,
      setup,
      converged,
      perturb,
      controller: { module: fixture, process },
      faults: faultProfiles.flaky,
      apiServerRestartsAt: [4_000],
      numRuns: 3,
      seed: 11,
    });
    // no patch outlives the run
    expect(globalThis.setTimeout).toBe(timersBefore);
    expect(new Date().getFullYear()).toBeGreaterThan(2025);
    console.log(`3 in-process runs took ${Math.round(performance.now() - started)} ms`);
  }, 120_000);

  it('a 200 ms debounce on the kit clock: the global flag bug is found and the globals are restored after the failure', async () => {
    const failure = await checkController({
      world: worldArbitrary,
      setup,
      converged,
      controller: { module: debounce, process },
      numRuns: 6,
      seed: 7,
      faultyMs: 0,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConvergenceFailure);
    const message = failure instanceof Error ? failure.message : '';
    expect(message).toMatch(/got: \w+: wanted "\w+", found null/);
    expect(message).toContain('requests (');
    expect(Date.now()).toBeGreaterThan(Date.UTC(2026, 0, 1));
    expect(process.env.KUBECONFIG ?? '').not.toMatch(/kreconcile-kit-/);
  }, 120_000);

  it('backoff with await setTimeout(ms) and a resync with setInterval from node:timers/promises run on the kit clock', async () => {
    const sleepBefore = timerPromises.setTimeout;
    const flakyReads: FaultProfile = {
      errors: [
        { rate: 0.5, tag: 'Internal', code: 500, verbs: ['list', 'get'], message: 'etcdserver: request timed out' },
      ],
    };
    const started = performance.now();
    const internalErrors: number[] = [];
    await checkController({
      world: worldArbitrary,
      setup,
      converged,
      // tampering is seen only by the 30 s resync (no watch): quiet must span it
      perturb,
      settleMs: 35_000,
      controller: { module: backoff, process },
      faults: flakyReads,
      numRuns: 3,
      seed: 5,
      onRun: (run) => internalErrors.push(run.trace.filter((line) => line.includes('→ Internal')).length),
    });
    // the backoffs (2 s to 8 s each) and the 30 s resyncs took far less real time than their sum
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(internalErrors.some((failed) => failed > 0)).toBe(true);
    expect(timerPromises.setTimeout).toBe(sleepBefore);
  }, 120_000);

  /** The failure's message of a Greeting check of `module` that must fail. */
  const failureOf = (module: string, options: Partial<ControllerCheckOptions<World>>): Promise<string> =>
    checkController({ world: worldArbitrary, setup, converged, controller: { module, process }, ...options }).then(
      () => 'passed',
      (error: unknown) => (error instanceof ConvergenceFailure ? error.message : String(error)),
    );

  it("an unhandled rejection of an unawaited write is the controller's crash, named with its time, not the runner's failure", async () => {
    const listenersBefore = process.listeners('unhandledRejection');
    const logBefore = console.log;
    const message = await failureOf(framework, {
      // every patch answers 500: the first, never awaited, crashes it
      faults: {
        errors: [{ rate: 1, tag: 'Internal', code: 500, verbs: ['patch'], message: 'etcdserver: request timed out' }],
      },
      numRuns: 2,
      seed: 5,
      shrinkBudget: { runs: 2 },
    });
    expect(message).toMatch(
      /the controller crashed at \d+\.\d\d s \(the run's clock\): an unhandled promise rejection, its process would exit with code 1/,
    );
    expect(message).toContain('etcdserver: request timed out');
    expect(message).toMatch(/the controller crashed \(an unhandled promise rejection, exit code 1\) at \d+\.\d\d s/);
    expect(message).toContain('stdout| greeting operator started');
    expect(process.listeners('unhandledRejection')).toEqual(listenersBefore);
    expect(console.log).toBe(logBefore);
  }, 120_000);

  it('process.exit(3) of an in-process controller is its crash with exit code 3; the runner stays up', async () => {
    const exitBefore = process.exit;
    const message = await failureOf(exiting, { numRuns: 1, seed: 1 });
    expect(message).toMatch(
      /the controller crashed at \d+\.\d\d s \(the run's clock\): process\.exit\(3\), its process would exit with code 3/,
    );
    expect(message).toContain('stderr| fatal: no leader election lease, giving up');
    expect(process.exit).toBe(exitBefore);
  }, 60_000);

  describe('a controller that crashes once, then works: the kit starts a fresh instance of its module', () => {
    const crashingOnce = async <T>(check: () => Promise<T>): Promise<T> => {
      const before = process.env.BEHAVIOUR;
      process.env.BEHAVIOUR = 'crash-once';
      try {
        return await check();
      } finally {
        if (before === undefined) delete process.env.BEHAVIOUR;
        else process.env.BEHAVIOUR = before;
      }
    };

    it('with crashes tolerated, the restarted instance converges the world; each run restarted it once', async () => {
      const restarts: number[] = [];
      await crashingOnce(() =>
        checkController({
          world: worldArbitrary,
          setup,
          converged,
          perturb,
          controller: { module: fixture, process },
          tolerateExits: true,
          numRuns: 3,
          seed: 17,
          onRun: (run) => restarts.push(run.restarts),
        }),
      );
      expect(restarts).toEqual([1, 1, 1]);
    }, 120_000);

    it('a seed replays the same requests across the crash and the restart', async () => {
      const traces: Array<ReadonlyArray<string>> = [];
      const once = () =>
        checkController({
          world: worldArbitrary,
          setup,
          converged,
          controller: { module: fixture, process },
          tolerateExits: true,
          numRuns: 1,
          seed: 23,
          onRun: (run) => traces.push(run.trace),
        });
      await crashingOnce(async () => {
        await once();
        await once();
      });
      const [first, again] = traces;
      expect(first?.some((call) => call.startsWith('create v1 ConfigMap default/greeting-migrated'))).toBe(true);
      expect(again).toEqual(first);
    }, 120_000);

    it('by default the crash is the finding; the report names it, the restart and no give-up', async () => {
      const message = await crashingOnce(() => failureOf(fixture, { numRuns: 1, seed: 17, shrinkBudget: { runs: 2 } }));
      expect(message).toMatch(
        /got: the controller crashed at \d+\.\d\d s \(the run's clock\): an uncaught exception in a timer callback, its process would exit with code 1/,
      );
      expect(message).toContain('migration: the cache was built from the old schema');
      expect(message).toMatch(/the controller restarted \(instance 2, a fresh import of its module\) at \d+\.\d\d s/);
      expect(message).toMatch(
        /the controller crashed: an uncaught exception in a timer callback \(exit code 1\) at [\d.]+ s; restarted 1 time\n/,
      );
      expect(message).not.toContain('stayed down');
    }, 120_000);

    it('with no restarts left the controller stays down, and perturbations are never undone', async () => {
      const message = await crashingOnce(() =>
        failureOf(fixture, {
          controller: { module: fixture, process, maxRestarts: 0 },
          perturb,
          tolerateExits: true,
          numRuns: 1,
          seed: 17,
          shrinkBudget: { runs: 2 },
        }),
      );
      expect(message).toMatch(/got: the controller stays down: its restarts ran out \(the controller crashed at/);
      expect(message).toMatch(/restarted 0 times, then stayed down \(restarts ran out: CrashLoopBackOff\)/);
    }, 120_000);
  });
});
