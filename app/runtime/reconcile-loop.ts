/**
 * The reconcile loop: a pool of workers taking keys from the work queue, one reconcile per key at
 * a time, each outcome's requeue (decided by `afterReconcile`, bookkeeping.ts) carried out in the
 * queue. Stopping waits for the reconciles in flight up to a deadline, then abandons them:
 * `mayWrite` turns false for good, so the write fence refuses whatever they still try (a stopped
 * loop and its successor must not write concurrently). Started once, stopped once.
 */
import type { Clock } from '../../core/internal.js';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from './metrics.js';
import { AFTER_DEFECT, type Requeue } from './requeue.js';
import type { WorkQueue } from './work-queue.js';
import { WriteLicence } from './write-fence.js';

/** The key's shard was lost before the reconcile acted: nothing done, queued again once owned. */
export type NotOwned = { readonly _tag: 'NotOwned' };

/**
 * The reconcile did not start because what it reads is not ready yet (child caches syncing): the
 * key is queued again once `until` resolves, its worker free meanwhile, its backoff untouched.
 */
export type Deferred = { readonly _tag: 'Deferred'; readonly until: Promise<void> };

/** A reconcile's outcome: its key's next turn in the queue (decided by `afterReconcile`), `NotOwned` or `Deferred`. */
export type StepOutcome = { readonly _tag: 'Reconciled'; readonly requeue: Requeue } | NotOwned | Deferred;

export const NOT_OWNED: NotOwned = { _tag: 'NotOwned' };

export type ReconcileLoopOptions = {
  readonly queue: WorkQueue;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: Pick<Metrics, 'queueDepth'>;
  /** Concurrent reconciles of different keys. */
  readonly workers: number;
  /** Sharding: a key not owned is not reconciled, and is reported refused (to be queued again once owned). */
  readonly ownership: { owns(key: string): boolean; refused(key: string): void };
  /** One reconcile of `key`; `attempt` is 1 + the failures since its last success. */
  readonly reconcile: (key: string, attempt: number) => Promise<StepOutcome>;
  /**
   * What the reconciles write under: revoked when they are abandoned at the stop deadline (default: one of its own).
   */
  readonly licence?: WriteLicence;
};

export class ReconcileLoop {
  private readonly workers: Array<Promise<void>> = [];
  private started = false;
  private readonly licence: WriteLicence;
  private concurrent = 0;
  /** Keys being reconciled right now; never holds a key twice. */
  readonly inFlight = new Set<string>();
  /** Keys deferred until what they read is ready (see `StepOutcome`), not queued meanwhile. */
  readonly deferred = new Set<string>();

  constructor(private readonly options: ReconcileLoopOptions) {
    this.licence = options.licence ?? new WriteLicence();
  }

  /** Times a key was handed to a worker while already in flight (the queue's guarantee; must stay 0). */
  get concurrentReconciles(): number {
    return this.concurrent;
  }

  /** Starts the workers (once). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (let i = 0; i < this.options.workers; i++) this.workers.push(this.work());
  }

  /**
   * Shuts the queue down and waits for the reconciles in flight, up to `deadlineMs`.
   * Guarantees: resolves true when all finished in time; otherwise they are abandoned (`mayWrite`
   * is false from then on) and it resolves false. Leaves no timer behind.
   */
  async stop(deadlineMs: number): Promise<boolean> {
    this.options.queue.shutdown();
    let cancelDeadline: (() => void) | undefined;
    const finished =
      deadlineMs <= 0 && this.inFlight.size > 0
        ? false
        : await Promise.race([
            Promise.all(this.workers).then(() => true),
            new Promise<boolean>((resolve) => {
              cancelDeadline = this.options.clock.setTimer(deadlineMs, () => resolve(false));
            }),
          ]);
    cancelDeadline?.();
    if (!finished) this.licence.revoke();
    return finished;
  }

  /** False once reconciles still in flight were abandoned at the stop deadline: their writes must not be sent. */
  mayWrite(): boolean {
    return this.licence.valid;
  }

  private async work(): Promise<void> {
    const { queue } = this.options;
    for (;;) {
      // A key ready now is taken without a promise (a resync readies every key at once); else wait for one.
      const key = queue.tryGet() ?? (await queue.get());
      if (key === undefined) return;
      this.options.metrics?.queueDepth.set(queue.depth);
      if (!this.options.ownership.owns(key)) {
        this.refuse(key);
        queue.done(key);
        continue;
      }
      if (this.inFlight.has(key)) this.concurrent++;
      this.inFlight.add(key);
      try {
        const outcome = await this.options.reconcile(key, queue.attempts(key) + 1);
        if (outcome._tag === 'NotOwned') this.refuse(key);
        else if (outcome._tag === 'Deferred') this.defer(key, outcome.until);
        else this.requeue(key, outcome.requeue);
      } catch (defect) {
        this.options.logger.error({ key, err: String(defect) }, 'reconcile crashed (defect); backing off');
        this.requeue(key, AFTER_DEFECT);
      } finally {
        this.inFlight.delete(key);
        queue.done(key);
      }
    }
  }

  private defer(key: string, until: Promise<void>): void {
    if (this.deferred.has(key)) return;
    this.deferred.add(key);
    void until.then(() => {
      this.deferred.delete(key);
      this.options.queue.add(key);
    });
  }

  private refuse(key: string): void {
    this.options.queue.forget(key);
    this.options.ownership.refused(key);
  }

  private requeue(key: string, requeue: Requeue): void {
    const { queue } = this.options;
    if (requeue._tag === 'Backoff') {
      queue.addRateLimited(key, requeue.atLeastMs, requeue.capMs);
      return;
    }
    queue.forget(key);
    if (requeue.afterMs !== undefined) queue.addAfter(key, requeue.afterMs);
  }
}
