/**
 * Bounds on shrinking, and what a run of the property saw besides its shrunk counterexample:
 * the time and run of the first failure, how long shrinking took and whether its budget ended
 * it, and the distinct failures met on the way (one bug can mask another: the shrunk world
 * shows one, the report lists every kind seen, each with the smallest world that showed it).
 * Guide: docs/testing.md, "Shrinking".
 */
import fc from 'fast-check';

/** Shrinking stops (keeping the smallest failure found so far) after `ms` of real time or `runs` runs. */
export type ShrinkBudget = { readonly ms?: number; readonly runs?: number };

/** One kind of failure: how often, its smallest world and that world's message, and the run that first showed it. */
type Failure = { count: number; world: unknown; seed: number; size: number; example: string; firstRun?: number };

type SearchState = {
  runs: number;
  /** Real time of the first failure, and which run it was. */
  firstAt?: number;
  firstRun: number;
  shrinkRuns: number;
  stoppedAt: number;
  exhausted: boolean;
};

export type PropertyLog = {
  /** Wraps one run of the property: times it, counts it, records its failure's kind. */
  readonly wrap: <World>(
    run: (world: World, seed: number) => Promise<void>,
  ) => (world: World, seed: number) => Promise<void>;
  /** The lines the failure report carries about the search. */
  readonly summary: () => string;
};

/**
 * What kind of failure a message is: its first line with the parts that name particular objects,
 * numbers and quoted values blurred, so `team-a/db: … overwritten` and `team-b/api: …` are one kind.
 */
export const failureKind = (message: string): string =>
  (message.split('\n')[0] ?? '')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b[\w.-]+\/[\w./-]+/g, '<object>')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 200);

const sizeOf = (world: unknown): number => fc.stringify(world).length;

/**
 * Counts a failure under its kind, keeping the smallest world that failed that way and its message. `searchRun` is
 * the run's number while the search has not begun shrinking: fast-check replays that run with the path `run - 1`.
 */
const recordFailure = (
  kinds: Map<string, Failure>,
  error: unknown,
  world: unknown,
  seed: number,
  searchRun: number | undefined,
): void => {
  const message = error instanceof Error ? error.message : String(error);
  const kind = failureKind(message);
  const known = kinds.get(kind) ?? {
    count: 0,
    world,
    seed,
    size: Number.POSITIVE_INFINITY,
    example: '',
    firstRun: searchRun,
  };
  known.count++;
  kinds.set(kind, known);
  if (sizeOf(world) >= known.size) return;
  [known.world, known.seed, known.size] = [world, seed, sizeOf(world)];
  known.example = (message.split('\n')[0] ?? '').slice(0, 300);
};

const replayOf = (seen: Failure): string =>
  seen.firstRun === undefined
    ? 'first seen while shrinking'
    : `first seen in run ${seen.firstRun}: replay it with the check's seed and path "${seen.firstRun - 1}"`;

/**
 * Every kind of failure seen, when there was more than one: shrinking follows one of them, and the
 * others (with their smallest world) would otherwise go unseen behind it.
 */
const distinctFailures = (kinds: ReadonlyMap<string, Failure>): string =>
  kinds.size <= 1
    ? ''
    : `\ndistinct failures seen (${kinds.size}; one may mask another):` +
      [...kinds.entries()]
        .map(
          ([, seen], index) =>
            `\n  ${index + 1}. ${seen.example} (×${seen.count} of this kind); smallest world: ` +
            `${fc.stringify(seen.world)} with cluster seed ${seen.seed}; ${replayOf(seen)}`,
        )
        .join('');

/** A log of one property check under `budget` (defaults: 120 s and 200 runs of shrinking). */
export const propertyLog = (budget: ShrinkBudget = {}): PropertyLog => {
  const [limitMs, limitRuns] = [budget.ms ?? 120_000, budget.runs ?? 200];
  const began = performance.now();
  const state: SearchState = { runs: 0, firstRun: 0, shrinkRuns: 0, stoppedAt: 0, exhausted: false };
  const kinds = new Map<string, Failure>();
  return {
    wrap: (run) => async (world, seed) => {
      state.runs++;
      if (state.firstAt !== undefined) {
        if (state.exhausted || performance.now() - state.firstAt > limitMs || state.shrinkRuns >= limitRuns) {
          state.exhausted = true;
          return; // counted as passing: fast-check keeps the smallest failure found so far
        }
        state.shrinkRuns++;
      }
      try {
        await run(world, seed);
      } catch (error) {
        const searching = state.firstAt === undefined;
        if (searching) [state.firstAt, state.firstRun] = [performance.now(), state.runs];
        recordFailure(kinds, error, world, seed, searching ? state.runs : undefined);
        throw error;
      } finally {
        state.stoppedAt = performance.now();
      }
    },
    summary: () => {
      const first =
        state.firstAt === undefined
          ? 'no failure'
          : `first failure after ${seconds(state.firstAt - began)} (run ${state.firstRun})`;
      const shrinking =
        state.firstAt === undefined
          ? ''
          : `; shrinking: ${state.shrinkRuns} runs in ${seconds(state.stoppedAt - state.firstAt)}` +
            (state.exhausted
              ? ` (stopped by its budget: ${seconds(limitMs)} or ${limitRuns} runs; the counterexample is the smallest found by then)`
              : ' (done)');
      return `search: ${first}${shrinking}${distinctFailures(kinds)}`;
    },
  };
};

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
