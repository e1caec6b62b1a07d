/**
 * The child-watch lifecycle: one watch per child kind (kind-watch.ts), started on demand when an
 * Application names the kind, stopped by a sweep once no Application uses it and its cache holds
 * nothing of ours. Its caches are what the live reader reads (only synced ones); reconciles wait
 * for them, bounded (`readable`). A namespaced operator watches namespaced kinds only in the
 * namespaces its Applications may write in. Started implicitly, stopped once.
 */
import {
  MANAGED_BY_LABEL,
  type Application,
  type Memo,
  type ScopeTable,
  MANAGED_BY_VALUE,
  ownerOf,
  type Clock,
  type ClusterError,
  type ClusterReader,
  type ObjectRef,
  type Resource,
  type Scope,
  type WatchSource,
} from '../../core/internal.js';
import { kindsOf, type LiveCache } from '../reconcile/live-reader.js';
import type { KnownScopes } from './known-scopes.js';
import { KindWatch } from './kind-watch.js';
import type { Logger } from '../logging/logger.js';
import { defined } from '../../core/json/defined.js';

export type Kind = { readonly apiVersion: string; readonly kind: string };

export type ChildWatchesOptions = {
  readonly cluster: ClusterReader & WatchSource;
  readonly clock: Clock;
  /** Full relist this often (0 = never). */
  readonly relistEveryMs: number;
  /** Whose managedFields entries the child caches keep (default: the known controllers', app/runtime/store.ts). */
  readonly keepManagers?: ReadonlySet<string>;
  readonly logger: Logger;
  /** A child carrying an owner mark (`namespace/name`) changed. */
  readonly onOwnedChange: (owner: string) => void;
  readonly onError: (error: ClusterError, where: string) => void;
  /** The server answered that it does not serve this kind (its CRD is gone). */
  readonly onUnserved: (kind: Kind) => void;
  /** The kinds the Applications name now (a sweep keeps watching these). */
  readonly wantedKinds: () => Iterable<Kind>;
  /**
   * Where namespaced kinds are watched: these namespaces one by one (a namespaced operator: where its
   * Applications may write), or every namespace at once (`undefined`, the default). Cluster-scoped
   * kinds are always watched cluster-wide.
   */
  readonly namespaces?: ReadonlyArray<string>;
  /** The scope of a kind handed to `watch` (known then: unknown kinds are not watched). */
  readonly scopeOf?: (kind: Kind) => Scope | undefined;
  /** How long a reconcile waits for a kind's first list before reading it directly (default 10 s). */
  readonly readableWithinMs?: number;
};

/** How long a reconcile waits at most for a kind's first list (from the watch's start) before reading directly. */
export const DEFAULT_READABLE_WITHIN_MS = 10_000;

const keyOf = (kind: Kind): string => `${kind.apiVersion}/${kind.kind}`;

export class ChildWatches {
  private readonly informers = new Map<string, KindWatch>();
  /**
   * The same watches by apiVersion, then kind: the live reader's lookups build no key string (a resync makes several
   * per Application).
   */
  private readonly byKind = new Map<string, Map<string, KindWatch>>();
  /** Watches not readable yet (see `readable`): while none is, a reconcile asks nothing more. */
  private unreadable = 0;
  private stopped = false;
  private cancelSweep: (() => void) | undefined;
  private stoppedWatches = 0;
  /**
   * What the caches stopped since contributed to the revision, plus one each: the revision only
   * grows (a stopped kind's objects are no longer answered, a change the revision must show).
   */
  private retired = 0;
  /** The synced caches as the live reader sees them (one view for every reconcile). */
  private readonly cacheView: LiveCache;

  constructor(private readonly options: ChildWatchesOptions) {
    this.cacheView = {
      kind: (kind) => {
        const informer = this.byKind.get(kind.apiVersion)?.get(kind.kind);
        return informer?.hasSynced === true ? informer : undefined;
      },
      revision: () => {
        let revision = this.retired;
        for (const informer of this.informers.values()) if (informer.hasSynced) revision += informer.revision + 1; // + 1: synced (unsynced caches answer nothing)
        return revision;
      },
      ownedBy: (mark) => {
        const owned: Resource[] = [];
        for (const informer of this.informers.values()) if (informer.hasSynced) informer.collectByIndex(mark, owned);
        return owned;
      },
    };
  }

  /**
   * How many kinds the sweep stopped watching so far: a kind handed to `watch` before may need watching again once this
   * moves.
   */
  get stops(): number {
    return this.stoppedWatches;
  }

  /** Kinds watched now (`apiVersion/kind`). */
  get kinds(): ReadonlyArray<string> {
    return [...this.informers.keys()];
  }

