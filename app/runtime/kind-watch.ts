/**
 * The watch of one child kind: one informer cluster-wide, or (a namespaced operator, namespaced
 * kind) one per namespace its Applications may write in, read as one cache. It also answers when
 * its cache is worth waiting for: a reconcile about to read the kind waits until the cache has
 * synced, or its first list has failed (missing CRD, forbidden: it may never sync, and the reads go
 * to the API server meanwhile), or the wait bound has passed — never longer, so a kind whose
 * watch cannot start never holds back the Applications that read it (controller-runtime's
 * WaitForCacheSync, kube-rs's `Store::wait_until_ready`, per kind and bounded).
 */
import type { Clock, ClusterError, ClusterReader, ListQuery, Resource, WatchSource } from '../../core/internal.js';
import { Informer, type InformerEvent } from './informer.js';
import { defined } from '../../core/json/defined.js';

export type KindWatchOptions = {
  readonly cluster: ClusterReader & WatchSource;
  readonly clock: Clock;
  /** The kind and label selector of every informer (a namespace is added per informer). */
  readonly query: ListQuery;
  /** Namespaces watched one by one; `undefined`: one watch across every namespace (or a cluster-scoped kind). */
  readonly namespaces: ReadonlyArray<string> | undefined;
  readonly relistEveryMs: number;
  /** How long a reconcile may wait for the first list (from the watch's start). */
  readonly readableWithinMs: number;
  readonly onEvent: (event: InformerEvent) => void;
  readonly onError: (error: ClusterError, phase: 'list' | 'watch') => void;
  readonly indexBy: (object: Resource) => string | undefined;
  /** Whose managedFields entries the caches keep (default: the known controllers', app/runtime/store.ts). */
  readonly keepManagers?: ReadonlySet<string>;
};

export class KindWatch {
  /** One informer per namespace watched, or one under `''` across every namespace. */
  private readonly informers: ReadonlyMap<string, Informer>;
  private readonly across: Informer | undefined;
  /** Informers whose first list has answered (items or an error). */
  private readonly answered = new Set<Informer>();
  private readable = false;
  private cancelBound: (() => void) | undefined;
  private resolveReadable: (() => void) | undefined;
  /** Resolves once the kind is worth reading (see `isReadable`). */
  readonly whenReadable: Promise<void>;

  constructor(
    private readonly options: KindWatchOptions,
    /** Called once when the kind turns readable (the owner counts kinds not readable yet). */
    private readonly onReadable: () => void,
  ) {
    this.whenReadable = new Promise((resolve) => {
      this.resolveReadable = resolve;
    });
    const namespaces = options.namespaces ?? [undefined];
    this.informers = new Map(namespaces.map((namespace) => [namespace ?? '', this.informerIn(namespace)]));
    this.across = options.namespaces === undefined ? this.informers.get('') : undefined;
  }

  get query(): ListQuery {
    return this.options.query;
  }

  /** Starts every informer and the wait bound. */
  start(): void {
    this.cancelBound = this.options.clock.setTimer(this.options.readableWithinMs, () => this.turnReadable());
    for (const informer of this.informers.values()) {
      void informer.start().then(() => this.answer(informer));
    }
  }

  /** Every informer has listed: the cache answers for the kind. */
  get hasSynced(): boolean {
    for (const informer of this.informers.values()) if (!informer.hasSynced) return false;
    return true;
  }

  /**
   * Whether a reconcile should read now rather than wait: synced, or every first list answered (failures too), or the
   * bound passed.
   */
  get isReadable(): boolean {
    return this.readable;
  }

  get(namespace: string | undefined, name: string): Resource | undefined {
    return (this.across ?? this.informers.get(namespace ?? ''))?.get(namespace, name);
  }

  /** Moves whenever any informer's cache does (a sum of counts that only grow). */
  get revision(): number {
    if (this.across !== undefined) return this.across.revision;
    let revision = 0;
    for (const informer of this.informers.values()) revision += informer.revision;
    return revision;
  }

  get size(): number {
    let size = 0;
    for (const informer of this.informers.values()) size += informer.size;
    return size;
  }

  collectByIndex(value: string, into: Resource[]): void {
    for (const informer of this.informers.values()) informer.collectByIndex(value, into);
  }

  /** Read-your-own-writes, into the informer of the object's namespace (none: not watched here). */
  apply(object: Resource): void {
    (this.across ?? this.informers.get(object.metadata.namespace ?? ''))?.apply(object);
  }

  forget(namespace: string | undefined, name: string): void {
    (this.across ?? this.informers.get(namespace ?? ''))?.forget(namespace, name);
  }

  relistNow(): void {
    for (const informer of this.informers.values()) informer.relistNow();
  }

  /** Stops every informer and the bound; waiters are released (they read directly, or find the kind gone). */
  stop(): void {
    for (const informer of this.informers.values()) informer.stop();
    this.turnReadable();
  }

  private informerIn(namespace: string | undefined): Informer {
    const { options } = this;
    const informer: Informer = new Informer(
      options.cluster,
      namespace === undefined ? options.query : { ...options.query, namespace },
      {
        clock: options.clock,
        onEvent: options.onEvent,
        relistEveryMs: options.relistEveryMs,
        onError: (error, phase) => {
          // A first list that failed may not succeed for a long time (missing CRD, forbidden): no reconcile waits for
          // it.
          if (phase === 'list') this.answer(informer);
          options.onError(error, phase);
        },
        indexBy: options.indexBy,
        ...defined({ keepManagers: options.keepManagers }),
      },
    );
    return informer;
  }

  private answer(informer: Informer): void {
    if (this.readable) return;
    this.answered.add(informer);
    if (this.answered.size === this.informers.size) this.turnReadable();
  }

  private turnReadable(): void {
    if (this.readable) return;
    this.readable = true;
    this.cancelBound?.();
    this.cancelBound = undefined;
    this.answered.clear();
    this.resolveReadable?.();
    this.onReadable();
  }
}
