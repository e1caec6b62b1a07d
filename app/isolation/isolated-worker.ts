/**
 * Running tenant code off the event loop (docs/decisions/0025-isolated-tenant-expressions.md): a
 * worker thread with a bounded heap, asked one job at a time with a deadline. A job that runs out
 * of memory or time ends its worker (terminated: a synchronous loop cannot be interrupted any
 * other way), and the caller learns which bound it hit. The operator's own heap, its main loop and
 * `/healthz` never pay for it. TOSCA translation (app/tosca/isolated.ts) and readiness rules
 * (worker-pool.ts) both run this way.
 */
import { Worker } from 'node:worker_threads';

export type IsolationLimits = {
  /** Wall-clock time one job may take, in ms. */
  readonly timeoutMs: number;
  /** Old-generation heap of the worker, in MiB. */
  readonly maxHeapMb: number;
};

/** How a job ended: its answer, or the bound it hit, or how its worker stopped. */
export type Outcome<A> =
  | { readonly _tag: 'Answered'; readonly answer: A }
  | { readonly _tag: 'OverTime' }
  | { readonly _tag: 'OverMemory' }
  | { readonly _tag: 'Crashed'; readonly why: string };

// From the TypeScript sources (tests, `tsx`), a worker needs the same loader; compiled, it is plain JS.
const fromSources = import.meta.url.endsWith('.ts');

/** The URL of worker entry `name` (without extension) next to `base` (a module's `import.meta.url`). */
export const workerEntry = (name: string, base: string): URL =>
  new URL(`${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);

/**
 * A worker thread running `entry` within `limits`' heap, its output not inherited (a tenant's text never reaches the
 * logs).
 */
export const spawnIsolated = (entry: URL, limits: IsolationLimits): Worker =>
  withQuietErrors(
    new Worker(entry, {
      execArgv: fromSources ? ['--import', 'tsx'] : [],
      resourceLimits: {
        maxOldGenerationSizeMb: limits.maxHeapMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, limits.maxHeapMb / 4)),
      },
      stdout: false,
      stderr: false,
    }),
  );

/**
 * A worker's `error` outside a job (out of memory after its deadline passed, or while it is being
 * terminated) has no job to report to; without a listener Node would throw it in the operator's
 * own process. The job that was waiting already got its outcome; the caller replaces the worker.
 */
const withQuietErrors = (worker: Worker): Worker => worker.on('error', () => undefined);

/**
 * Waits for `worker`'s next message, at most `timeoutMs`. Never rejects. Any outcome but
 * `Answered` leaves the worker terminated (or terminating): the caller replaces it.
 */
export const listen = <A>(worker: Worker, timeoutMs: number, decode: (message: unknown) => A): Promise<Outcome<A>> =>
  new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome<A>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (outcome._tag !== 'Answered') void worker.terminate();
      resolve(outcome);
    };
    const onMessage = (message: unknown): void => settle({ _tag: 'Answered', answer: decode(message) });
    const onError = (error: Error & { code?: string }): void =>
      settle(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { _tag: 'OverMemory' }
          : { _tag: 'Crashed', why: error.code ?? error.name },
      );
    const onExit = (code: number): void => settle({ _tag: 'Crashed', why: `exit code ${code}` });
    const deadline = setTimeout(() => settle({ _tag: 'OverTime' }), timeoutMs);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });

/** Sends `job` to `worker` and waits for its one answer, at most `timeoutMs` (see `listen`). */
export const ask = <A>(
  worker: Worker,
  job: unknown,
  timeoutMs: number,
  decode: (message: unknown) => A,
): Promise<Outcome<A>> => {
  const answer = listen(worker, timeoutMs, decode);
  worker.postMessage(job);
  return answer;
};
