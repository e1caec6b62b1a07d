/** Waiting for the world to reach a state (real servers are asynchronous; tests assert the end state). */
import { setTimeout as sleep } from 'node:timers/promises';

/** Retries `check` until it stops throwing; rethrows its last failure after `timeoutMs`. */
export const eventually = async <A>(check: () => Promise<A> | A, timeoutMs = 30_000, intervalMs = 100): Promise<A> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(intervalMs);
    }
  }
};
