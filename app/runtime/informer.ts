/**
 * A reflector + local cache for one kind (list, then watch from the list's resourceVersion):
 * relists on 410 Gone, re-watches with backoff on any other close, never stops by itself.
 * Our own writes are applied to the cache as soon as they are answered (read-your-own-writes).
 */
import type {
  Clock,
  ClusterError,
  ClusterReader,
  ListQuery,
  Resource,
  WatchEvent,
  WatchHandle,
  WatchSource,
} from '../../core/index.js';
import * as E from 'fp-ts/lib/Either.js';

export type InformerEvent = {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: Resource;
  readonly old?: Resource;
};

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
};

const keyOf = (object: { metadata: { namespace?: string; name: string } }): string =>
  `${object.metadata.namespace ?? ''}/${object.metadata.name}`;

/** Whether resourceVersion `a` is newer than `b` (numeric when both are; etcd's are). */
export const isNewer = (a: string | undefined, b: string | undefined): boolean => {
  if (a === undefined || a === b) return false;
  if (b === undefined) return true;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) > BigInt(b);
  return a !== b;
};

export class Informer {
  private readonly store = new Map<string, Resource>();
  /**
   * The same objects by namespace ('' for none), then name: `get` looks up the strings it is given
   * (hashed once, kept by their objects) instead of building a key per call — reconciles ask often.
   */
  private readonly byName = new Map<string, Map<string, Resource>>();
  /** Index value → the objects with it, by store key (held directly: a lookup returns them without another search). */
  private readonly index = new Map<string, Map<string, Resource>>();
  private resourceVersion: string | undefined;
  private watch: WatchHandle | undefined;
  private stopped = false;
  private started = false;
  private listing = false;
  private retryMs: number;
  private cancelRetry: (() => void) | undefined;
  private cancelRelist: (() => void) | undefined;
  private syncedResolve: (() => void) | undefined;
  /** Resolves once the first list has filled the cache. */
  readonly synced: Promise<void>;
  private isSynced = false;

  constructor(
    private readonly source: ClusterReader & WatchSource,
    readonly query: ListQuery,
    private readonly options: InformerOptions,
  ) {
    this.retryMs = options.minRetryMs ?? 1_000;
    this.synced = new Promise((resolve) => {
      this.syncedResolve = resolve;
    });
  }