  /**
   * Resolves once every watched kind among `kinds` is worth reading (its cache synced, or its first
   * list answered an error, or the wait bound passed; see kind-watch.ts); `undefined` when they all
   * are already, as at every reconcile once the operator has started (then `kinds` is not even
   * called). Kinds not watched are not waited for.
   */
  readable(kinds: () => Iterable<Kind>): Promise<void> | undefined {
    if (this.unreadable === 0) return undefined;
    const waits: Array<Promise<void>> = [];
    for (const kind of kinds()) {
      const watch = this.byKind.get(kind.apiVersion)?.get(kind.kind);
      if (watch !== undefined && !watch.isReadable) waits.push(watch.whenReadable);
    }
    return waits.length === 0 ? undefined : waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined);
  }

  /** Starts watching each of `kinds` not watched yet (never waits for a cache to sync). */
  watch(kinds: ReadonlyArray<Kind>): void {
    if (this.stopped) return;
    for (const kind of kinds) {
      const key = keyOf(kind);
      if (this.informers.has(key)) continue;
      const namespaced = this.options.scopeOf?.(kind) !== 'Cluster';
      this.unreadable++;
      const informer = new KindWatch(
        {
          cluster: this.options.cluster,
          clock: this.options.clock,
          query: { ...kind, labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}` },
          namespaces: namespaced ? this.options.namespaces : undefined,
          relistEveryMs: this.options.relistEveryMs,
          readableWithinMs: this.options.readableWithinMs ?? DEFAULT_READABLE_WITHIN_MS,
          onEvent: (event) => {
            const owner = ownerOf(event.object);
            if (owner !== undefined) this.options.onOwnedChange(owner);
          },
          onError: (error, phase) => {
            this.options.onError(error, `${key} ${phase}`);
            if (error._tag === 'UnknownKind') this.options.onUnserved(kind);
          },
          indexBy: ownerOf,
          ...defined({ keepManagers: this.options.keepManagers }),
        },
        () => this.unreadable--,
      );
      this.informers.set(key, informer);
      let kinds = this.byKind.get(kind.apiVersion);
      if (kinds === undefined) {
        kinds = new Map();
        this.byKind.set(kind.apiVersion, kinds);
      }
      kinds.set(kind.kind, informer);
      informer.start();
      this.options.logger.debug(
        { kind: key, ...(namespaced && this.options.namespaces ? { namespaces: this.options.namespaces } : {}) },
        'watching child kind',
      );
    }
  }

  /**
   * Sweeps once after a quiet second: a sweep needs a look at every Application, so it runs once
   * for a burst of changes rather than on every event (a burst of N events would otherwise cost N²).
   */
  sweepSoon(): void {
    if (this.cancelSweep !== undefined || this.stopped) return;
    this.cancelSweep = this.options.clock.setTimer(1_000, () => {
      this.cancelSweep = undefined;
      this.sweep();
    });
  }

  /**
   * Stops watching kinds no Application wants whose cache holds nothing (objects still cached stay findable, to be
   * pruned).
   */
  private sweep(): void {
    const wanted = new Set<string>();
    for (const kind of this.options.wantedKinds()) wanted.add(keyOf(kind));
    for (const [key, informer] of this.informers) {
      // Unsynced caches are empty because they know nothing yet, not because nothing is there.
      if (wanted.has(key) || !informer.hasSynced || informer.size > 0) continue;
      this.retire(informer);
      this.informers.delete(key);
      this.unindex(informer.query);
      this.stoppedWatches++;
      this.options.logger.debug({ kind: key }, 'stopped watching child kind');
    }
  }

  private retire(informer: KindWatch): void {
    this.retired += (informer.hasSynced ? informer.revision + 1 : 0) + 1;
    informer.stop();
  }

  private unindex(kind: Kind): void {
    const kinds = this.byKind.get(kind.apiVersion);
    kinds?.delete(kind.kind);
    if (kinds?.size === 0) this.byKind.delete(kind.apiVersion);
  }

  /** The synced caches as the live reader sees them. */
  liveCache(): LiveCache {
    return this.cacheView;
  }

  /** The server serves `kind` again (its CRD was reinstalled): its cache lists now rather than at its next retry. */
  served(kind: Kind): void {
    this.informers.get(keyOf(kind))?.relistNow();
  }

  /** Read-your-own-writes: a write's answer goes into its kind's cache. */
  apply(object: Resource): void {
    this.informers.get(keyOf(object))?.apply(object);
  }

  /** Read-your-own-writes for deletions. */
  forget(ref: ObjectRef): void {
    this.informers.get(keyOf(ref))?.forget(ref.namespace, ref.name);
  }

  /** Stops every watch for good. Idempotent. */
  stop(): void {
    this.stopped = true;
    this.cancelSweep?.();
    for (const informer of this.informers.values()) this.retire(informer);
    this.informers.clear();
    this.byKind.clear();
  }
}

/**
 * Starts watching the child kinds of one primary that are not watched yet (on demand). Nothing is
 * started for a primary whose kinds were handed over under the same scope table with no watch
 * stopped since (every reconcile asks, a resync for every primary). A kind the server does not
 * serve is not watched (its list would only fail): the plan says UnknownKind.
 */
export const childWatchStarter = (
  children: ChildWatches,
  scopes: KnownScopes,
  memo: Memo,
): ((application: Application) => void) => {
  /** Per primary: the scope table and the count of stopped watches when its kinds were last handed over. */
  const handedOver = new WeakMap<Application, { readonly scopes: ScopeTable; readonly stops: number }>();
  return (application) => {
    const table = scopes.current;
    const handed = handedOver.get(application);
    if (handed !== undefined && handed.scopes === table && handed.stops === children.stops) return;
    children.watch(kindsOf(application, memo).filter((kind) => scopes.knows(kind)));
    handedOver.set(application, { scopes: table, stops: children.stops });
  };
};
