/**
 * Translating a fetched template off the event loop: each job runs in a fresh worker thread with a
 * bounded heap and a deadline; a worker that runs out of memory or time is terminated and the
 * template is reported invalid. The operator's own heap and `/healthz` never pay for a hostile template.
 */
import { Worker } from 'node:worker_threads';
import { invalid, type TranslationJob, type Translation } from './translation.js';

export type IsolationLimits = {
  /** Wall-clock time a translation may take (default 10 s). */
  readonly timeoutMs: number;
  /** Old-generation heap of the worker, in MiB (default 256). */
  readonly maxHeapMb: number;
};

export const defaultIsolationLimits: IsolationLimits = { timeoutMs: 10_000, maxHeapMb: 256 };

// From the TypeScript sources (tests, `tsx`), the worker needs the same loader; compiled, it is plain JS.
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSources ? './translate-worker.ts' : './translate-worker.js', import.meta.url);

/** Runs `job` in a worker thread within `limits`. Never rejects. */
export const translateIsolated = (job: TranslationJob, limits: IsolationLimits): Promise<Translation> =>
  new Promise((resolve) => {
    let settled = false;
    const worker = new Worker(workerUrl, {
      execArgv: fromSources ? ['--import', 'tsx'] : [],
      resourceLimits: {
        maxOldGenerationSizeMb: limits.maxHeapMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, limits.maxHeapMb / 4)),
      },
      stdout: false,
      stderr: false,
    });
    const settle = (translation: Translation): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      void worker.terminate();
      resolve(translation);
    };
    const deadline = setTimeout(
      () =>
        settle(
          invalid(
            `${job.root}: translation exceeds its bound of ${limits.timeoutMs} ms (timeoutMs): simplify the template`,
          ),
        ),
      limits.timeoutMs,
    );
    worker.once('message', (result: Translation) => settle(result));
    worker.once('error', (error: Error & { code?: string }) =>
      settle(
        invalid(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `${job.root}: translation exceeds its bound of ${limits.maxHeapMb} MiB of memory (maxHeapMb): simplify the template`
            : `${job.root}: translation failed (${error.code ?? error.name})`,
        ),
      ),
    );
    worker.once('exit', (code) => settle(invalid(`${job.root}: translation stopped (exit code ${code})`)));
    worker.postMessage(job);
  });
