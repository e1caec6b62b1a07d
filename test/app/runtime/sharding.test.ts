/**
 * Sharding on the in-memory API server with virtual time: shard Leases split, rebalance on a join,
 * are taken over after a replica dies and released on a graceful stop; controllers reconcile only
 * what they own, and a write after ownership is lost is never sent.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { startOperator } from '../../../app/runtime/operator.js';
import { fencedByOwnership } from '../../../app/runtime/sharding/ownership-fence.js';
import { staticShard, type ShardOwnership } from '../../../app/runtime/sharding/ownership.js';
import { ShardLeases } from '../../../app/runtime/sharding/shard-leases.js';
import { shardOf, type Cluster, type Resource } from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';
import { concurrentWrites, recordingCluster, type Write } from './sharding-writes.js';

const SHARDS = 12;
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;

const replica = (cluster: Cluster, clock: ManualClock, identity: string): ShardLeases =>
  new ShardLeases({
    cluster,
    clock,
    namespace: 'default',
    identity,
    shards: SHARDS,
    leaseDurationMs: LEASE_MS,
    retryPeriodMs: RETRY_MS,
  });

const allShards = Array.from({ length: SHARDS }, (_, i) => i);

/** Replicas `ids` started on a fresh memory cluster and run for `settleMs` (checked all along). */
const settled = async (seed: number, ids: ReadonlyArray<string>, settleMs: number) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed });
  const replicas = ids.map((id) => replica(cluster, clock, id));
  replicas.forEach((r) => r.start());
  await runChecked(clock, replicas, settleMs);
  return { clock, cluster, replicas };
};

/** Advances virtual time in small steps, checking after each that no shard has two owners. */
const runChecked = async (clock: ManualClock, replicas: ReadonlyArray<ShardLeases>, ms: number): Promise<void> => {
  for (let t = 0; t < ms; t += 250) {
    await flushMicrotasks();
    await clock.advance(250);
    for (const shard of allShards)
      expect(
        replicas.filter((r) => r.ownedShards.includes(shard)).length,
        `shard ${shard} at +${t} ms`,
      ).toBeLessThanOrEqual(1);
  }
};

const holderOf = async (cluster: MemoryCluster, shard: number): Promise<string | undefined> => {
  const lease = await cluster.get({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    namespace: 'default',
    name: `kreconcile-shard-${shard}`,
  })();
  if (E.isLeft(lease) || O.isNone(lease.right)) return undefined;
  return (lease.right.value.spec as { holderIdentity?: string | null }).holderIdentity ?? undefined;
};

