/**
 * Shrinking within a budget (issue 39 item 7): the report gives the time to the first failure
 * and what shrinking cost, says when its budget stopped it, and lists distinct failures when
 * one masks another.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkConvergence, ConvergenceFailure } from '../../../app/testing/index.js';
import { failureKind } from '../../../app/testing/shrink-budget.js';

/** Two bugs: more than three numbers is one, a number above 15 another (checked second: masked by the first). */
const check = (shrinkBudget?: { readonly runs?: number; readonly ms?: number }, path?: string) =>
  checkConvergence({
    // every world ends with a big number; shrinking the rest away turns one failure into the other
    world: fc.array(fc.nat(15), { maxLength: 30 }).map((numbers) => [...numbers, 19]),
    setup: async () => undefined,
    reconcile: async () => undefined,
    converged: async ({ world }) => {
      if (world.length > 3) return `${world.length} numbers are too many`;
      const big = world.find((n) => n > 15);
      return big === undefined ? true : `number ${big} is too big`;
    },
    faultyPasses: 0,
    numRuns: 50,
    seed: 4,
    ...(shrinkBudget === undefined ? {} : { shrinkBudget }),
    ...(path === undefined ? {} : { path }),
  }).then(
    () => '',
    (error: unknown) => (error instanceof ConvergenceFailure ? error.message : String(error)),
  );

describe('shrinking within a budget', () => {
  it('reports the first failure, the shrinking cost, and both kinds of failure met', async () => {
    const message = await check();
    expect(message).toMatch(
      /search: first failure after \d+\.\d\d s \(run \d+\); shrinking: \d+ runs in \d+\.\d\d s \(done\)/,
    );
    expect(message).toMatch(/distinct failures seen \(2; one may mask another\):/);
    // Each kind as its smallest world's own message (no placeholders), with that world's cluster seed.
    expect(message).toMatch(/not converged: number 19 is too big \(×\d+ of this kind\); smallest world: \[19\]/);
    expect(message).toMatch(
      /not converged: \d+ numbers are too many \(×\d+ of this kind\); smallest world: \[[\d,]+\] with cluster seed -?\d+/,
    );
    // The kind the search met first names the run that showed it (replayed with its path); the other only shrinking.
    const named = /first seen in run \d+: replay it with the check's seed and path "(\d+)"/.exec(message);
    expect(message).toContain('first seen while shrinking');
    // That path replays the run: it fails at once, with the same kind.
    expect(named?.[1]).toBeDefined();
    const replayed = await check({ runs: 0 }, named?.[1]);
    expect(replayed).toContain('numbers are too many');
    expect(replayed).toMatch(/first failure after \d+\.\d\d s \(run 1\)/);
  });

  it('a run budget stops shrinking and the report says so; the counterexample still fails', async () => {
    const sumOver = (shrinkBudget?: { readonly runs: number }) =>
      checkConvergence({
        world: fc.array(fc.nat(100), { minLength: 1, maxLength: 40 }),
        setup: async () => undefined,
        reconcile: async () => undefined,
        converged: async ({ world }) => (world.reduce((a, b) => a + b, 0) > 50 ? 'the sum is over 50' : true),
        faultyPasses: 0,
        seed: 8,
        ...(shrinkBudget === undefined ? {} : { shrinkBudget }),
      }).then(
        () => '',
        (error: unknown) => (error instanceof ConvergenceFailure ? error.message : String(error)),
      );
    const [unbounded, bounded] = [await sumOver(), await sumOver({ runs: 3 })];
    expect(bounded).toMatch(/shrinking: 3 runs in \d+\.\d\d s \(stopped by its budget: 120\.00 s or 3 runs/);
    expect(unbounded).toMatch(/shrinking: \d+ runs in \d+\.\d\d s \(done\)/);
    const shrunk = [unbounded, bounded].map((text) => Number(/Shrunk (\d+) time/.exec(text)?.[1]));
    expect(shrunk[1]).toBeLessThan(shrunk[0] ?? 0);
    expect(bounded).toMatch(/got: not converged: the sum is over 50/);
  });

  it('names a kind of failure without the objects and numbers it names', () => {
    expect(failureKind('not converged: team-a/db: a foreign Secret was overwritten\nmore')).toBe(
      failureKind('not converged: team-b/api: a foreign Secret was overwritten'),
    );
    expect(failureKind('alpha: wanted "hi", found null')).toBe('alpha: wanted "…", found null');
  });
});
