/**
 * Model-based test (fc.commands) of shard membership: replicas that tick every retry period, die
 * (kill -9: nothing released) and join at any moment, with monotonic clocks at any offset and wall
 * clocks a little apart. The rule under test: a member Lease counts its holder only while it is
 * fresh — for a record first seen, by its `renewTime` — so a replica that joins after another died
 * takes its share of the live members at once, and a shard the others release never waits a lease
 * duration for an owner (unless it was released for a replica that then died: that one is counted
 * until its member Lease expires, as any takeover waits). Safety (never two owners) is checked at
 * every step as well.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DURATION_MS, LeaseWorld, RETRY_MS } from './lease-model.js';

/** Wall clocks of replicas agree to within this (NTP-synced nodes; far less than a retry period). */
const MAX_WALL_SKEW_MS = 250;

/** A released shard may wait for an owner at most this long (the real-server test's bound too). */
const MAX_OWNERLESS_MS = 2 * RETRY_MS;

type Real = {
  readonly world: LeaseWorld;
  /** Per shard: model time since which it has had no owner (undefined: it has one). */
  readonly ownerlessSince: Array<number | undefined>;
  /** The longest ownerless stretch seen so far, per shard (not counting those a kill explains). */
  readonly worst: number[];
  /** Model time of the last kill. */
  lastKillAt: number | undefined;
};
type Model = { live: number; joined: number };

/**
 * Ownerless: its Lease released (no holder) — what a replica gives up when it counts a new member.
 * A dead holder's Lease is not a gap but the takeover wait every leader election has (a Lease is
 * taken only a full duration after its record was observed, whatever its renewTime says).
 */
const ownerless = (world: LeaseWorld, shard: number): boolean => {
  const stored = world.storedShard(shard);
  return stored === undefined || stored.holder === '';
};

const observe = (real: Real): void => {
  const { world } = real;
  if (world.replicas.every((replica) => replica.killed)) {
    real.ownerlessSince.fill(undefined);
    return;
  }
  for (let shard = 0; shard < world.shards; shard++) {
    if (!ownerless(world, shard)) {
      real.ownerlessSince[shard] = undefined;
      continue;
    }
    const since = (real.ownerlessSince[shard] ??= world.time);
    // A replica that dies right after the others released shards for it (it joined, or they counted
    // it) is still counted until its member Lease expires: those shards wait as a takeover does.
    const excused = real.lastKillAt !== undefined && real.lastKillAt >= since - DURATION_MS - RETRY_MS;
    if (!excused) real.worst[shard] = Math.max(real.worst[shard] ?? 0, world.time - since);
  }
};

/** Every live replica reads and writes once per retry period for `periods` periods; checks safety at each step. */
class RunFor implements fc.Command<Model, Real> {
  constructor(readonly periods: number) {}
  check = (): boolean => true;
  run(_model: Model, real: Real): void {
    for (let period = 0; period < this.periods; period++) {
      expect(real.world.runFairly(RETRY_MS)).toEqual([]);
      observe(real);
    }
  }
  toString = (): string => `RunFor(${this.periods})`;
}

/** kill -9 of one live replica: its Leases stay as they are until they expire. */
class Kill implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>): boolean => model.live > 0;
  run(model: Model, real: Real): void {
    const live = real.world.replicas.flatMap((replica, index) => (replica.killed ? [] : [index]));
    real.world.kill(live[this.pick % live.length]!);
    real.lastKillAt = real.world.time;
    model.live--;
    observe(real);
  }
  toString = (): string => `Kill(${this.pick})`;
}

class Join implements fc.Command<Model, Real> {
  constructor(
    readonly offset: number,
    readonly wallSkew: number,
  ) {}
  check = (model: Readonly<Model>): boolean => model.joined < 6;
  run(model: Model, real: Real): void {
    real.world.join(this.offset, this.wallSkew);
    model.live++;
    model.joined++;
    observe(real);
  }
  toString = (): string => `Join(offset ${this.offset}, wall ${this.wallSkew})`;
}

const commands = [
  fc.integer({ min: 1, max: 12 }).map((periods) => new RunFor(periods)),
  fc.nat().map((pick) => new Kill(pick)),
  fc
    .tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -MAX_WALL_SKEW_MS, max: MAX_WALL_SKEW_MS }))
    .map(([offset, wallSkew]) => new Join(offset, wallSkew)),
];

describe('shard membership (model, fc.commands)', () => {
  it('no released shard waits longer than two retry periods for an owner while a replica lives, through kills and joins', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.commands(commands, { maxCommands: 40 }), (shards, cmds) => {
        const world = new LeaseWorld(shards);
        world.join(0);
        world.join(3_000, 100);
        world.runFairly(3 * DURATION_MS);
        const real: Real = {
          world,
          ownerlessSince: Array(shards).fill(undefined),
          worst: Array(shards).fill(0),
          lastKillAt: undefined,
        };
        fc.modelRun(() => ({ model: { live: 2, joined: 2 }, real }), cmds);
        // Whatever happened, let the live replicas settle, then look at the worst gap seen.
        new RunFor(Math.ceil((2 * DURATION_MS) / RETRY_MS)).run({ live: 0, joined: 0 }, real);
        expect(Math.max(...real.worst)).toBeLessThanOrEqual(MAX_OWNERLESS_MS);
      }),
      { numRuns: 200 },
    );
  });

  it('the replica that joins after one was killed counts the live members only and takes its share within a few retry periods', () => {
    const world = new LeaseWorld(4);
    world.join(0);
    world.join(-50_000, 120);
    world.runFairly(3 * DURATION_MS);
    world.kill(1);
    world.runFairly(DURATION_MS + 3 * RETRY_MS);
    const survivor = world.replicas[0]!;
    expect([0, 1, 2, 3].filter((shard) => world.owns(survivor, shard))).toHaveLength(4);
    world.join(900_000, -80);
    world.runFairly(3 * RETRY_MS);
    const newcomer = world.replicas[2]!;
    expect([0, 1, 2, 3].filter((shard) => world.owns(newcomer, shard))).toHaveLength(2);
    expect([0, 1, 2, 3].filter((shard) => world.owns(survivor, shard))).toHaveLength(2);
  });
});
