/**
 * The controller's side of sharding: which primary keys this replica reconciles now, the fence that
 * refuses a key's writes once its shard is lost, and which keys to queue when ownership changes
 * (newly owned ones, and those refused meanwhile: ownership may have lapsed and come back).
 * Without a `ShardOwnership` every key is owned. Started once, stopped once.
 */
import type { Cluster } from '../../../core/internal.js';
import { fencedByOwnership } from './ownership-fence.js';
import type { ShardOwnership } from './ownership.js';

export type OwnedKeysOptions = {
  /** Every primary key known now (the primary store's). */
  readonly keys: () => ReadonlyArray<string>;
  readonly enqueue: (key: string) => void;
};

export class OwnedKeys {
  /** Keys owned when ownership last changed: only newly owned ones are queued on a change. */
  private owned = new Set<string>();
  /** Keys refused since then because they were not owned at that moment. */
  private readonly refusedKeys = new Set<string>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly shard: ShardOwnership | undefined,
    private readonly options: OwnedKeysOptions,
  ) {}

  /** Follows ownership changes; the keys known now are queued already, so only later changes queue keys. */
  start(): void {
    this.unsubscribe = this.shard?.onChange(() => this.enqueueOwned(true));
    this.enqueueOwned(false);
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** Whether this replica may reconcile (and write for) `key` now. */
  owns(key: string): boolean {
    return this.shard?.owns(key) ?? true;
  }

  /** `key` was not reconciled because it was not owned: queued again once it is. */
  refused(key: string): void {
    this.refusedKeys.add(key);
  }

  /** `cluster` for a reconcile of `key`: with shards, every write re-checks ownership. */
  fence(cluster: Cluster, key: string): Cluster {
    const shard = this.shard;
    return shard === undefined ? cluster : fencedByOwnership(cluster, () => shard.owns(key), key);
  }

  private enqueueOwned(enqueue: boolean): void {
    const owned = new Set<string>();
    for (const key of this.options.keys()) {
      if (!this.owns(key)) continue;
      owned.add(key);
      if (enqueue && (!this.owned.has(key) || this.refusedKeys.has(key))) this.options.enqueue(key);
    }
    this.owned = owned;
    this.refusedKeys.clear();
  }
}
