/**
 * The informer of one kind: the driver that runs the watcher state machine (watcher.ts) against a
 * cluster — its lists, watches and timers — and writes what comes back into its store (store.ts),
 * announcing each change. It relists on 410 Gone, re-watches with backoff on any other close, and
 * never stops by itself. Our own writes go into the store as soon as they are answered
 * (read-your-own-writes). The reads (`get`, `list`, `byIndex`, …) are the store's.
 */
import type {
  Clock,
  ClusterError,
  ClusterReader,
  ListQuery,
  Resource,
  WatchHandle,
  WatchSource,
} from '../../core/internal.js';
import * as E from 'fp-ts/lib/Either.js';
import { Store, type StoreChange } from './store.js';
import {
  defaultWatcherPolicy,
  initialWatcher,
  step,
  type WatcherEffect,
  type WatcherInput,
  type WatcherPolicy,
  type WatcherState,
} from './watcher.js';
import { defined } from '../../core/json/defined.js';

export { isNewer } from './store.js';

export type InformerEvent = StoreChange;

export type InformerOptions = {
  readonly clock: Clock;
  readonly onEvent: (event: InformerEvent) => void;
  readonly onError?: (error: ClusterError, phase: 'list' | 'watch') => void;
  /** Re-watch delay: doubles from `minRetryMs` up to `maxRetryMs`, reset by any event. */
  readonly minRetryMs?: number;
  readonly maxRetryMs?: number;
  /**
   * Full relist this often (0 = never): a watch can lose events (a proxy, a dropped connection
   * the server did not notice); the relist turns what was missed into events again.
   */
  readonly relistEveryMs?: number;
  /** Secondary index (e.g. by owner annotation): objects are findable by this value with `byIndex`. */
  readonly indexBy?: (object: Resource) => string | undefined;
  /** Whose managedFields entries the cache keeps (`Store`; default: the known controllers'). */
  readonly keepManagers?: ReadonlySet<string>;
};

export class Informer {
  private readonly store: Store;
  private readonly policy: WatcherPolicy;
  private state: WatcherState;
  private readonly inbox: WatcherInput[] = [];
  private stepping = false;
  private watch: WatchHandle | undefined;
  /** Moves on at each watch opened, stopped or closed: the sink of a watch no longer current is not heard. */
  private watchGeneration = 0;
  private cancelRetry: (() => void) | undefined;
  private cancelRelist: (() => void) | undefined;
  private syncedResolve: (() => void) | undefined;
  /** Resolves once the first list has filled the cache. */
  readonly synced: Promise<void>;

  constructor(
    private readonly source: ClusterReader & WatchSource,
    readonly query: ListQuery,
    private readonly options: InformerOptions,
  ) {
    this.store = new Store(options.indexBy, options.keepManagers);
    this.policy = {
      minRetryMs: options.minRetryMs ?? defaultWatcherPolicy.minRetryMs,
      maxRetryMs: options.maxRetryMs ?? defaultWatcherPolicy.maxRetryMs,
      relistEveryMs: options.relistEveryMs ?? defaultWatcherPolicy.relistEveryMs,
    };
    this.state = initialWatcher(this.policy);
    this.synced = new Promise((resolve) => {
      this.syncedResolve = resolve;
    });
  }

  /** Starts listing and watching; returns once the first list is in (or keeps retrying). */
  start(): Promise<void> {
    this.send({ _tag: 'Start' });
    return this.synced;
  }

  /** Stops for good: no further events, no retries. Idempotent. */
  stop(): void {
    this.send({ _tag: 'Stop' });
  }

  /**
   * Lists again now instead of at the next retry (the kind is served again): the watch and any
   * pending retry are dropped, the retry delay starts over.
   */
  relistNow(): void {
    this.send({ _tag: 'RelistNow' });
  }

  get hasSynced(): boolean {
    return this.state.synced;
  }

  get(namespace: string | undefined, name: string): Resource | undefined {
    return this.store.get(namespace, name);
  }

  /**
   * The object stored under `namespace/name` (`/name` without a namespace): `get` for a caller holding that key
   * already.
   */
  getByKey(key: string): Resource | undefined {
    return this.store.getByKey(key);
  }

  list(): ReadonlyArray<Resource> {
    return this.store.list();
  }

  /** Moves whenever the cache stores or removes an object (see Store.revision). */
  get revision(): number {
    return this.store.revision;
  }

  get size(): number {
    return this.store.size;
  }

