/**
 * The cache of one kind and its indexes (after kube-runtime's reflector `Store`): objects by
 * `namespace/name`, by namespace then name, and by one secondary index value. It is written by its
 * one owner (the informer: lists, watch events, and read-your-own-writes) and answers with the
 * changes each write made; it calls nobody and keeps no timer.
 */
import {
  DEFAULT_KNOWN_MANAGERS,
  isJsonArray,
  managerNames,
  managerOf,
  type Resource,
  type WatchEvent,
} from '../../core/internal.js';

/** A change the store made: what its owner announces. */
export type StoreChange = {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: Resource;
  readonly old?: Resource;
};

/** The store key of an object: `namespace/name` (`/name` without a namespace). */
export const storeKeyOf = (object: { readonly metadata: { readonly namespace?: string; readonly name: string } }) =>
  `${object.metadata.namespace ?? ''}/${object.metadata.name}`;

/** Whether resourceVersion `a` is newer than `b` (numeric when both are; etcd's are). */
export const isNewer = (a: string | undefined, b: string | undefined): boolean => {
  if (a === undefined || a === b) return false;
  if (b === undefined) return true;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) > BigInt(b);
  return a !== b;
};

/**
 * Whether a write's answer shows the object already deleted: the write removed its last finalizer
 * after its deletion was asked (no grace period left), and the server deleted it as it answered.
 * Kept as an answer, it would stay in the cache until the next relist, though its DELETED event came.
 */
export const answersDeleted = ({ metadata }: Resource): boolean => {
  // A Pod in its grace period still exists, finalizers or not: its kubelet deletes it when it has stopped.
  const grace = metadata['deletionGracePeriodSeconds'];
  return (
    metadata.deletionTimestamp !== undefined &&
    (metadata.finalizers ?? []).length === 0 &&
    (grace === undefined || grace === 0)
  );
};

/**
 * An object as the store keeps it: `metadata.managedFields`, the server's record of which client owns
 * which field, reduced to the entries of the managers in `keep` (the known controllers whose fields
 * the planner leaves to them, core/plan/field-fights.ts). The rest is a large part of a typical object
 * (a Deployment's, a third) that nothing kreconcile decides reads; caches that keep it pay for it once
 * per object (controller-runtime's TransformStripManagedFields, which Flux and Argo CD use, drops it all).
 */
export const withManagedFieldsOf =
  (keep: ReadonlySet<string>) =>
  (object: Resource): Resource => {
    const entries = object.metadata.managedFields;
    if (entries === undefined) return object;
    const kept = isJsonArray(entries) ? entries.filter((entry) => keep.has(managerOf(entry) ?? '')) : [];
    const { managedFields: _dropped, ...metadata } = object.metadata;
    return { ...object, metadata: kept.length === 0 ? metadata : { ...metadata, managedFields: kept } };
  };

export class Store {
  private readonly objects = new Map<string, Resource>();
  /**
   * The same objects by namespace ('' for none), then name: `get` looks up the strings it is given
   * (hashed once, kept by their objects) instead of building a key per call — reconciles ask often.
   */
  private readonly byName = new Map<string, Map<string, Resource>>();
  /** Index value → the objects with it, by store key (held directly: a lookup returns them without another search). */
  private readonly index = new Map<string, Map<string, Resource>>();
  /** Objects stored or removed so far: the same count means the same answers (see `revision`). */
  private writes = 0;
  /** The newest resourceVersion the list or the watch has delivered (a write's answer up to it is no news). */
  private horizon: string | undefined = undefined;

  /** What is kept of each object (`withManagedFieldsOf`). */
  private readonly kept: (object: Resource) => Resource;

  /**
   * `indexBy`: the secondary index (e.g. by owner annotation); objects are findable by this value with `byIndex`.
   * `keepManagers`: whose managedFields entries are kept (default: the managers of `DEFAULT_KNOWN_MANAGERS`).
   */
  constructor(
    private readonly indexBy?: (object: Resource) => string | undefined,
    keepManagers: ReadonlySet<string> = managerNames(DEFAULT_KNOWN_MANAGERS),
  ) {
    this.kept = withManagedFieldsOf(keepManagers);
  }

  get(namespace: string | undefined, name: string): Resource | undefined {
    return this.byName.get(namespace ?? '')?.get(name);
  }

  /**
   * The object stored under `namespace/name` (`/name` without a namespace): `get` for a caller holding that key
   * already.
   */
  getByKey(key: string): Resource | undefined {
    return this.objects.get(key);
  }

  list(): ReadonlyArray<Resource> {
    return [...this.objects.values()];
  }

  get size(): number {
    return this.objects.size;
  }

  /** Moves whenever an object is stored or removed: while it stays, every lookup answers as before. */
  get revision(): number {
    return this.writes;
  }

