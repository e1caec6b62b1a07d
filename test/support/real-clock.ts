/** Wall-clock time for suites that drive the runtime against a real server (unit tests use a manual clock). */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../core/ports/cluster.js';

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
  sleep: (ms) => sleep(ms),
};
