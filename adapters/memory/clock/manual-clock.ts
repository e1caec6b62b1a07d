/**
 * A virtual clock for tests: time moves only when told to, timers fire in due order, and the
 * promise continuations a timer unblocks run before the next timer fires.
 */
import type { Clock } from '../../../core/ports/cluster.js';

type Timer = { readonly at: number; readonly seq: number; readonly callback: () => void };

/** Lets every pending promise continuation run (a macrotask turn drains the microtask queue). */
export const flushMicrotasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class ManualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  /** Starts at `start` (ms since the epoch; 2025-01-01T00:00:00Z by default). */
  constructor(start: number = Date.UTC(2025, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.setTimer(ms, resolve);
    });
  }

  /** Number of timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }

  /** When the next timer is due, if any. */
  nextTimerAt(): number | undefined {
    return this.nextTimer()?.at;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way in (time, creation) order;
   * each timer sees `now()` equal to its due time, and the work it unblocks runs before the next.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await flushMicrotasks();
    for (let timer = this.nextTimer(); timer !== undefined && timer.at <= target; timer = this.nextTimer()) {
      this.fire(timer);
      await flushMicrotasks();
    }
    this.current = target;
  }

  /**
   * Fires timers (jumping time to each) until none is left within `maxMs` from now.
   * Throws after `maxTimers` firings: a periodic timer (watch bookmarks) never lets the clock
   * idle, so bound such runs with `maxMs`.
   */
  async runUntilIdle(options: { readonly maxMs?: number; readonly maxTimers?: number } = {}): Promise<void> {
    const horizon = this.current + (options.maxMs ?? Number.POSITIVE_INFINITY);
    const maxTimers = options.maxTimers ?? 10_000;
    await flushMicrotasks();
    for (
      let fired = 0, timer = this.nextTimer();
      timer !== undefined && timer.at <= horizon;
      timer = this.nextTimer(), fired++
    ) {
      if (fired >= maxTimers)
        throw new Error(
          `ManualClock.runUntilIdle: still busy after ${maxTimers} timers (a periodic timer? pass maxMs)`,
        );
      this.fire(timer);
      await flushMicrotasks();
    }
  }

  private nextTimer(): Timer | undefined {
    return this.timers.reduce<Timer | undefined>(
      (best, t) => (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq) ? t : best),
      undefined,
    );
  }

  private fire(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.current = Math.max(this.current, timer.at);
    timer.callback();
  }
}