  /** Objects whose index value is `value`. */
  byIndex(value: string): ReadonlyArray<Resource> {
    const found: Resource[] = [];
    this.collectByIndex(value, found);
    return found;
  }

  /** `byIndex`, appended to `into` (no list per store when several are searched). */
  collectByIndex(value: string, into: Resource[]): void {
    const objects = this.index.get(value);
    if (objects !== undefined) for (const object of objects.values()) into.push(object);
  }

  /** Swaps in a fresh list; answers the differences (missed deletes included). */
  replace(listed: ReadonlyArray<Resource>): ReadonlyArray<StoreChange> {
    const items = listed.map(this.kept);
    const changes: StoreChange[] = [];
    this.horizon = undefined;
    for (const item of items) this.passed(item.metadata.resourceVersion);
    const fresh = new Map(items.map((item) => [storeKeyOf(item), item]));
    for (const [key, old] of this.objects) {
      if (!fresh.has(key)) {
        this.delete(key);
        changes.push({ type: 'DELETED', object: old });
      }
    }
    for (const [key, item] of fresh) {
      const old = this.objects.get(key);
      // An unchanged object keeps its identity: per-object caches (the planner's, decoding) keep hitting.
      if (
        old !== undefined &&
        old.metadata.resourceVersion !== undefined &&
        old.metadata.resourceVersion === item.metadata.resourceVersion
      )
        continue;
      this.put(item);
      changes.push(old === undefined ? { type: 'ADDED', object: item } : { type: 'MODIFIED', object: item, old });
    }
    return changes;
  }

  /**
   * Takes one watch event; answers the change, or nothing for a duplicate or stale event (or one older than our own
   * write).
   */
  event(event: Exclude<WatchEvent, { type: 'BOOKMARK' }>): StoreChange | undefined {
    const object = this.kept(event.object);
    const key = storeKeyOf(object);
    this.passed(object.metadata.resourceVersion);
    if (event.type === 'DELETED') {
      this.delete(key);
      return { type: 'DELETED', object };
    }
    const old = this.objects.get(key);
    if (old !== undefined && !isNewer(object.metadata.resourceVersion, old.metadata.resourceVersion)) return undefined;
    this.put(object);
    return old === undefined ? { type: 'ADDED', object } : { type: 'MODIFIED', object, old };
  }

  /**
   * Read-your-own-writes: records a write's answer unless the store already holds a newer version;
   * an answer showing the object deleted removes it. Announces nothing: the watch event that follows does.
   */
  apply(answer: Resource): void {
    const object = this.kept(answer);
    const key = storeKeyOf(object);
    const existing = this.objects.get(key);
    const version = object.metadata.resourceVersion;
    if (existing !== undefined && !isNewer(version, existing.metadata.resourceVersion)) return;
    // Absent although the list or watch has passed this version: the object was deleted after this answer was made
    // (a delete answered while finalizers were pending, then released at once); the answer must not bring it back.
    if (existing === undefined && this.horizon !== undefined && !isNewer(version, this.horizon)) return;
    if (answersDeleted(object)) this.delete(key);
    else this.put(object);
  }

  /** Read-your-own-writes for deletions. */
  forget(namespace: string | undefined, name: string): void {
    this.delete(`${namespace ?? ''}/${name}`);
  }

  /** Records that the list or watch has reached `version`. */
  private passed(version: string | undefined): void {
    if (version !== undefined && (this.horizon === undefined || isNewer(version, this.horizon))) this.horizon = version;
  }

  private put(object: Resource): void {
    this.writes++;
    const key = storeKeyOf(object);
    const old = this.objects.get(key);
    if (old !== undefined) {
      this.unindex(key, old);
      this.unname(old);
    }
    this.objects.set(key, object);
    const namespace = object.metadata.namespace ?? '';
    let names = this.byName.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byName.set(namespace, names);
    }
    names.set(object.metadata.name, object);
    const value = this.indexBy?.(object);
    if (value !== undefined) {
      let objects = this.index.get(value);
      if (objects === undefined) {
        objects = new Map();
        this.index.set(value, objects);
      }
      objects.set(key, object);
    }
  }

  private delete(key: string): void {
    const old = this.objects.get(key);
    if (old === undefined) return;
    this.writes++;
    this.unindex(key, old);
    this.unname(old);
    this.objects.delete(key);
  }

  private unname(object: Resource): void {
    const namespace = object.metadata.namespace ?? '';
    const names = this.byName.get(namespace);
    names?.delete(object.metadata.name);
    if (names?.size === 0) this.byName.delete(namespace);
  }

  private unindex(key: string, object: Resource): void {
    const value = this.indexBy?.(object);
    if (value === undefined) return;
    const keys = this.index.get(value);
    keys?.delete(key);
    if (keys?.size === 0) this.index.delete(value);
  }
}
