/** Timing and memory helpers for benchmarks: median of repeated runs, retained heap of a result. */
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';

export type Row = {
  readonly suite: string;
  readonly case: string;
  readonly resources?: number;
  /** Median wall time of one run (ms). */
  readonly valueMs?: number;
  readonly perItemUs?: number;
  readonly baselineName?: string;
  readonly baselineMs?: number;
  /** valueMs / baselineMs, measured in the same run. */
  readonly ratio?: number;
  readonly memoryBytes?: number;
  readonly iterations?: number;
  /** What the row must show (`ratio ≤ 1.5`), and whether this run did: a goal not met fails `npm run bench`. */
  readonly goal?: string;
  readonly goalMet?: boolean;
  readonly [extra: string]: unknown;
};

/** Runs `task` repeatedly (≥ 5 runs and ≥ 250 ms after 2 warm-ups) and reports the median. */
export const measure = (task: () => unknown): { readonly medianMs: number; readonly iterations: number } => {
  task();
  task();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < 5 || (performance.now() - started < 250 && samples.length < 200)) {
    const t0 = performance.now();
    task();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(samples.length / 2)] as number, iterations: samples.length };
};

/** Both sides of an alternating measurement: medians, and the spread of the per-round ratios. */
export type PairTiming = {
  readonly medianMs: number;
  readonly baselineMedianMs: number;
  /** Median of the per-round ratios task ÷ baseline (each round times both on the same machine state). */
  readonly ratio: number;
  /** Lower and upper quartile of the per-round ratios: how far one round's answer can wander. */
  readonly ratioQuartiles: readonly [number, number];
  readonly iterations: number;
};

/**
 * Times (CPU time) `task` against `baseline` in rounds, each run on its own inputs from `prepare`
 * (not timed), and reports both medians and the median of the per-round ratios.
 *
 * Method, so that neither side gets the quieter moments or the other's costs:
 * - warm-up until both sides ran ≥ 5 times and ≥ 200 ms (JIT tiers settle before timing);
 * - the order alternates between rounds (A B, B A, …): neither side always runs right after
 *   `prepare` or right after the other;
 * - the inputs are settled before every timed run (`settle`): a collection owed to the inputs
 *   just built, or to the other side's garbage, never lands in a timed run, while each side's own
 *   allocations still cost what they cost inside its run (the allocation is reported apart);
 * - ≥ 11 rounds and ≥ 1.5 s of timed CPU (`minTimedMs`; at most 300 rounds); the ratio is the median of the
 *   per-round ratios, robust to load that changes between rounds on a shared machine.
 * Fresh inputs (new objects every run, as the operator has after decoding) keep identity-keyed
 * caches from hitting; pass a constant for cached runs.
 */
export const measurePair = <T>(
  prepare: () => T,
  task: (input: T) => unknown,
  baseline: (input: T) => unknown,
  /** Timed CPU to gather at least: more where the two sides differ by less than a round's noise. */
  minTimedMs = 1500,
): PairTiming => {
  if (gc === undefined)
    throw new Error(
      'measurePair needs node --expose-gc (settling the inputs before every timed run is part of the method)',
    );
  const time = (run: (input: T) => unknown): number => {
    const input = prepare();
    settle();
    const t0 = cpuMs();
    run(input);
    return cpuMs() - t0;
  };
  let warm = 0;
  for (let round = 0; round < 5 || warm < 200; round++) warm += time(task) + time(baseline);
  const samples: number[] = [];
  const baselineSamples: number[] = [];
  const ratios: number[] = [];
  let timed = 0;
  for (let round = 0; round < 300 && (round < 11 || timed < minTimedMs); round++) {
    const taskFirst = round % 2 === 0;
    const first = time(taskFirst ? task : baseline);
    const second = time(taskFirst ? baseline : task);
    const [taskMs, baselineMs] = taskFirst ? [first, second] : [second, first];
    samples.push(taskMs);
    baselineSamples.push(baselineMs);
    ratios.push(taskMs / baselineMs);
    timed += taskMs + baselineMs;
  }
  return {
    medianMs: median(samples),
    baselineMedianMs: median(baselineSamples),
    ratio: median(ratios),
    ratioQuartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
    iterations: samples.length,
  };
};

/**
 * CPU time of this process in ms: on a shared machine a synchronous run's CPU time is what it
 * costs, where wall time also counts the time other processes held the core.
 */
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** The middle sample (the upper middle of an even count). */
export const median = (samples: ReadonlyArray<number>): number => quantile(samples, 0.5);

/** The sample at fraction `q` of the sorted samples (nearest rank). */
export const quantile = (samples: ReadonlyArray<number>, q: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;
};

/**
 * Bytes allocated by one run of `task` on prepared input, garbage included: V8's sampling heap
 * profiler with collected objects kept (an unbiased estimate; interval 256 bytes). Needs no
 * flags and does not depend on when the collector runs. Median of 3 runs.
 */
export const allocatedBytes = <T>(prepare: () => T, task: (input: T) => unknown): number => {
  const session = new Session();
  session.connect();
  try {
    const samples = [0, 1, 2].map(() => {
      const input = prepare();
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      task(input);
      let bytes = 0;
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (error !== null) throw error;
        bytes = totalSize(result.profile.head);
      });
      return bytes;
    });
    return median(samples);
  } finally {
    session.disconnect();
  }
};

type ProfileNode = { readonly selfSize: number; readonly children: ReadonlyArray<ProfileNode> };

const totalSize = (node: ProfileNode): number =>
  node.children.reduce((sum, child) => sum + totalSize(child), node.selfSize);

type Collect = (options?: { readonly type: 'minor' | 'major' }) => void;
const gc = (globalThis as { gc?: Collect }).gc;

/**
 * Two scavenges: the inputs `prepare` just built are promoted to the old generation (as objects
 * that outlive two scavenges are), the young one is empty. Not a full collection: that also drops
 * V8's inline and megamorphic lookup caches, which then cost the next run (the code doing more
 * keyed lookups pays more) — a cost a steady process does not have (measured: `plan` on cached
 * inputs at 1 000 resources ~3× slower right after a full collection, microdiff ~1.15×).
 */
const settle = (): void => {
  gc?.({ type: 'minor' });
  gc?.({ type: 'minor' });
};

const collect = (): void => {
  gc?.();
};

/** Heap retained by the value `make` returns (needs `--expose-gc` to be meaningful). */
export const retainedBytes = (make: () => unknown): number => {
  collect();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  collect();
  const after = process.memoryUsage().heapUsed;
  if (kept === undefined) throw new Error('nothing retained');
  return Math.max(0, after - before);
};
