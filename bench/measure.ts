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
  readonly [extra: string]: unknown;
};

/** Runs `task` repeatedly (≥ 5 runs and ≥ 250 ms after 2 warm-ups) and reports the median. */
export const measure = (task: () => unknown): { readonly medianMs: number; readonly iterations: number } => {
  task(); task();
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

/**
 * Times (CPU time) `task` against `baseline` in alternation (A, B, A, B …), each run on inputs from
 * `prepare` (not timed), and reports both medians: both sides see the same machine load, so
 * their ratio holds on a busy machine. Fresh inputs (new objects every run, as the operator
 * has after decoding) keep identity-keyed caches from hitting; pass a constant for cached runs.
 */
export const measurePair = <T>(prepare: () => T, task: (input: T) => unknown, baseline: (input: T) => unknown): {
  readonly medianMs: number; readonly baselineMedianMs: number; readonly iterations: number;
} => {
  task(prepare()); baseline(prepare()); task(prepare()); baseline(prepare());
  const samples: number[] = [];
  const baselineSamples: number[] = [];
  let timed = 0;
  const time = (run: (input: T) => unknown, into: number[]): void => {
    const input = prepare();
    const t0 = cpuMs();
    run(input);
    const elapsed = cpuMs() - t0;
    into.push(elapsed);
    timed += elapsed;
  };
  while (samples.length < 7 || (timed < 500 && samples.length < 200)) {
    time(task, samples);
    time(baseline, baselineSamples);
  }
  return { medianMs: median(samples), baselineMedianMs: median(baselineSamples), iterations: samples.length };
};

/**
 * CPU time of this process in ms: on a shared machine a synchronous run's CPU time is what it
 * costs, where wall time also counts the time other processes held the core.
 */
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const median = (samples: number[]): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
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
      session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
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

const collect = (): void => { (globalThis as { gc?: () => void }).gc?.(); };

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
