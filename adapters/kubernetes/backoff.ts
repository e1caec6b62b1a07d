/** Capped exponential backoff with jitter for reconnects and relists. */

export type BackoffOptions = {
  /** First delay (default 200 ms). */
  readonly initialMs?: number;
  /** Upper bound (default 5 s: a restarted apiserver is picked up within seconds). */
  readonly maxMs?: number;
};

/**
 * Delay before retry number `attempt` (0-based): initial·2^attempt capped at max, then up to
 * 20 % jitter so many watchers do not reconnect in lock step.
 */
export const backoffDelay = (
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number => {
  const initial = options.initialMs ?? 200;
  const max = options.maxMs ?? 5_000;
  const base = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(base * (1 + 0.2 * random()));
};
