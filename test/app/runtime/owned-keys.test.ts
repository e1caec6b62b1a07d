/**
 * The controller's sharding seam alone: which keys are queued when ownership changes (newly owned
 * ones and those refused meanwhile, never the rest), and the fence that stops a key's writes the
 * moment its shard is lost — checked on what the memory cluster holds.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { OwnedKeys } from '../../../app/runtime/sharding/owned-keys.js';
import type { ShardOwnership } from '../../../app/runtime/sharding/ownership.js';
import type { Resource } from '../../../core/internal.js';

/** Ownership the test moves by hand. */
const movableOwnership = (initially: ReadonlyArray<string>) => {
  const owned = new Set(initially);
  const listeners = new Set<() => void>();
  const ownership: ShardOwnership = {
    owns: (key) => owned.has(key),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const set = (keys: ReadonlyArray<string>) => {
    owned.clear();
    keys.forEach((key) => owned.add(key));
    listeners.forEach((listener) => listener());
  };
  return { ownership, set };
};

const KEYS = ['default/a', 'default/b', 'default/c'];

const configMap = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

const exists = async (cluster: MemoryCluster, name: string): Promise<boolean> => {
  const read = await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name })();
  return E.isRight(read) && O.isSome(read.right);
};

describe('OwnedKeys', () => {
  it('queues only keys newly owned, or refused while not owned, when ownership changes; nothing after stop', () => {
    const { ownership, set } = movableOwnership(['default/a']);
    const queued: string[] = [];
    const keys = new OwnedKeys(ownership, { keys: () => KEYS, enqueue: (key) => queued.push(key) });
    keys.start();
    expect(queued).toEqual([]);
    set(['default/a', 'default/b']);
    expect(queued).toEqual(['default/b']);
    // 'a' was handed to a worker while its shard had lapsed: refused, so it comes back with the shard.
    keys.refused('default/a');
    set(['default/a', 'default/b']);
    expect(queued).toEqual(['default/b', 'default/a']);
    set(['default/a', 'default/b']);
    expect(queued).toEqual(['default/b', 'default/a']);
    set(['default/c']);
    expect(queued).toEqual(['default/b', 'default/a', 'default/c']);
    expect(KEYS.filter((key) => keys.owns(key))).toEqual(['default/c']);
    keys.stop();
    set(KEYS);
    expect(queued).toEqual(['default/b', 'default/a', 'default/c']);
  });

  it("refuses a key's writes once its shard is lost, checked when each write is sent", async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const { ownership, set } = movableOwnership(['default/a']);
    const keys = new OwnedKeys(ownership, { keys: () => KEYS, enqueue: () => undefined });
    const forA = keys.fence(cluster, 'default/a');
    expect(E.isRight(await forA.create(configMap('before'))())).toBe(true);
    set(['default/b']);
    const refused = await forA.create(configMap('after'))();
    expect(E.isLeft(refused) && refused.left.message).toContain('no longer owns the shard of default/a');
    expect(await exists(cluster, 'before')).toBe(true);
    expect(await exists(cluster, 'after')).toBe(false);
  });

  it('without sharding owns every key and fences nothing', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(0) });
    const queued: string[] = [];
    const keys = new OwnedKeys(undefined, { keys: () => KEYS, enqueue: (key) => queued.push(key) });
    keys.start();
    expect(KEYS.every((key) => keys.owns(key))).toBe(true);
    expect(keys.fence(cluster, 'default/a')).toBe(cluster);
    expect(queued).toEqual([]);
  });
});
