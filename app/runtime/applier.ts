/**
 * The applier (after kube-runtime's `applier`): one stream of keys in (triggers), the work queue,
 * a pool of workers running `reconcile` on one key at a time (reconcile-loop.ts), and each report
 * turned by the `errorPolicy` (`afterReconcile`, bookkeeping.ts) into the key's next book and the
 * effects carried out here: a kind forgotten, discovery asked again for kinds not served, the
 * key's next turn in the queue. It owns the keys' books and the lifecycle: start waits for the
 * primaries' first list, stop lets the reconciles in flight finish up to a deadline.
 */
import type { Application, Clock, Resource } from '../../core/internal.js';
import type { Logger } from '../logging/logger.js';
import type { KeyBook, KeyEffect, KeyStep, ReconcileReport } from './bookkeeping.js';
import type { ChildWatches } from './child-watches.js';
import type { KnownScopes, UnservedKinds } from './known-scopes.js';
import type { Metrics } from './metrics.js';
import type { PrimaryChange, PrimaryStore } from './primary-store.js';
import { ReconcileLoop, type StepOutcome } from './reconcile-loop.js';
import type { StepReport } from './reconcile-step.js';
import type { Requeue } from './requeue.js';
import type { OwnedKeys } from './sharding/owned-keys.js';
import type { WorkQueue } from './work-queue.js';
import type { WriteLicence } from './write-fence.js';
import { defined } from '../../core/json/defined.js';

/** Why a key is looked at: its primary changed or went, or something it depends on changed (`Queued`). */
export type Trigger = PrimaryChange | { readonly _tag: 'Queued'; readonly key: string };

/**
 * The one stream every part emits its keys into (the primary store, the child watches, the
 * dependants, discovery, sharding): built before them, read by the applier once it is built.
 */
export class Triggers {
  private reader: ((trigger: Trigger) => void) | undefined;

  readonly emit = (trigger: Trigger): void => this.reader?.(trigger);

  /** A key to look at (anything but the primary's own change). */
  readonly queue = (key: string): void => this.reader?.({ _tag: 'Queued', key });

  read(reader: (trigger: Trigger) => void): void {
    this.reader = reader;
  }
}

/** One reconcile of a key, given its book (reconcile-step.ts). */
export type Reconcile = (key: string, attempt: number, book: KeyBook | undefined) => Promise<StepReport>;

/** What a report means for its key: its next book and the effects (`afterReconcile` with its policy). */
export type ErrorPolicy = (state: KeyBook | undefined, report: ReconcileReport) => KeyStep;

export type ApplierContext = {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly workers: number;
  /** What the reconciles write under: revoked when they are abandoned at the stop deadline. */
  readonly licence: WriteLicence;
  /** How long `start` waits for the primaries' first list. */
  readonly cacheSyncTimeoutMs: number;
  /** Starts the child watches of a changed primary (absent: children are not watched). */
  readonly watchChildrenOf?: (application: Application) => void;
  /** A primary was deleted: what others keep for it goes (hook tokens). */
  readonly onDeleted?: (object: Resource) => void;
  /** After the watches stopped and the reconciles finished (the rule workers closed). */
  readonly onStopped?: () => Promise<void>;
};

/** The observation parts the applier starts, stops and carries effects out on. */
export type ApplierStores = {
  readonly primary: PrimaryStore;
  readonly children: ChildWatches;
  readonly scopes: KnownScopes;
  readonly unserved: UnservedKinds;
  readonly owned: OwnedKeys;
};

/** `start` gave up waiting for the first list of Applications. */
export class CacheSyncTimeout extends Error {
  override readonly name = 'CacheSyncTimeout';
}

export const applier = (
  reconcile: Reconcile,
  errorPolicy: ErrorPolicy,
  context: ApplierContext,
  stores: ApplierStores,
  queue: { readonly work: WorkQueue; readonly triggers: Triggers },
): Applier => new Applier(reconcile, errorPolicy, context, stores, queue);

export class Applier {
  /** Per key whose primary is there: what `afterReconcile` keeps. */
  private readonly books = new Map<string, KeyBook>();
  private total = 0;
  private readonly loop: ReconcileLoop;
  private readonly work: WorkQueue;
  private lifecycle: 'new' | 'running' | 'stopped' = 'new';
  private stopped: ((value: 'stopped') => void) | undefined;
  private readonly stopping = new Promise<'stopped'>((resolve) => {
    this.stopped = resolve;
  });

  constructor(
    private readonly reconcile: Reconcile,
    private readonly errorPolicy: ErrorPolicy,
    private readonly context: ApplierContext,
    private readonly stores: ApplierStores,
    queue: { readonly work: WorkQueue; readonly triggers: Triggers },
  ) {
    this.work = queue.work;
    queue.triggers.read((trigger) => this.onTrigger(trigger));
    this.loop = new ReconcileLoop({
      queue: queue.work,
      clock: context.clock,
      logger: context.logger,
      ...defined({ metrics: context.metrics }),
      workers: context.workers,
      ownership: stores.owned,
      reconcile: (key, attempt) => this.reconcileOnce(key, attempt),
      licence: context.licence,
    });
  }

