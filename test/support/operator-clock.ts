/** Driving an operator on the memory cluster's manual clock, shared by the operator tests. */
import { flushMicrotasks, type ManualClock } from '../../adapters/memory/index.js';

/** Advances `clock` 100 ms at a time, letting answers settle, until `done` or `ms` have passed. */
export const runUntil = async (clock: ManualClock, done: () => boolean, ms = 30_000): Promise<void> => {
  for (let t = 0; t < ms && !done(); t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  await flushMicrotasks();
};

/** Random numbers that differ at each call (Event names are drawn from them: equal ones would collide). */
export const distinct = (): (() => number) => {
  let calls = 0;
  return () => (((calls++ * 0.618033988749895) % 1) + 1) % 1;
};