describe('shard Leases', () => {
  it('three replicas split 12 shards 4/4/4 through the Leases, each shard owned by exactly one', async () => {
    const { clock, cluster, replicas } = await settled(1, ['a', 'b', 'c'], 20_000);
    expect(replicas.map((r) => r.ownedShards.length)).toEqual([4, 4, 4]);
    for (const shard of allShards) {
      const owner = replicas.findIndex((r) => r.ownedShards.includes(shard));
      expect(await holderOf(cluster, shard)).toBe(['a', 'b', 'c'][owner]);
    }
    replicas.forEach((r) => r.halt());
  });

  it('a joining replica gets its fair share: the others release extras (rebalancing), never two owners at once', async () => {
    const { clock, cluster, replicas } = await settled(2, ['a', 'b'], 10_000);
    expect(replicas.map((r) => r.ownedShards.length)).toEqual([6, 6]);
    const joined = replica(cluster, clock, 'c');
    let changes = 0;
    joined.onChange(() => {
      changes++;
    });
    joined.start();
    await runChecked(clock, [...replicas, joined], 10_000);
    expect([...replicas, joined].map((r) => r.ownedShards.length)).toEqual([4, 4, 4]);
    expect(changes).toBeGreaterThan(0);
    [...replicas, joined].forEach((r) => r.halt());
  });

  it('the shards of a replica that dies (no release) are taken over after the lease duration, not before', async () => {
    const { clock, replicas } = await settled(3, ['a', 'b', 'c'], 20_000);
    const orphaned = replicas[2]!.ownedShards;
    replicas[2]!.halt();
    const survivors = replicas.slice(0, 2);
    await runChecked(clock, survivors, LEASE_MS - RETRY_MS);
    expect(orphaned.filter((shard) => survivors.some((r) => r.ownedShards.includes(shard)))).toEqual([]);
    await runChecked(clock, survivors, 3 * RETRY_MS);
    expect(survivors.map((r) => r.ownedShards.length)).toEqual([6, 6]);
    survivors.forEach((r) => r.halt());
  });

  it('a graceful stop releases the Leases: the others take the shards within a retry period or two', async () => {
    const { clock, replicas } = await settled(4, ['a', 'b'], 10_000);
    await replicas[1]!.stop();
    expect(replicas[1]!.ownedShards).toEqual([]);
    // The member Lease is released too, so the survivor counts one replica again; its shards free at once.
    await runChecked(clock, replicas.slice(0, 1), 2 * RETRY_MS);
    expect(replicas[0]!.ownedShards).toEqual(allShards);
    replicas[0]!.halt();
  });

  it('a replica that cannot renew (API server unreachable for it) stops owning before its Lease could expire for others', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5 });
    let reachable = true;
    const flaky: Cluster = {
      ...cluster,
      list: (query) =>
        reachable
          ? cluster.list(query)
          : async () => E.left({ _tag: 'Unavailable', code: 0, message: 'connection refused' }),
    };
    const lonely = new ShardLeases({
      cluster: flaky,
      clock,
      namespace: 'default',
      identity: 'a',
      shards: SHARDS,
      leaseDurationMs: LEASE_MS,
      retryPeriodMs: RETRY_MS,
    });
    lonely.start();
    await runChecked(clock, [lonely], 6_000);
    expect(lonely.ownedShards).toEqual(allShards);
    reachable = false;
    await runChecked(clock, [lonely], LEASE_MS - 2_000);
    expect(lonely.ownedShards).toEqual([]);
    lonely.halt();
  });

  it('ownership that lapses while renewals are slow is announced, and announced again when a late renewal restores it', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 11 });
    let slowUpdates = false;
    // Renewals that take longer than the validity window: ownership lapses, then the renewal lands.
    const slow: Cluster = {
      ...cluster,
      update: (object, options) => async () => {
        if (slowUpdates) await clock.sleep(LEASE_MS);
        return cluster.update(object, options)();
      },
    };
    const lonely = new ShardLeases({
      cluster: slow,
      clock,
      namespace: 'default',
      identity: 'a',
      shards: SHARDS,
      leaseDurationMs: LEASE_MS,
      retryPeriodMs: RETRY_MS,
    });
    let announcements = 0;
    lonely.onChange(() => {
      announcements++;
    });
    lonely.start();
    await runChecked(clock, [lonely], 6_000);
    expect(lonely.ownedShards).toEqual(allShards);
    slowUpdates = true;
    const before = announcements;
    let sawLapse = false;
    for (let t = 0; t < LEASE_MS + 2 * RETRY_MS; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
      if (lonely.ownedShards.length === 0) sawLapse = true;
    }
    slowUpdates = false;
    for (let t = 0; t < 3 * LEASE_MS; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
    }
    expect(sawLapse).toBe(true);
    expect(lonely.ownedShards).toEqual(allShards);
    expect(announcements).toBeGreaterThan(before);
    lonely.halt();
  });
});

const APPS = 40;
const appKeys = Array.from({ length: APPS }, (_, i) => `default/app-${i}`);
const configOf = (key: string): string => `ConfigMap/default/${key.slice('default/'.length)}-config`;

const createApps = async (cluster: Cluster): Promise<void> => {
  for (let i = 0; i < APPS; i++)
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: `app-${i}`,
        children: [{ kind: 'ConfigMap', name: `app-${i}-config`, data: { mode: 'a' } }],
      }),
    )();
};

const configMapsPresent = (cluster: MemoryCluster): number =>
  cluster.objects().filter((o) => o.kind === 'ConfigMap' && /^app-\d+-config$/.test(o.metadata.name)).length;

