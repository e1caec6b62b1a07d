/**
 * The seam between sharding and the controller: which Application keys this replica owns now,
 * and a signal when that changes. Static shards and Lease-based shards both implement it.
 */
import { shardOf } from '../../../core/internal.js';

export type ShardOwnership = {
  /** Whether this replica may reconcile (and write for) the Application `namespace/name` now. */
  owns(key: string): boolean;
  /** Calls `listener` after the owned set changed; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
};

/** `--shard i --shards n`: this process owns the keys hashing to shard `shard`, for its whole life. */
export const staticShard = (shard: number, shards: number): ShardOwnership => ({
  owns: (key) => shardOf(key, shards) === shard,
  onChange: () => () => undefined,
});
