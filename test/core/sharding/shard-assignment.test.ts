/**
 * Shard of a key (FNV-1a) and the Lease decisions: unit cases, and properties over a model of replicas and an API
 * server.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideShards,
  fairShare,
  fnv1a32,
  liveMembers,
  shardOf,
  type LeaseObservation,
} from '../../../core/internal.js';
import { DURATION_MS, LeaseWorld, RETRY_MS } from './lease-model.js';

const held = (holder: string, observedAt = 0): LeaseObservation => ({ holder, observedAt, durationMs: DURATION_MS });

describe('shardOf', () => {
  it('is FNV-1a 32 (published test vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('spreads 3 000 Application keys evenly enough over 12 shards (each within ±25% of the mean)', () => {
    const counts = new Array<number>(12).fill(0);
    for (let i = 0; i < 3_000; i++) counts[shardOf(`team-${i % 7}/app-${i}`, 12)]! += 1;
    for (const count of counts) expect(Math.abs(count - 250)).toBeLessThan(63);
  });

  it('puts every key in exactly one shard in range', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (key, shards) => {
        const shard = shardOf(key, shards);
        return Number.isInteger(shard) && shard >= 0 && shard < shards;
      }),
    );
  });
});

describe('decideShards', () => {
  it('a lone replica takes a member slot, then every shard', () => {
    const first = decideShards({
      self: 'a',
      shards: [undefined, undefined, undefined],
      members: [undefined, undefined, undefined],
      now: 0,
    });
    expect(first.members).toEqual({ acquire: [0], renew: [], release: [] });
    expect(first.shards.acquire).toEqual([]);
    const second = decideShards({
      self: 'a',
      shards: [undefined, undefined, undefined],
      members: [held('a'), undefined, undefined],
      now: 1,
    });
    expect(second.shards.acquire).toEqual([0, 1, 2]);
  });

  it('releases extras once a joining replica holds its member slot (rebalancing)', () => {
    const decision = decideShards({
      self: 'a',
      shards: [held('a'), held('a'), held('a'), held('a')],
      members: [held('a'), held('b', 1_000), undefined, undefined],
      now: 2_000,
    });
    expect(decision.shards).toEqual({ acquire: [], renew: [0, 1], release: [2, 3] });
    const joiner = decideShards({
      self: 'b',
      shards: [held('a'), held('a'), undefined, undefined],
      members: [held('a'), held('b'), undefined, undefined],
      now: 2_000,
    });
    expect(joiner.shards.acquire).toEqual([2, 3]);
  });

  it("takes over a dead replica's shards only after their lease duration as observed locally", () => {
    const view = (now: number) => ({
      self: 'a',
      shards: [held('a'), held('b', 1_000)],
      members: [held('a', now), held('b', 1_000)],
      now,
    });
    expect(decideShards(view(1_000 + DURATION_MS - 1)).shards.acquire).toEqual([]);
    expect(decideShards(view(1_000 + DURATION_MS)).shards.acquire).toEqual([1]);
  });

  it('ignores renewTime clocks: a lease observed just now is live however old its timestamps', () => {
    // observedAt is the local time the record changed; there is no other notion of time here.
    expect(liveMembers({ self: 'a', shards: [], members: [held('a'), held('b', 100_000)], now: 100_001 })).toEqual([
      'a',
      'b',
    ]);
  });

  it('splits shards evenly, the first replicas in sorted order taking the remainder', () => {
    expect(['a', 'b', 'c'].map((r) => fairShare(r, ['a', 'b', 'c'], 10))).toEqual([4, 3, 3]);
    expect(fairShare('z', ['a', 'b'], 10)).toBe(0);
  });

  it('a replica beyond the shard count stands by (no member slot, no shards)', () => {
    const decision = decideShards({
      self: 'c',
      shards: [held('a'), held('b')],
      members: [held('a'), held('b')],
      now: 10,
    });
    expect(decision).toEqual({
      members: { acquire: [], renew: [], release: [] },
      shards: { acquire: [], renew: [], release: [] },
    });
  });
});

type Step =
  | { readonly _tag: 'advance'; readonly ms: number }
  | { readonly _tag: 'tick' | 'read' | 'write' | 'kill'; readonly replica: number }
  | { readonly _tag: 'join'; readonly offset: number }
  /** The others keep working while one replica is paused (SIGSTOP, a long GC, a stalled connection). */
  | { readonly _tag: 'pause'; readonly replica: number; readonly ms: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  // Mostly short steps around the retry period (where expiry races happen), sometimes long pauses.
  {
    weight: 6,
    arbitrary: fc.record({ _tag: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2 * RETRY_MS }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ _tag: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2 * DURATION_MS }) }),
  },
  { weight: 8, arbitrary: fc.record({ _tag: fc.constant('tick' as const), replica: fc.nat({ max: 5 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({ _tag: fc.constantFrom('read' as const, 'write' as const), replica: fc.nat({ max: 5 }) }),
  },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant('kill' as const), replica: fc.nat({ max: 5 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ _tag: fc.constant('join' as const), offset: fc.integer({ min: -1e9, max: 1e9 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant('pause' as const),
      replica: fc.nat({ max: 5 }),
      ms: fc.integer({ min: 0, max: 2 * DURATION_MS }),
    }),
  },
);

const scenario = fc.record({
  shards: fc.integer({ min: 1, max: 8 }),
  offsets: fc.array(fc.integer({ min: -1e9, max: 1e9 }), { minLength: 1, maxLength: 4 }),
  steps: fc.array(stepArbitrary, { maxLength: 150 }),
  /** Start from replicas that already split the shards (most races need an owner first). */
  settled: fc.boolean(),
});

/** Plays one step; returns the shards doubly owned at any moment during it. */
const play = (world: LeaseWorld, step: Step): ReadonlyArray<number> => {
  if (step._tag === 'pause') return world.runFairly(step.ms, step.replica % world.replicas.length);
  playAtomic(world, step);
  return world.doublyOwned();
};

const playAtomic = (world: LeaseWorld, step: Exclude<Step, { _tag: 'pause' }>): void => {
  switch (step._tag) {
    case 'advance':
      world.advance(step.ms);
      return;
    case 'tick':
      world.read(step.replica % world.replicas.length);
      world.write(step.replica % world.replicas.length);
      return;
    case 'read':
      world.read(step.replica % world.replicas.length);
      return;
    case 'write':
      world.write(step.replica % world.replicas.length);
      return;
    case 'kill':
      world.kill(step.replica % world.replicas.length);
      return;
    case 'join':
      if (world.replicas.length < 6) world.join(step.offset);
      return;
  }
};

describe('shard Leases among replicas (model)', () => {
  it('no shard is ever owned by two replicas that can still act, whatever the interleaving, pauses and clock offsets', () => {
    fc.assert(
      fc.property(scenario, ({ shards, offsets, steps, settled }) => {
        const world = new LeaseWorld(shards);
        for (const offset of offsets) world.join(offset);
        if (settled) world.runFairly(3 * DURATION_MS);
        for (const step of steps) if (play(world, step).length > 0) return false;
        return world.runFairly(10 * DURATION_MS).length === 0;
      }),
      { numRuns: 300 },
    );
  });

  it('every shard is eventually owned by exactly one live replica, and the live members split them evenly', () => {
    fc.assert(
      fc.property(scenario, ({ shards, offsets, steps, settled }) => {
        const world = new LeaseWorld(shards);
        for (const offset of offsets) world.join(offset);
        if (settled) world.runFairly(3 * DURATION_MS);
        for (const step of steps) play(world, step);
        const live = world.replicas.filter((r) => !r.killed);
        if (live.length === 0) return true;
        world.runFairly(10 * DURATION_MS);
        for (let shard = 0; shard < shards; shard++) {
          const owners = live.filter((r) => world.owns(r, shard));
          if (owners.length !== 1 || owners[0]?.id !== world.holderOf(shard)) return false;
        }
        const counts = live.map(
          (r) => Array.from({ length: shards }, (_, s) => s).filter((s) => world.owns(r, s)).length,
        );
        const working = counts.filter((count) => count > 0);
        return working.length === Math.min(live.length, shards) && Math.max(...working) - Math.min(...working) <= 1;
      }),
      { numRuns: 300 },
    );
  });

  it('a replica killed while holding shards loses them to the others within one lease duration and a few retry periods', () => {
    const world = new LeaseWorld(6);
    for (const offset of [0, 5_000, -7_000]) world.join(offset);
    world.runFairly(5 * DURATION_MS);
    const victim = world.replicas[1]!;
    const victimShards = Array.from({ length: 6 }, (_, s) => s).filter((s) => world.owns(victim, s));
    expect(victimShards).toHaveLength(2);
    world.kill(1);
    world.runFairly(DURATION_MS - RETRY_MS);
    expect(victimShards.every((s) => world.holderOf(s) === victim.id)).toBe(true);
    world.runFairly(3 * RETRY_MS);
    for (const s of victimShards)
      expect(world.replicas.filter((r) => !r.killed).filter((r) => world.owns(r, s))).toHaveLength(1);
  });
});