describe('sharded controllers', () => {
  it("each Application is reconciled and written only by the replica owning its shard; a dead replica's Applications are taken over", async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 6 });
    const writes: Write[] = [];
    const reconciledBy = new Map<string, Set<string>>();
    const replicas = ['a', 'b', 'c'].map((id) => {
      const leases = replica(cluster, clock, id);
      const controller = new Controller({
        cluster: recordingCluster(cluster, id, writes, () => clock.now()),
        clock,
        random: () => 0.5,
        events: false,
        resyncMs: 60_000,
        planOptions: { readiness: 'existence' },
        shard: leases,
        onReconciled: (key) => reconciledBy.set(key, new Set([...(reconciledBy.get(key) ?? []), id])),
      });
      return { id, leases, controller };
    });
    await createApps(cluster);
    for (const r of replicas) {
      r.leases.start();
      await r.controller.start();
    }
    await runChecked(
      clock,
      replicas.map((r) => r.leases),
      20_000,
    );
    expect(configMapsPresent(cluster)).toBe(APPS);
    // Every key reconciled by one replica only, and that replica owns the key's shard.
    for (const key of appKeys) {
      expect([...(reconciledBy.get(key) ?? [])], key).toHaveLength(1);
      const owner = replicas.find((r) => r.leases.owns(key));
      expect(reconciledBy.get(key)?.has(owner?.id ?? '?'), key).toBe(true);
      expect(
        writes.filter((w) => w.object === configOf(key)).map((w) => w.replica),
        key,
      ).toEqual([owner?.id]);
    }
    // Kill c (no release); delete its ConfigMaps behind its back: a, b must recreate them after taking over.
    const victim = replicas[2]!;
    const orphanedKeys = appKeys.filter((key) => victim.leases.owns(key));
    expect(orphanedKeys.length).toBeGreaterThan(0);
    victim.leases.halt();
    await victim.controller.stop(0);
    for (const key of orphanedKeys)
      await cluster.delete({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        name: `${key.slice('default/'.length)}-config`,
      })();
    const writesBefore = writes.length;
    await runChecked(
      clock,
      replicas.slice(0, 2).map((r) => r.leases),
      LEASE_MS + 3 * RETRY_MS,
    );
    expect(configMapsPresent(cluster)).toBe(APPS);
    const recreated = writes.slice(writesBefore).filter((w) => w.object.startsWith('ConfigMap/'));
    expect(recreated.map((w) => w.object).sort()).toEqual(orphanedKeys.map(configOf).sort());
    expect(recreated.every((w) => w.replica !== 'c')).toBe(true);
    expect(concurrentWrites(writes)).toEqual([]);
    for (const r of replicas.slice(0, 2)) {
      r.leases.halt();
      await r.controller.stop(0);
    }
  });

  it('static shards (--shard i --shards n) partition the Applications without Leases', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 7 });
    const writes: Write[] = [];
    const controllers = [0, 1, 2].map(
      (shard) =>
        new Controller({
          cluster: recordingCluster(cluster, String(shard), writes, () => clock.now()),
          clock,
          random: () => 0.5,
          events: false,
          resyncMs: 0,
          planOptions: { readiness: 'existence' },
          shard: staticShard(shard, 3),
        }),
    );
    await createApps(cluster);
    for (const c of controllers) await c.start();
    for (let t = 0; t < 5_000; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
    }
    expect(configMapsPresent(cluster)).toBe(APPS);
    for (const key of appKeys)
      expect(writes.filter((w) => w.object === configOf(key)).map((w) => w.replica)).toEqual([String(shardOf(key, 3))]);
    controllers.forEach((c, shard) =>
      expect([...c.reconcilesByKey.keys()].every((key) => shardOf(key, 3) === shard)).toBe(true),
    );
    for (const c of controllers) await c.stop(0);
    const cluster2 = cluster.list({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default' });
    const leases = await cluster2();
    expect(E.isRight(leases) && leases.right.items.length).toBe(0);
  });

  it('ownership lost in the middle of a reconcile: the write is refused, never sent', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 8 });
    let owned = true;
    let losses = 0;
    const listeners = new Set<() => void>();
    const ownership: ShardOwnership = {
      owns: () => owned,
      onChange: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    // Children read from the server, not from watch caches: ownership is lost while the reconcile
    // reads the missing ConfigMap, before its first write.
    const losing: Cluster = {
      ...cluster,
      get: (ref) => async () => {
        const got = await cluster.get(ref)();
        if (ref.kind === 'ConfigMap' && losses++ === 0) owned = false;
        return got;
      },
    };
    const writes: Write[] = [];
    const controller = new Controller({
      cluster: recordingCluster(losing, 'a', writes, () => clock.now()),
      clock,
      random: () => 0.5,
      events: false,
      resyncMs: 0,
      planOptions: { readiness: 'existence' },
      shard: ownership,
      watchChildren: false,
    });
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'app-0',
        children: [{ kind: 'ConfigMap', name: 'app-0-config', data: { mode: 'a' } }],
      }),
    )();
    await controller.start();
    for (let t = 0; t < 3_000; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
    }
    expect(controller.reconcileCount).toBe(1);
    expect(writes).toEqual([]);
    expect(configMapsPresent(cluster)).toBe(0);
    // Regained: the controller is told and reconciles the key again.
    owned = true;
    for (const l of listeners) l();
    for (let t = 0; t < 3_000; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
    }
    await controller.stop(0);
    expect(configMapsPresent(cluster)).toBe(1);
  });

  it('the ownership fence passes reads and refuses writes once ownership is gone', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 9 });
    let owned = true;
    const fenced = fencedByOwnership(cluster, () => owned, 'default/x');
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'x' },
      data: {},
    } as unknown as Resource;
    expect(E.isRight(await fenced.create(configMap)())).toBe(true);
    owned = false;
    const refused = await fenced.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' })();
    expect(E.isLeft(refused) && refused.left.message).toContain('no longer owns the shard of default/x');
    const read = await fenced.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' })();
    expect(E.isRight(read) && O.isSome(read.right)).toBe(true);
  });

  it('operators with --sharding lease share the work; stopping one hands its Applications over at once', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 10 });
    await createApps(cluster);
    const start = (identity: string) =>
      startOperator({
        cluster,
        clock,
        random: () => 0.5,
        resyncMs: 60_000,
        readiness: 'existence',
        sharding: {
          mode: 'lease',
          shards: SHARDS,
          namespace: 'default',
          identity,
          leaseDurationMs: LEASE_MS,
          retryPeriodMs: RETRY_MS,
        },
      });
    const [a, b] = [await start('a'), await start('b')];
    for (let t = 0; t < 20_000; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
    }
    expect(configMapsPresent(cluster)).toBe(APPS);
    expect(a.controller.reconcilesByKey.size).toBeGreaterThan(0);
    expect(b.controller.reconcilesByKey.size).toBeGreaterThan(0);
    expect([...a.controller.reconcilesByKey.keys()].filter((key) => b.controller.reconcilesByKey.has(key))).toEqual([]);
    const bKeys = [...b.controller.reconcilesByKey.keys()];
    await b.stop(0);
    for (const key of bKeys)
      await cluster.delete({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        name: `${key.slice('default/'.length)}-config`,
      })();
    // Released, not expired: well within one lease duration.
    for (let t = 0; t < 2 * RETRY_MS + 1_000; t += 250) {
      await flushMicrotasks();
      await clock.advance(250);
    }
    expect(configMapsPresent(cluster)).toBe(APPS);
    expect(bKeys.every((key) => a.controller.reconcilesByKey.has(key))).toBe(true);
    await a.stop(0);
  });
});

