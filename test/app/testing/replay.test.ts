/**
 * Replays reproduce (issue 39 item 5): a controller that sends its requests concurrently
 * (examples/kit/secret-copier.mjs copies into every namespace at once) run in process twice with
 * the same seed and path gets the same interleaving: the same requests released in the same
 * order with the same answers (faults included), whatever the harness sends meanwhile.
 */
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkController, type InProcessRun } from '../../../app/testing/index.js';
import { flakySecretReads, secretSetup, secretsConverged, secretWorld } from './secret-world.js';

const copier = fileURLToPath(new URL('../../../examples/kit/secret-copier.mjs', import.meta.url));

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
