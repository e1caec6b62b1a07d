/** The names and label of the Leases of a sharded deployment (the runtime, RBAC and docs agree on them). */

export const SHARDING_LABEL = 'kreconcile.io/sharding';

export const DEFAULT_LEASE_PREFIX = 'kreconcile';

/** `<prefix>-shard-<i>` owns shard i; `<prefix>-member-<i>` counts one live replica. */
export const shardingLeaseName = (kind: 'shard' | 'member', index: number, prefix = DEFAULT_LEASE_PREFIX): string =>
  `${prefix}-${kind}-${index}`;

/** Every Lease name of `shards` shards (RBAC `resourceNames`). */
export const shardingLeaseNames = (shards: number, prefix = DEFAULT_LEASE_PREFIX): ReadonlyArray<string> =>
  Array.from({ length: shards }, (_, i) => [
    shardingLeaseName('shard', i, prefix),
    shardingLeaseName('member', i, prefix),
  ]).flat();