describe('a sharded replica stopping', () => {
  it('keeps its shard Leases until they expire when it had to abandon reconciles: its writes still in flight land before another replica takes over', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 6 });
    const writes: Write[] = [];
    const start = (identity: string) =>
      startOperator({
        cluster: recordingCluster(cluster, identity, writes, () => clock.now()),
        clock,
        random: () => 0.5,
        readiness: 'existence',
        sharding: { mode: 'lease', shards: 1, namespace: 'default', identity, retryPeriodMs: 500 },
      });
    const a = await start('a');
    const tick = async (ms: number): Promise<void> => {
      for (let t = 0; t < ms; t += 100) {
        await flushMicrotasks();
        await clock.advance(100);
      }
    };
    await tick(2_000);
    const b = await start('b');
    await tick(5_000);
    // Creates take 1.9 s (within the fence margin): the shard's owner stops while its create is on the way.
    cluster.setFaults({ latency: [{ minMs: 1_900, maxMs: 1_900, kinds: ['ConfigMap'], verbs: ['create'] }] });
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'app-0',
        children: [{ kind: 'ConfigMap', name: 'app-0-config', data: { mode: 'a' } }],
      }),
    )();
    for (let i = 0; i < 50 && !writes.some((w) => w.verb === 'create' && w.object === configOf('default/app-0')); i++)
      await tick(100);
    const creator = writes.find((w) => w.verb === 'create' && w.object === configOf('default/app-0'))?.replica;
    expect(creator).toBeDefined();
    const [owner, standby] = creator === 'a' ? [a, b] : [b, a];
    const stopped = owner.stop(0);
    await tick(40_000);
    expect(await stopped).toBe(false);
    expect(concurrentWrites(writes)).toEqual([]);
    expect(configMapsPresent(cluster)).toBe(1);
    await standby.stop(1_000);
  });
});
