/** Real timers behind the ports' `Clock.setTimer` shape, so watch code can run on virtual time in tests. */
import type { Clock } from '../../core/ports/cluster.js';

export type SetTimer = Clock['setTimer'];

export const realSetTimer: SetTimer = (ms, callback) => {
  const timer = setTimeout(callback, ms);
  // Pending reconnects must not keep a finished process alive.
  timer.unref();
  return () => clearTimeout(timer);
};
