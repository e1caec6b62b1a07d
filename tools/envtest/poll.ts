/** Polling with a deadline, failing fast when a watched process dies (used by every readiness wait). */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManagedProcess } from './managed-process.js';

export type PollOptions = {
  readonly what: string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Abort early when one of these exits: waiting for a dead process only wastes the timeout. */
  readonly processes?: ReadonlyArray<ManagedProcess>;
  /** Extra detail for the timeout message (e.g. `/readyz?verbose`). */
  readonly explain?: () => Promise<string>;
};

/** Calls `attempt` until it returns true; throws with a reason on timeout or process exit. */
export const pollUntil = async (attempt: () => Promise<boolean>, options: PollOptions): Promise<void> => {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const dead = options.processes?.find((p) => !p.isRunning());
    if (dead) throw new Error(`${dead.name} exited while waiting for ${options.what}`);
    if (await attempt()) return;
    if (Date.now() > deadline) {
      const detail = options.explain ? `\n${await options.explain()}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${detail}`);
    }
    await sleep(options.intervalMs ?? 250);
  }
};
