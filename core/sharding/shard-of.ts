/**
 * Which shard an Application belongs to: FNV-1a (32 bit) of its `namespace/name` key, modulo a
 * fixed shard count. Stable across processes, versions and replica counts, so every replica
 * agrees without talking; changing the replica count moves whole shards, never single keys.
 */

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-8 bytes of `text`, as an unsigned 32-bit integer. */
export const fnv1a32 = (text: string): number => {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash >>> 0;
};

/** The shard (0 ≤ shard < shards) of an Application key `namespace/name`. */
export const shardOf = (key: string, shards: number): number => fnv1a32(key) % shards;
