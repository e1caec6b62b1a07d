/**
 * Runs a task while moving a manual clock forward, so injected latency (which waits on the
 * clock) completes instead of deadlocking a test that awaits the task.
 */
import type { ManualClock } from '../../adapters/memory/clock/manual-clock.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Awaits `task`, advancing `clock` by `stepMs` whenever the task is blocked on time. */
export const drive = async <T>(clock: ManualClock, task: Promise<T>, stepMs = 50): Promise<T> => {
  let finished = false;
  const done = task.finally(() => {
    finished = true;
  });
  done.catch(() => {
    /* observed by the caller through the returned promise */
  });
  for (let idle = 0; !finished; idle++) {
    await tick();
    if (!finished && clock.pending() > 0) await clock.advance(stepMs);
    if (idle > 1_000_000) throw new Error('drive: the task never finished');
  }
  return done;
};
