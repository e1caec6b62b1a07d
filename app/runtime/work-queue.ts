/**
 * The work queue (controller-runtime/client-go style): one slot per key, events coalesced while
 * queued or running, delayed requeues where the earliest wins, per-key exponential backoff.
 */
import { backoffDelay, defaultBackoff, type Backoff, type Clock } from '../../core/internal.js';

type Entry = {
  /** Waiting to be handed out. */
  queued: boolean;
  /** Handed to a worker and not yet `done`. */
  running: boolean;
  /** An immediate add arrived while running: requeue on `done`. */
  dirty: boolean;
  /** Time (clock ms) of the pending delayed add, and its cancel. */
  dueAt?: number;
  cancel?: () => void;
  /** When it was last made ready (for queue latency). */
  readySince?: number;
};

export type WorkQueueOptions = {
  readonly backoff?: Backoff;
  /** [0, 1) for jitter. */
  readonly random: () => number;
  /** Called with the time an item waited between ready and handed out (ms). */
  readonly onHandOut?: (waitedMs: number) => void;
};

export class WorkQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly ready: string[] = [];
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private readonly failures = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly options: WorkQueueOptions,
  ) {}

  /** Makes `key` ready now (coalesced with a pending or running one). */
  add(key: string): void {
    if (this.closed) return;
    const entry = this.entry(key);
    if (entry.running) {
      entry.dirty = true;
      return;
    }
    this.cancelDelay(entry);
    if (!entry.queued) this.makeReady(key, entry);
  }

  /** Makes `key` ready after `ms`; an earlier pending time wins. */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const entry = this.entry(key);
    if (entry.queued || entry.dirty) return;
    const dueAt = this.clock.now() + ms;
    if (entry.dueAt !== undefined && entry.dueAt <= dueAt) return;
    this.cancelDelay(entry);
    entry.dueAt = dueAt;
    entry.cancel = this.clock.setTimer(ms, () => this.fire(key));
  }

  /**
   * Requeues after a failure: exponential backoff per key (at most `capMs` when given), at least `retryAfterMs`.
   * Returns the delay.
   */
  addRateLimited(key: string, retryAfterMs = 0, capMs = Number.POSITIVE_INFINITY): number {
    const attempt = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempt);
    const delay = Math.max(
      Math.min(capMs, backoffDelay(attempt, this.options.random(), this.options.backoff ?? defaultBackoff)),
      retryAfterMs,
    );
    this.addAfter(key, delay);
    return delay;
  }

  /** Failures recorded for `key` (the next attempt number is this + 1). */
  attempts(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Resets the backoff of `key` after a success. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The next ready key, waiting for one; `undefined` once shut down. */
  get(): Promise<string | undefined> {
    const key = this.ready.shift();
    if (key !== undefined) return Promise.resolve(this.handOut(key));
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next ready key without waiting (`undefined` when none is ready). */
  tryGet(): string | undefined {
    const key = this.ready.shift();
    return key === undefined ? undefined : this.handOut(key);
  }

  /** Marks `key` finished; it is requeued if it was added while running. */
  done(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined || !entry.running) return;
    entry.running = false;
    if (entry.dirty) {
      entry.dirty = false;
      this.cancelDelay(entry);
      this.makeReady(key, entry);
    } else if (entry.dueAt === undefined) this.entries.delete(key);
  }

  /** Stops handing out work; waiting `get`s resolve `undefined`; timers are cancelled. */
  shutdown(): void {
    this.closed = true;
    for (const entry of this.entries.values()) this.cancelDelay(entry);
    this.ready.length = 0;
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  /** Keys ready to be handed out. */
  get depth(): number {
    return this.ready.length;
  }

  /** Whether a key is queued, running or scheduled. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Keys being processed now. */
  get running(): ReadonlyArray<string> {
    return [...this.entries].filter(([, e]) => e.running).map(([k]) => k);
  }

  private entry(key: string): Entry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { queued: false, running: false, dirty: false };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private fire(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined || this.closed) return;
    entry.dueAt = undefined;
    entry.cancel = undefined;
    if (entry.running) {
      entry.dirty = true;
      return;
    }
    if (!entry.queued) this.makeReady(key, entry);
  }

  private makeReady(key: string, entry: Entry): void {
    entry.queued = true;
    entry.readySince = this.clock.now();
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter(this.handOut(key));
    else this.ready.push(key);
  }

  private handOut(key: string): string {
    const entry = this.entry(key);
    entry.queued = false;
    entry.running = true;
    this.options.onHandOut?.(this.clock.now() - (entry.readySince ?? this.clock.now()));
    return key;
  }

  private cancelDelay(entry: Entry): void {
    entry.cancel?.();
    entry.cancel = undefined;
    entry.dueAt = undefined;
  }
}