  /** Starts listing and watching; returns once the first list is in (or keeps retrying). */
  start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      void this.relist();
    }
    return this.synced;
  }

  /** Stops for good: no further events, no retries. Idempotent. */
  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.watch = undefined;
    this.cancelRetry?.();
    this.cancelRelist?.();
  }

  /**
   * Lists again now instead of at the next retry (the kind is served again): the watch and any
   * pending retry are dropped, the retry delay starts over.
   */
  relistNow(): void {
    if (this.stopped || !this.started) return;
    this.retryMs = this.options.minRetryMs ?? 1_000;
    // A list in flight is as fresh (if it fails, it retries after the delay just reset).
    if (this.listing) return;
    this.watch?.stop();
    this.watch = undefined;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    void this.relist();
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  get(namespace: string | undefined, name: string): Resource | undefined {
    return this.byName.get(namespace ?? '')?.get(name);
  }

  /** The object stored under `namespace/name` (`/name` without a namespace): `get` for a caller holding that key already. */
  getByKey(key: string): Resource | undefined {
    return this.store.get(key);
  }

  list(): ReadonlyArray<Resource> {
    return [...this.store.values()];
  }

  get size(): number {
    return this.store.size;
  }

  /**
   * Read-your-own-writes: records a write's response unless the cache already holds a newer version,
   * or has seen a later state in which the object is not there: a response that arrives after the
   * watch delivered the object's deletion (a delete answered while finalizers were pending, then
   * released at once) must not bring the deleted object back.
   */
  apply(object: Resource): void {
    const existing = this.store.get(keyOf(object));
    const version = object.metadata.resourceVersion;
    if (existing !== undefined && !isNewer(version, existing.metadata.resourceVersion)) return;
    if (existing === undefined && this.resourceVersion !== undefined && !isNewer(version, this.resourceVersion)) return;
    this.put(object);
  }

  /** Read-your-own-writes for deletions. */
  forget(namespace: string | undefined, name: string): void {
    this.del(`${namespace ?? ''}/${name}`);
  }

  /** Objects whose index value (see `indexBy`) is `value`. */
  byIndex(value: string): ReadonlyArray<Resource> {
    const found: Resource[] = [];
    this.collectByIndex(value, found);
    return found;
  }

  /** `byIndex`, appended to `into` (no list per informer when several are searched). */
  collectByIndex(value: string, into: Resource[]): void {
    const objects = this.index.get(value);
    if (objects !== undefined) for (const object of objects.values()) into.push(object);
  }

  private put(object: Resource): void {
    const key = keyOf(object);
    const old = this.store.get(key);
    if (old !== undefined) {
      this.unindex(key, old);
      this.unname(old);
    }
    this.store.set(key, object);
    const namespace = object.metadata.namespace ?? '';
    let names = this.byName.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byName.set(namespace, names);
    }
    names.set(object.metadata.name, object);
    const value = this.options.indexBy?.(object);
    if (value !== undefined) {
      let objects = this.index.get(value);
      if (objects === undefined) {
        objects = new Map();
        this.index.set(value, objects);
      }
      objects.set(key, object);
    }
  }

  private del(key: string): void {
    const old = this.store.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.unname(old);
    this.store.delete(key);
  }

  private unname(object: Resource): void {
    const namespace = object.metadata.namespace ?? '';
    const names = this.byName.get(namespace);
    names?.delete(object.metadata.name);
    if (names?.size === 0) this.byName.delete(namespace);
  }

  private unindex(key: string, object: Resource): void {
    const value = this.options.indexBy?.(object);
    if (value === undefined) return;
    const keys = this.index.get(value);
    keys?.delete(key);
    if (keys?.size === 0) this.index.delete(value);
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    this.listing = true;
    const listed = await this.source.list(this.query)();
    this.listing = false;
    if (this.stopped) return;
    if (E.isLeft(listed)) {
      // A kind the server does not serve (any more: its CRD was deleted) has no objects.
      if (listed.left._tag === 'UnknownKind') this.replace([]);
      this.options.onError?.(listed.left, 'list');
      this.retryLater(() => this.relist());
      return;
    }
    this.replace(listed.right.items);
    this.resourceVersion = listed.right.resourceVersion;
    if (!this.isSynced) {
      this.isSynced = true;
      this.syncedResolve?.();
    }
    this.startWatch();
    this.scheduleRelist();
  }

  /** Swaps in a fresh list, emitting the differences as events (missed deletes included). */
  private replace(items: ReadonlyArray<Resource>): void {
    const fresh = new Map(items.map((item) => [keyOf(item), item]));
    for (const [key, old] of this.store) {
      if (!fresh.has(key)) {
        this.del(key);
        this.safely(() => this.options.onEvent({ type: 'DELETED', object: old }));
      }
    }
    for (const [key, item] of fresh) {
      const old = this.store.get(key);
      // An unchanged object keeps its identity: per-object caches (the planner's, decoding) keep hitting.
      if (
        old !== undefined &&
        old.metadata.resourceVersion !== undefined &&
        old.metadata.resourceVersion === item.metadata.resourceVersion
      )
        continue;
      this.put(item);
      if (old === undefined) this.safely(() => this.options.onEvent({ type: 'ADDED', object: item }));
      else this.safely(() => this.options.onEvent({ type: 'MODIFIED', object: item, old }));
    }
  }

  private scheduleRelist(): void {
    const every = this.options.relistEveryMs ?? 0;
    this.cancelRelist?.();
    if (every <= 0 || this.stopped) return;
    this.cancelRelist = this.options.clock.setTimer(every, () => {
      this.cancelRelist = undefined;
      if (this.stopped) return;
      this.watch?.stop();
      this.watch = undefined;
      this.cancelRetry?.();
      void this.relist();
    });
  }

  private startWatch(): void {
    if (this.stopped) return;
    this.watch = this.source.watch(
      {
        ...this.query,
        ...(this.resourceVersion === undefined ? {} : { resourceVersion: this.resourceVersion }),
        allowBookmarks: true,
      },
      { event: (event) => this.handle(event), closed: (error) => this.closed(error) },
    );
  }

  private handle(event: WatchEvent): void {
    if (this.stopped) return;
    this.retryMs = this.options.minRetryMs ?? 1_000;
    if (event.type === 'BOOKMARK') {
      this.resourceVersion = event.resourceVersion;
      return;
    }
    const object = event.object;
    this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
    const old = this.store.get(keyOf(object));
    if (event.type === 'DELETED') {
      this.del(keyOf(object));
      this.safely(() => this.options.onEvent({ type: 'DELETED', object }));
      return;
    }
    // A duplicate or stale event (or one older than our own write) changes nothing.
    if (old !== undefined && !isNewer(object.metadata.resourceVersion, old.metadata.resourceVersion)) return;
    this.put(object);
    this.safely(() =>
      this.options.onEvent({ type: old === undefined ? 'ADDED' : 'MODIFIED', object, ...(old ? { old } : {}) }),
    );
  }

  private closed(error: ClusterError | undefined): void {
    this.watch = undefined;
    if (this.stopped) return;
    if (error !== undefined) this.options.onError?.(error, 'watch');
    // Too old a version, or the kind stopped being served (its CRD was deleted: the adapter asked
    // discovery again): relist at once, so the cache learns its objects are gone and a kind that is
    // back is watched again from a fresh list. A failing list backs off by itself.
    if (error?._tag === 'Gone' || error?._tag === 'UnknownKind' || error?._tag === 'NotFound') {
      this.resourceVersion = undefined;
      void this.relist();
      return;
    }
    this.retryLater(() => (this.resourceVersion === undefined ? this.relist() : Promise.resolve(this.startWatch())));
  }

  private retryLater(action: () => Promise<void> | void): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.options.maxRetryMs ?? 30_000);
    this.cancelRetry = this.options.clock.setTimer(delay, () => {
      this.cancelRetry = undefined;
      void action();
    });
  }

  /** A handler's exception must not kill the reflector (client-node turns it into a crash). */
  private safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.options.onError?.({ _tag: 'Internal', code: 0, message: `event handler failed: ${String(error)}` }, 'watch');
    }
  }
}