  /**
   * Starts watching and reconciling; resolves once the primaries are listed. Runs once: `start`
   * after `stop` throws. Rejects with `CacheSyncTimeout` when the first list does not succeed
   * within `cacheSyncTimeoutMs` (controller-runtime's), everything started stopped again.
   */
  async start(): Promise<void> {
    if (this.lifecycle === 'running') return;
    if (this.lifecycle === 'stopped')
      throw new Error('this Controller was stopped and does not start again: create a new Controller');
    this.lifecycle = 'running';
    const timeoutMs = this.context.cacheSyncTimeoutMs;
    let cancelTimeout: (() => void) | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      cancelTimeout = this.context.clock.setTimer(timeoutMs, () => resolve('timeout'));
    });
    const primary = this.stores.primary.start().then(() => 'synced' as const);
    const synced = await Promise.race([primary, timedOut, this.stopping]);
    cancelTimeout?.();
    if (synced === 'stopped') return;
    if (synced === 'timeout') {
      await this.stop(0);
      throw new CacheSyncTimeout(
        `the Applications could not be listed within ${timeoutMs} ms (see the API errors logged); is the Application CRD installed and may this identity list it?`,
      );
    }
    this.loop.start();
    // The primaries just listed are queued already: from now on only newly owned ones are.
    this.stores.owned.start();
    this.context.logger.info({ applications: this.stores.primary.size }, 'controller started');
  }

  /**
   * Stops taking work, lets in-flight reconciles finish (up to `deadlineMs`; then they are
   * abandoned: their writes are refused, never sent), stops the watches. Resolves true when
   * everything in flight finished in time. Idempotent; leaves no timer behind.
   */
  async stop(deadlineMs: number): Promise<boolean> {
    if (this.lifecycle !== 'running') {
      this.lifecycle = 'stopped';
      return true;
    }
    this.lifecycle = 'stopped';
    this.stopped?.('stopped');
    const { owned, unserved, primary, children } = this.stores;
    owned.stop();
    unserved.stop();
    primary.stop();
    children.stop();
    const finished = await this.loop.stop(deadlineMs);
    await this.context.onStopped?.();
    this.context.logger.info({ finished }, 'controller stopped');
    return finished;
  }

  get running(): boolean {
    return this.lifecycle === 'running';
  }

  get started(): boolean {
    return this.lifecycle !== 'new';
  }

  get reconcileCount(): number {
    return this.total;
  }

  /** Reconciles per key whose primary is there (a copy: the books are the applier's). */
  get reconcilesByKey(): ReadonlyMap<string, number> {
    return new Map([...this.books].map(([key, book]) => [key, book.reconciles]));
  }

  get inFlight(): ReadonlySet<string> {
    return this.loop.inFlight;
  }

  get concurrentReconciles(): number {
    return this.loop.concurrentReconciles;
  }

  /** Nothing queued, running, or waiting for a cache. */
  get idle(): boolean {
    return this.work.depth === 0 && this.loop.inFlight.size === 0 && this.loop.deferred.size === 0;
  }

  private onTrigger(trigger: Trigger): void {
    const { children, unserved } = this.stores;
    if (trigger._tag === 'Deleted') {
      this.books.delete(trigger.key);
      unserved.release(trigger.key);
      this.context.onDeleted?.(trigger.object);
      children.sweepSoon();
      return;
    }
    if (trigger._tag === 'Changed') {
      if (trigger.application !== undefined) this.context.watchChildrenOf?.(trigger.application);
      if (trigger.replaced) children.sweepSoon();
    }
    this.work.add(trigger.key);
  }

  /** One reconcile: its report through the error policy, the key's book kept, the effects carried out. */
  private async reconcileOnce(key: string, attempt: number): Promise<StepOutcome> {
    const report = await this.reconcile(key, attempt, this.books.get(key));
    if (report._tag === 'NotOwned' || report._tag === 'Deferred') return report;
    this.total++;
    const next = this.errorPolicy(this.books.get(key), report);
    if (next.state === undefined) this.books.delete(key);
    else this.books.set(key, next.state);
    let requeue: Requeue | undefined;
    for (const effect of next.effects) requeue = this.carryOut(key, effect) ?? requeue;
    return { _tag: 'Reconciled', requeue: requeue ?? SETTLED };
  }

  /** Carries out one effect; answers the requeue when it is one. */
  private carryOut(key: string, effect: KeyEffect): Requeue | undefined {
    const { primary, scopes, unserved } = this.stores;
    switch (effect._tag) {
      case 'ForgetKind':
        scopes.forget(effect.kind);
        return undefined;
      case 'StopWaitingForKinds':
        unserved.release(key);
        return undefined;
      case 'WaitForKinds': {
        const application = primary.application(key);
        if (application === undefined) unserved.release(key);
        else unserved.wait(key, scopes.unknownKindsOf(application));
        return undefined;
      }
      case 'Requeue':
        return effect.requeue;
    }
  }
}

const SETTLED: Requeue = { _tag: 'Settled' };
