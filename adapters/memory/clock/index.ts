/** Clocks the server runs on: the manual clock tests and simulations advance, and the system clock. */
export { ManualClock, flushMicrotasks } from './manual-clock.js';
export { systemClock } from './system-clock.js';
