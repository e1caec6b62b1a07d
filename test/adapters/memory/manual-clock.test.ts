/** The manual clock: virtual time, ordered timers, and continuations between them. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../adapters/memory/index.js';

describe('ManualClock', () => {
  it('does not move by itself; advance moves now and fires due timers in (time, creation) order', async () => {
    const clock = new ManualClock(1_000);
    const fired: Array<[string, number]> = [];
    clock.setTimer(300, () => fired.push(['c', clock.now()]));
    clock.setTimer(100, () => fired.push(['a', clock.now()]));
    clock.setTimer(100, () => fired.push(['b', clock.now()]));
    expect(clock.pending()).toBe(3);
    await clock.advance(99);
    expect(fired).toEqual([]);
    expect(clock.now()).toBe(1_099);
    await clock.advance(201);
    expect(fired).toEqual([
      ['a', 1_100],
      ['b', 1_100],
      ['c', 1_300],
    ]);
    expect(clock.now()).toBe(1_300);
    expect(clock.pending()).toBe(0);
  });

  it('a cancelled timer never fires', async () => {
    const clock = new ManualClock(0);
    let fired = false;
    const cancel = clock.setTimer(10, () => {
      fired = true;
    });
    cancel();
    await clock.advance(100);
    expect(fired).toBe(false);
  });

  it('sleep resolves when the clock passes it, and the work it unblocks runs before the next timer', async () => {
    const clock = new ManualClock(0);
    const log: string[] = [];
    void (async () => {
      await clock.sleep(50);
      log.push(`woke at ${clock.now()}`);
      await clock.sleep(50);
      log.push(`woke again at ${clock.now()}`);
    })();
    clock.setTimer(60, () => log.push('timer at 60'));
    await clock.advance(200);
    expect(log).toEqual(['woke at 50', 'timer at 60', 'woke again at 100']);
  });

  it('runUntilIdle jumps to each timer until none is left, and stops at maxMs', async () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    const tick = (): void => {
      seen.push(clock.now());
      if (seen.length < 3) clock.setTimer(1_000, tick);
    };
    clock.setTimer(1_000, tick);
    await clock.runUntilIdle();
    expect(seen).toEqual([1_000, 2_000, 3_000]);
    const periodic = (): void => {
      clock.setTimer(10, periodic);
    };
    clock.setTimer(10, periodic);
    await clock.runUntilIdle({ maxMs: 100 });
    expect(clock.now()).toBe(3_100);
    await expect(clock.runUntilIdle({ maxTimers: 5 })).rejects.toThrow(/still busy/);
  });
});