  /** Read-your-own-writes: records a write's response unless the store has seen it or a later state (Store.apply). */
  apply(object: Resource): void {
    this.store.apply(object);
  }

  /** Read-your-own-writes for deletions. */
  forget(namespace: string | undefined, name: string): void {
    this.store.forget(namespace, name);
  }

  /** Objects whose index value (see `indexBy`) is `value`. */
  byIndex(value: string): ReadonlyArray<Resource> {
    return this.store.byIndex(value);
  }

  /** `byIndex`, appended to `into` (no list per informer when several are searched). */
  collectByIndex(value: string, into: Resource[]): void {
    this.store.collectByIndex(value, into);
  }

  /**
   * The one place the watcher's state changes: a step, then its effects in order. An input that
   * arrives while effects are carried out (a handler stopping the informer, a source answering at
   * once) waits for them: every step's effects run against the state they were planned for.
   */
  private send(input: WatcherInput): void {
    this.inbox.push(input);
    if (this.stepping) return;
    this.stepping = true;
    try {
      for (let next = this.inbox.shift(); next !== undefined; next = this.inbox.shift()) {
        const stepped = step(this.state, next, this.policy);
        this.state = stepped.state;
        for (const effect of stepped.effects) this.carryOut(effect);
      }
    } finally {
      this.stepping = false;
    }
  }

  private carryOut(effect: WatcherEffect): void {
    switch (effect._tag) {
      case 'List':
        void this.listFromSource();
        return;
      case 'Watch':
        this.openWatch(effect.resourceVersion);
        return;
      case 'StopWatch':
        this.watchGeneration++;
        this.watch?.stop();
        this.watch = undefined;
        return;
      case 'Replace':
        this.announce(this.store.replace(effect.items));
        return;
      case 'Apply': {
        const change = this.store.event(effect.event);
        if (change !== undefined) this.announce([change]);
        return;
      }
      case 'Synced':
        this.syncedResolve?.();
        return;
      case 'ReportError':
        this.options.onError?.(effect.error, effect.phase);
        return;
      case 'RetryAfter':
        this.armRetry(effect.ms);
        return;
      case 'CancelRetry':
        this.cancelRetry?.();
        this.cancelRetry = undefined;
        return;
      case 'RelistAfter':
        this.armRelist(effect.ms);
        return;
      case 'CancelRelist':
        this.cancelRelist?.();
        this.cancelRelist = undefined;
        return;
    }
  }

  /** One retry timer at a time: a new backoff replaces the one pending, which would fire too early. */
  private armRetry(ms: number): void {
    this.cancelRetry?.();
    this.cancelRetry = this.options.clock.setTimer(ms, () => {
      this.cancelRetry = undefined;
      this.send({ _tag: 'RetryDue' });
    });
  }

  /** One resync timer at a time: the relist period restarts from the latest list. */
  private armRelist(ms: number): void {
    this.cancelRelist?.();
    this.cancelRelist = this.options.clock.setTimer(ms, () => {
      this.cancelRelist = undefined;
      this.send({ _tag: 'RelistDue' });
    });
  }

  private async listFromSource(): Promise<void> {
    const listed = await this.source.list(this.query)();
    this.send(
      E.isLeft(listed)
        ? { _tag: 'ListFailed', error: listed.left }
        : { _tag: 'Listed', items: listed.right.items, resourceVersion: listed.right.resourceVersion },
    );
  }

  private openWatch(resourceVersion: string | undefined): void {
    const generation = ++this.watchGeneration;
    const handle = this.source.watch(
      { ...this.query, ...defined({ resourceVersion }), allowBookmarks: true },
      {
        event: (event) => {
          if (generation === this.watchGeneration) this.send({ _tag: 'Event', event });
        },
        closed: (error) => {
          if (generation !== this.watchGeneration) return;
          this.watchGeneration++;
          this.watch = undefined;
          this.send({ _tag: 'WatchClosed', error });
        },
      },
    );
    // A source may close a watch before it returns it: that one is not kept.
    if (generation === this.watchGeneration) this.watch = handle;
  }

  /** A handler's exception must not kill the informer (client-node turns it into a crash). */
  private announce(changes: ReadonlyArray<StoreChange>): void {
    for (const change of changes) {
      try {
        this.options.onEvent(change);
      } catch (error) {
        this.options.onError?.(
          { _tag: 'Internal', code: 0, message: `event handler failed: ${String(error)}` },
          'watch',
        );
      }
    }
  }
}
