/**
 * Translating a fetched template off the event loop: each job runs in a fresh worker thread with a
 * bounded heap and a deadline (app/isolation/isolated-worker.ts, shared with readiness rules); a
 * worker that runs out of memory or time is terminated and the template is reported invalid. The
 * operator's own heap and `/healthz` never pay for a hostile template.
 */
import { ask, spawnIsolated, workerEntry, type IsolationLimits } from '../isolation/isolated-worker.js';
import { invalid, type TranslationJob, type Translation } from './translation.js';

export type { IsolationLimits };

export const defaultIsolationLimits: IsolationLimits = { timeoutMs: 10_000, maxHeapMb: 256 };

const workerUrl = workerEntry('./translate-worker', import.meta.url);

/** The worker's answer: a `Translation` it built (anything else is a worker that misbehaved). */
const translationOf = (message: unknown): Translation =>
  typeof message === 'object' &&
  message !== null &&
  '_tag' in message &&
  message._tag === 'Translated' &&
  'manifest' in message &&
  Array.isArray(message.manifest)
    ? { _tag: 'Translated', manifest: message.manifest }
    : typeof message === 'object' && message !== null && 'message' in message && typeof message.message === 'string'
      ? invalid(message.message, 'retryable' in message && message.retryable === true)
      : invalid('translation answered nothing usable');

/** Runs `job` in a worker thread within `limits`. Never rejects. */
export const translateIsolated = async (job: TranslationJob, limits: IsolationLimits): Promise<Translation> => {
  const worker = spawnIsolated(workerUrl, limits);
  const outcome = await ask(worker, job, limits.timeoutMs, translationOf);
  if (outcome._tag === 'Answered') {
    void worker.terminate();
    return outcome.answer;
  }
  if (outcome._tag === 'OverTime')
    return invalid(
      `${job.root}: translation exceeds its bound of ${limits.timeoutMs} ms (timeoutMs): simplify the template`,
    );
  if (outcome._tag === 'OverMemory')
    return invalid(
      `${job.root}: translation exceeds its bound of ${limits.maxHeapMb} MiB of memory (maxHeapMb): simplify the template`,
    );
  return invalid(`${job.root}: translation stopped (${outcome.why})`);
};
