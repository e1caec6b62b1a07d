/**
 * The kit's clock for an in-process controller's own timers (app/testing/virtual-time.ts):
 * `node:timers/promises` and `node:timers` imports (live ESM bindings, as a controller module
 * holds them) answer from the run's ManualClock inside the run's context, from the real ones
 * outside it, and are the originals again once the run ends.
 */
import * as timersNamespace from 'node:timers';
import { setTimeout as timersSetTimeout } from 'node:timers';
import * as promisesNamespace from 'node:timers/promises';
import { scheduler, setImmediate as nextTurn, setInterval as every, setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../app/testing/index.js';
import { virtualTime } from '../../../app/testing/virtual-time.js';

/** The exports a controller imports, as they are now. */
const exportsNow = () => ({
  sleep: promisesNamespace.setTimeout,
  every: promisesNamespace.setInterval,
  nextTurn: promisesNamespace.setImmediate,
  scheduler: promisesNamespace.scheduler,
  timersSetTimeout: timersNamespace.setTimeout,
  timersClearTimeout: timersNamespace.clearTimeout,
});
const originals = exportsNow();

/** A run on a fresh clock at 0; `body` gets them and must not leave the globals patched. */
const withRun = async (body: (clock: ManualClock, enter: <T>(task: () => T) => T) => Promise<void>): Promise<void> => {
  const clock = new ManualClock(0);
  const time = virtualTime(clock, (error) => {
    throw error;
  });
  try {
    await body(clock, time.enter);
  } finally {
    time.restore();
  }
};

/** Whether `promise` has settled after the microtasks and I/O of one turn. */
const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('virtual time: node:timers/promises and node:timers', () => {
  it('setTimeout of timers/promises (a backoff) waits on the run clock, not in real time', async () => {
    await withRun(async (clock, enter) => {
      const started = performance.now();
      const woke = enter(() => sleep(30_000, 'woke'));
      await clock.advance(29_999);
      expect(await settled(woke)).toBe(false);
      await clock.advance(1);
      expect(await woke).toBe('woke');
      expect(performance.now() - started).toBeLessThan(5_000);
      // scheduler.wait and util.promisify(setTimeout) are the same sleep
      const waited = enter(() => scheduler.wait(500));
      const promisified = enter(() => promisify(setTimeout)(700, 'promisified'));
      await clock.advance(500);
      expect(await settled(waited)).toBe(true);
      expect(await settled(promisified)).toBe(false);
      await clock.advance(200);
      expect(await promisified).toBe('promisified');
    });
  });

  it('setInterval of timers/promises ticks on the run clock; setImmediate is a turn of it', async () => {
    await withRun(async (clock, enter) => {
      const ticks = enter(async () => {
        const at: number[] = [];
        for await (const _ of every(1_000)) {
          at.push(Date.now());
          await nextTurn();
          if (at.length === 3) break;
        }
        return at;
      });
      for (let i = 0; i < 4; i++) await clock.advance(1_000);
      expect(await ticks).toEqual([1_000, 2_000, 3_000]);
      // the loop's break ended the iterator: no timer is left on the clock
      expect(clock.nextTimerAt()).toBeUndefined();
    });
  });

  it("an aborted sleep rejects with AbortError and leaves no timer; calls outside the run's context keep real time", async () => {
    await withRun(async (clock, enter) => {
      const controller = new AbortController();
      const sleeping = enter(() => sleep(10_000, undefined, { signal: controller.signal }));
      controller.abort();
      await expect(sleeping).rejects.toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
      expect(clock.nextTimerAt()).toBeUndefined();
      // the test runner's own sleep, while the run is patched: real time, the run clock stays at 0
      expect(await sleep(5, 'real')).toBe('real');
      expect(clock.now()).toBe(0);
    });
  });

  it("node:timers' setTimeout and clearTimeout, imported by name, are the run clock's too", async () => {
    await withRun(async (clock, enter) => {
      const fired: number[] = [];
      enter(() => {
        timersSetTimeout(() => {
          fired.push(Date.now());
          // set from a timer's callback: still the run's (a retry chain stays on the clock)
          timersSetTimeout(() => fired.push(Date.now()), 500);
        }, 2_000);
        const cancelled = timersNamespace.setTimeout(() => fired.push(-1), 1_000);
        timersNamespace.clearTimeout(cancelled);
      });
      await clock.advance(2_000);
      await clock.advance(500);
      expect(fired).toEqual([2_000, 2_500]);
    });
  });

  it('after the run: the module exports are the originals, and a sleep of the ended run never wakes', async () => {
    const clock = new ManualClock(0);
    const time = virtualTime(clock, () => undefined);
    expect(promisesNamespace.setTimeout).not.toBe(originals.sleep);
    const dormant = time.enter(() => sleep(1_000));
    time.restore();
    expect(exportsNow()).toEqual(originals);
    expect(sleep).toBe(originals.sleep);
    expect(timersSetTimeout).toBe(originals.timersSetTimeout);
    await clock.advance(5_000);
    expect(await settled(dormant)).toBe(false);
  });
});
