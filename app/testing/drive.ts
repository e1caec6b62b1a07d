/**
 * Runs a task while moving a manual clock forward, so injected latency (which waits on the
 * clock) completes instead of deadlocking a test that awaits the task. It waits on timers and
 * I/O, never in a busy loop: when nothing on the clock is due, it sleeps 1 ms of real time.
 */
import type { ManualClock } from '../../adapters/memory/clock/manual-clock.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const nap = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

export type DriveOptions = {
  /** Clock time moved per step while the task is blocked (default 50 ms). */
  readonly stepMs?: number;
  /** Real time the task may take (default 30 s): past it, drive rejects. */
  readonly withinMs?: number;
};

/** Awaits `task`, advancing `clock` by `stepMs` whenever the task is blocked on time. */
export const drive = async <T>(
  clock: ManualClock,
  task: Promise<T>,
  options: number | DriveOptions = {},
): Promise<T> => {
  const { stepMs = 50, withinMs = 30_000 } = typeof options === 'number' ? { stepMs: options } : options;
  let finished = false;
  const done = task.finally(() => {
    finished = true;
  });
  done.catch(() => {
    /* observed by the caller through the returned promise */
  });
  const deadline = performance.now() + withinMs;
  while (!finished) {
    await tick();
    if (finished) break;
    const next = clock.nextTimerAt();
    if (next !== undefined) await clock.advance(stepMs);
    // nothing due within this step: the task waits on I/O (or a later timer), so sleep instead of spinning
    if (next === undefined || next > clock.now()) await nap();
    if (performance.now() > deadline)
      throw new Error(
        `drive: the task did not finish within ${withinMs} ms of real time (waiting on something other than the clock?)`,
      );
  }
  return done;
};
