/** Timing and memory helpers for benchmarks: median of repeated runs, retained heap of a result. */
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
 * Like `measure`, but every run gets inputs from `prepare` (not timed): fresh objects, as the
 * operator sees them after decoding, so identity-keyed caches cannot hit.
 */
export const measureFresh = <T>(prepare: () => T, task: (input: T) => unknown): { readonly medianMs: number; readonly iterations: number } => {
  task(prepare()); task(prepare());
  const samples: number[] = [];
  let timed = 0;
  while (samples.length < 5 || (timed < 250 && samples.length < 200)) {
    const input = prepare();
    const t0 = performance.now();
    task(input);
    const elapsed = performance.now() - t0;
    samples.push(elapsed);
    timed += elapsed;
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(samples.length / 2)] as number, iterations: samples.length };
};

/**
 * Bytes allocated by one run of `task` on prepared input. Needs `--expose-gc` and a young
 * generation larger than the run allocates (`--max-semi-space-size`), so no collection happens
 * inside the run and the heap growth is the allocation; `undefined` where that cannot be had.
 */
export const allocatedBytes = <T>(prepare: () => T, task: (input: T) => unknown): number | undefined => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return undefined;
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const input = prepare();
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = task(input);
    const after = process.memoryUsage().heapUsed;
    if (kept === undefined) throw new Error('nothing returned');
    samples.push(after - before);
  }
  samples.sort((a, b) => a - b);
  return Math.max(0, samples[2] as number);
};

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
