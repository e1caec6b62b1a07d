/**
 * Replays reproduce (issue 39 item 5): a controller that sends its requests concurrently
 * (examples/kit/secret-copier.mjs copies into every namespace at once) run in process twice with
 * the same seed and path gets the same interleaving: the same requests released in the same
 * order with the same answers (faults included), whatever the harness sends meanwhile.
 */
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkController, type FaultProfile, type InProcessRun } from '../../../app/testing/index.js';
import { converged, perturb, setup, type World } from './greeting-world.js';
import { flakySecretReads, secretSetup, secretsConverged, secretWorld } from './secret-world.js';

const copier = fileURLToPath(new URL('../../../examples/kit/secret-copier.mjs', import.meta.url));
const concurrent = fileURLToPath(new URL('./fixtures/concurrent-greeting-controller.mjs', import.meta.url));

/** One run of the property at `seed` (its first world), returning what the kit released. */
const traceOf = async (seed: number): Promise<InProcessRun> => {
  const runs: InProcessRun[] = [];
  await checkController({
    world: secretWorld,
    setup: secretSetup,
    converged: secretsConverged,
    perturb: async ({ api }, step) => {
      await api.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `noise-${step}`, namespace: 'team-a' },
      });
    },
    controller: { module: copier, process },
    faults: flakySecretReads,
    faultyMs: 3_000,
    numRuns: 1,
    seed,
    onRun: (run) => runs.push(run),
  }).catch(() => undefined); // the planted bug may fail a run: its trace must replay all the same
  const [run] = runs;
  if (run === undefined) throw new Error('no in-process run was reported');
  return run;
};

describe('replays reproduce the interleaving of a concurrent controller', () => {
  it('a seed replays the same released requests, in the same order, with the same answers', async () => {
    const distinct = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
        const [first, again] = [await traceOf(seed), await traceOf(seed)];
        expect(again.trace).toEqual(first.trace);
        expect(first.trace.length).toBeGreaterThan(3);
        distinct.add(JSON.stringify(first.trace));
        return first.mostHeld > 1; // the controller had requests waiting at once
      }),
      { numRuns: 4, seed: 39 },
    );
    // different seeds explore different interleavings or faults
    expect(distinct.size).toBeGreaterThan(1);
  }, 300_000);
});

/** A 500 on a third of the process's reads and writes, and latency: its calls overlap in the server. */
const flaky: FaultProfile = {
  errors: [{ rate: 0.35, tag: 'Internal', code: 500, verbs: ['get', 'list', 'create', 'update'] }],
  latency: [{ minMs: 20, maxMs: 60 }],
};

const three: World = [
  { name: 'alpha', message: 'hello' },
  { name: 'beta', message: 'hi' },
  { name: 'gamma', message: 'hey' },
];

/** One run of a process that sends its requests concurrently, with the harness perturbing meanwhile. */
const processTraceOf = async (seed: number): Promise<InProcessRun> => {
  const runs: InProcessRun[] = [];
  await checkController({
    world: fc.constant(three),
    setup,
    converged,
    perturb,
    controller: { command: [process.execPath, concurrent] },
    faults: flaky,
    // the controller's work (tens of ms, retries included) ends well within the faulty period, which ends in real time
    faultyMs: 2_000,
    perturbEveryMs: 250,
    settleMs: 300,
    numRuns: 1,
    seed,
    onRun: (run) => runs.push(run),
  }).catch(() => undefined); // perturbations are never undone (no watch): only the trace matters here
  const [run] = runs;
  if (run === undefined) throw new Error('no process run was reported');
  return run;
};

describe('replays of a process: each request meets the same faults whatever order it arrives in', () => {
  it('a seed replays the same requests with the same answers and faults, the harness perturbing meanwhile', async () => {
    const distinct = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
        const [first, again] = [await processTraceOf(seed), await processTraceOf(seed)];
        expect(again.trace).toEqual(first.trace);
        expect(first.trace.some((call) => call.endsWith('→ Internal'))).toBe(true);
        distinct.add(JSON.stringify(first.trace));
        return first.mostHeld > 1; // three Greetings' requests were in flight at once
      }),
      { numRuns: 3, seed: 39 },
    );
    expect(distinct.size).toBeGreaterThan(1);
  }, 300_000);
});
