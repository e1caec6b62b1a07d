/** The real clock: wall time and host timers, for the embedded cluster outside tests. */
import type { Clock } from '../../../core/ports/cluster.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, callback) => {
    const handle = setTimeout(callback, Math.max(0, ms));
    return () => clearTimeout(handle);
  },
  sleep: (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, Math.max(0, ms));
    }),
};
