/**
 * Shard assignment decisions: given the shard and member Leases as one replica observed them and
 * its local monotonic time, which Leases it acquires, renews and releases. Pure; the runtime
 * reads the Leases, calls `decideShards`, and writes with optimistic concurrency, so two replicas
 * racing for one free Lease cannot both win.
 *
 * Expiry is judged the client-go way: a Lease counts as expired `duration` after this replica first
 * *observed* its current record (holder and renewTime), on its own clock — never by comparing the
 * Lease's timestamps with the local clock, so clock skew between replicas cannot give a shard two
 * owners. A holder trusts its own Lease only until `sentAt + duration - margin`, where `sentAt` is
 * the local time before it read the Lease it then renewed: its validity always ends before anyone
 * else can see the Lease as expired.
 */

/** One Lease as last read: who holds it (`''` when released) and when its current record was first seen. */
export type LeaseObservation = {
  readonly holder: string;
  /** Local monotonic ms at which this record (holder, renewTime) was first observed. */
  readonly observedAt: number;
  readonly durationMs: number;
  /**
   * How old the record already was when first observed: the holder's `renewTime` against this
   * replica's wall clock, in [0, durationMs]; 0 (or absent) once this replica has seen it change.
   * Used only to count members, never to take a Lease (see `isLiveMember`).
   */
  readonly ageAtObservationMs?: number;
};

/** Everything one replica knows, indexed by slot: `undefined` = no Lease object yet (created on acquire). */
export type ShardView = {
  readonly self: string;
  readonly shards: ReadonlyArray<LeaseObservation | undefined>;
  /**
   * Member slots (as many as shards): a replica holds one to be counted; replicas beyond the shard
   * count hold none and stand by (more replicas than shards could not share work anyway).
   */
  readonly members: ReadonlyArray<LeaseObservation | undefined>;
  readonly now: number;
};

export type LeaseDecision = {
  readonly acquire: ReadonlyArray<number>;
  readonly renew: ReadonlyArray<number>;
  readonly release: ReadonlyArray<number>;
};

export type ShardDecision = { readonly shards: LeaseDecision; readonly members: LeaseDecision };

/** Free to take: released, or not renewed for its duration as seen by this replica. */
export const isFree = (lease: LeaseObservation | undefined, now: number): boolean =>
  lease === undefined || lease.holder === '' || now - lease.observedAt >= lease.durationMs;

const heldBy = (leases: ReadonlyArray<LeaseObservation | undefined>, self: string): ReadonlyArray<number> =>
  leases.flatMap((lease, slot) => (lease?.holder === self ? [slot] : []));

/**
 * Whether a member Lease still counts its holder: renewed less than its duration ago, judged by its
 * `renewTime` for a record this replica first saw already old (a replica that joins after another
 * died must not count the dead one for a whole duration: it would take less than its share of the
 * shards the survivors release, leaving them without an owner), and by local observation otherwise
 * (as leader election does). This only sizes the fair share, so a wrong clock costs balance for a
 * round (until the record is seen to change), never safety: Leases are taken only when `isFree`.
 */
export const isLiveMember = (lease: LeaseObservation | undefined, now: number): boolean =>
  lease !== undefined &&
  lease.holder !== '' &&
  now - lease.observedAt + (lease.ageAtObservationMs ?? 0) < lease.durationMs;

/** The live replicas (holders of unexpired member slots), sorted: every replica ranks them alike. */
export const liveMembers = (view: ShardView): ReadonlyArray<string> => {
  const live = new Set<string>();
  for (const lease of view.members)
    if (lease !== undefined && (lease.holder === view.self || isLiveMember(lease, view.now))) live.add(lease.holder);
  return [...live].sort();
};

/**
 * How many shards `self` should hold among `live` replicas: an even split, the first
 * `shards mod n` replicas in sorted order taking one more. 0 when `self` is not a live member.
 */
export const fairShare = (self: string, live: ReadonlyArray<string>, shards: number): number => {
  const rank = live.indexOf(self);
  if (rank < 0) return 0;
  return Math.floor(shards / live.length) + (rank < shards % live.length ? 1 : 0);
};

/**
 * Slots in the order this replica prefers them: starting at its own stretch of the ring, so
 * replicas joining together contend for different free Leases rather than all for slot 0.
 */
const preferenceOrder = (count: number, rank: number, members: number): ReadonlyArray<number> => {
  const start = members === 0 ? 0 : Math.floor((rank * count) / members);
  return Array.from({ length: count }, (_, i) => (start + i) % count);
};

/** Holds `target` of `leases`: keeps (renews) what it has up to target, releases the rest, acquires free ones. */
const decideLeases = (
  leases: ReadonlyArray<LeaseObservation | undefined>,
  self: string,
  target: number,
  order: ReadonlyArray<number>,
  now: number,
): LeaseDecision => {
  const held = heldBy(leases, self);
  // Release the slots furthest from this replica's preferred stretch; keep the rest.
  const byPreference = [...held].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const keep = byPreference.slice(0, target);
  const release = byPreference.slice(target);
  const acquire = order
    .filter((slot) => leases[slot]?.holder !== self && isFree(leases[slot], now))
    .slice(0, Math.max(0, target - keep.length));
  return { acquire, renew: keep.sort((a, b) => a - b), release: release.sort((a, b) => a - b) };
};

/**
 * The decision of one replica for one round.
 * Guarantees: never acquires a Lease that is not free as this replica observed it; holds at most
 * one member slot; holds at most its fair share of shards among the live members it sees (extras
 * are released, so a joining replica gets shards once the others observe it).
 */
export const decideShards = (view: ShardView): ShardDecision => {
  const ownSlot = heldBy(view.members, view.self);
  const memberOrder = preferenceOrder(view.members.length, 0, 0);
  const members = decideLeases(view.members, view.self, 1, memberOrder, view.now);
  const isMember = ownSlot.length > 0 || members.acquire.length > 0;
  const live = liveMembers(view);
  // A replica still acquiring its slot counts itself, so it plans for the split it is about to join.
  const counted = isMember && !live.includes(view.self) ? [...live, view.self].sort() : live;
  // Shards are only taken by a replica that holds its member slot: others must be able to count it.
  const target = ownSlot.length > 0 ? fairShare(view.self, counted, view.shards.length) : 0;
  const order = preferenceOrder(view.shards.length, Math.max(0, counted.indexOf(view.self)), counted.length);
  return { members, shards: decideLeases(view.shards, view.self, target, order, view.now) };
};

/**
 * Whether a holder may still act on a Lease it renewed (or acquired) with a read started at `sentAt`:
 * until `duration - margin` after that, on its own clock. Others see it expire no earlier than
 * `duration` after they observed the renewal, which happened after `sentAt`.
 */
export const stillValid = (sentAt: number, durationMs: number, marginMs: number, now: number): boolean =>
  now - sentAt < durationMs - marginMs;
