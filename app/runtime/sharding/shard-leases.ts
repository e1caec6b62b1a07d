/**
 * Lease-based shards (`--sharding lease`): each replica holds a member Lease to be counted and up
 * to its fair share of the per-shard Leases (`<prefix>-shard-<i>`, coordination.k8s.io/v1, in the
 * operator namespace); it renews them, releases extras when a replica joins, and takes the shards
 * of a dead replica once their Leases expire. The decisions are `decideShards` (core); this class
 * reads the Leases, writes the decision with optimistic concurrency, and answers `owns`.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  decideShards,
  shardOf,
  showClusterError,
  stillValid,
  type Clock,
  type ClusterError,
  type ClusterReader,
  type ClusterWriter,
  type LeaseObservation,
  type Resource,
} from '../../../core/internal.js';
import { LEASE_API_VERSION, leaseRecordOf, leaseSpecOf, microTime, newLease, withLeaseSpec } from '../lease.js';
import { silentLogger, type Logger } from '../../logging/logger.js';
import { DEFAULT_LEASE_PREFIX, SHARDING_LABEL, shardingLeaseName } from '../../manifests/lease-names.js';
import type { ShardOwnership } from './ownership.js';

export type ShardLeasesOptions = {
  readonly cluster: ClusterReader & ClusterWriter;
  /** Timers and the wall time written into `renewTime` (informational only). */
  readonly clock: Clock;
  /** Monotonic ms for every expiry and validity judgement (default `clock.now`; the CLI passes `performance.now`). */
  readonly monotonic?: () => number;
  readonly namespace: string;
  /** This replica (the pod name): Lease holders are compared by it. */
  readonly identity: string;
  readonly shards: number;
  /** Lease names start with it (default `kreconcile`): `<prefix>-shard-<i>`, `<prefix>-member-<i>`. */
  readonly prefix?: string;
  /** How long a Lease is valid without renewal (default 15 s). */
  readonly leaseDurationMs?: number;
  /** How often Leases are read and renewed (default 2 s). */
  readonly retryPeriodMs?: number;
  /**
   * Ownership ends this long before others could see the Lease expire: covers a write's transit (default min(2 s,
   * duration/5)).
   */
  readonly fenceMarginMs?: number;
  readonly logger?: Logger;
};

type Slot = { readonly kind: 'shard' | 'member'; readonly index: number };

/** What was read of one Lease: the object (for its resourceVersion) and the record first seen at. */
type Read = { readonly lease: Resource; readonly record: string; readonly observation: LeaseObservation };

export class ShardLeases implements ShardOwnership {
  /** Slot → monotonic time before the read whose renewal (or acquisition) succeeded. */
  private readonly held = new Map<string, number>();
  private readonly observed = new Map<string, Read>();
  private readonly listeners = new Set<() => void>();
  private owned: ReadonlyArray<number> = [];
  /** Times the owned set changed (tests and metrics read it). */
  ownershipChanges = 0;
  /** A held shard was found past its validity since the last announcement (a change even if renewed since). */
  private lapsed = false;
  private cancel: (() => void) | undefined;
  private stopped = false;
  private readonly monotonic: () => number;
  private readonly prefix: string;

  constructor(private readonly options: ShardLeasesOptions) {
    if (!Number.isInteger(options.shards) || options.shards < 1)
      throw new Error(`shards must be a positive integer, got ${options.shards}`);
    this.monotonic = options.monotonic ?? (() => options.clock.now());
    this.prefix = options.prefix ?? DEFAULT_LEASE_PREFIX;
  }

  owns(key: string): boolean {
    return this.ownsShard(shardOf(key, this.options.shards));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Shards owned now (valid by this replica's clock), ascending. */
  get ownedShards(): ReadonlyArray<number> {
    return Array.from({ length: this.options.shards }, (_, i) => i).filter((i) => this.ownsShard(i));
  }

  /** Starts the first round now; then one every retry period. */
  start(): void {
    void this.tick();
  }

  /** One round: read the Leases, decide, write (`start` runs one every retry period). */
  private async round(): Promise<void> {
    const sentAt = this.monotonic();
    const leases = await this.options.cluster.list({
      apiVersion: LEASE_API_VERSION,
      kind: 'Lease',
      namespace: this.options.namespace,
      labelSelector: `${SHARDING_LABEL}=${this.prefix}`,
    })();
    if (this.stopped) return;
    if (E.isLeft(leases)) {
      this.warn(leases.left);
      this.announce();
      return;
    }
    // A slow answer is still safe to act on: every write is a compare-and-swap on the version read,
    // records first seen now count from now, and what is renewed counts from `sentAt`, before the read.
    const readAt = this.monotonic();
    const byName = new Map(leases.right.items.map((lease) => [lease.metadata.name, lease]));
    const view = (kind: Slot['kind']) =>
      Array.from({ length: this.options.shards }, (_, index) =>
        this.observe({ kind, index }, byName.get(this.nameOf({ kind, index })), readAt),
      );
    const decision = decideShards({
      self: this.options.identity,
      shards: view('shard'),
      members: view('member'),
      now: readAt,
    });
    // Whatever this replica does not renew or acquire now, it stops owning before any write is sent.
    const keep = new Set([
      ...decision.shards.renew.map((index) => `shard/${index}`),
      ...decision.members.renew.map((index) => `member/${index}`),
    ]);
    for (const slot of this.held.keys()) if (!keep.has(slot)) this.held.delete(slot);
    this.announce();
    const writes: Array<Promise<void>> = [];
    for (const [kind, part] of [
      ['shard', decision.shards],
      ['member', decision.members],
    ] as const) {
      for (const index of [...part.acquire, ...part.renew]) writes.push(this.hold({ kind, index }, sentAt));
      for (const index of part.release) writes.push(this.release({ kind, index }));
    }
    await Promise.all(writes);
    this.announce();
  }

  /** Stops renewing and releases every held Lease, so others take the shards at once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    const slots = [...this.held.keys()];
    this.halt();
    await Promise.all(slots.map((slot) => this.release(this.parse(slot))));
  }

  /** Stops renewing without releasing (a crash, as far as the others can tell); ownership ends now. */
  halt(): void {
    this.stopped = true;
    this.cancel?.();
    this.held.clear();
    this.announce();
  }

  private get durationMs(): number {
    return this.options.leaseDurationMs ?? 15_000;
  }

  private get marginMs(): number {
    return this.options.fenceMarginMs ?? Math.min(2_000, this.durationMs / 5);
  }

  private ownsShard(index: number): boolean {
    const sentAt = this.held.get(`shard/${index}`);
    if (sentAt === undefined || this.stopped) return false;
    const valid = stillValid(sentAt, this.durationMs, this.marginMs, this.monotonic());
    if (!valid) this.lapsed = true;
    return valid;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.round();
    } catch (defect) {
      (this.options.logger ?? silentLogger).error({ err: String(defect) }, 'shard leases: round crashed (defect)');
    }
    if (!this.stopped)
      this.cancel = this.options.clock.setTimer(this.options.retryPeriodMs ?? 2_000, () => void this.tick());
  }

  private nameOf(slot: Slot): string {
    return shardingLeaseName(slot.kind, slot.index, this.prefix);
  }

  private parse(key: string): Slot {
    const slash = key.indexOf('/');
    return { kind: key.slice(0, slash) === 'member' ? 'member' : 'shard', index: Number(key.slice(slash + 1)) };
  }

  /**
   * A new record (holder, renewTime, duration) restarts its holder's lease period at `now`, on this
   * replica's clock. A record seen for the first time also carries how old its `renewTime` already
   * was by this replica's wall clock: member counting judges a record it never saw change by that.
   */
  private observe(slot: Slot, lease: Resource | undefined, now: number): LeaseObservation | undefined {
    const name = this.nameOf(slot);
    if (lease === undefined) {
      this.observed.delete(name);
      return undefined;
    }
    const fields = leaseRecordOf(lease);
    const holder = fields.holderIdentity ?? '';
    const durationMs = (fields.leaseDurationSeconds ?? 0) * 1000;
    const record = `${holder}|${String(fields.renewTime)}|${durationMs}`;
    const previous = this.observed.get(name);
    const observation =
      previous?.record === record
        ? previous.observation
        : {
            holder,
            durationMs,
            observedAt: now,
            ...(previous === undefined
              ? { ageAtObservationMs: ageOf(fields.renewTime, this.options.clock.now(), durationMs) }
              : {}),
          };
    this.observed.set(name, { lease, record, observation });
    return observation;
  }

  /** Acquires or renews one Lease; the read's resourceVersion makes a rival's concurrent write win. */
  private async hold(slot: Slot, sentAt: number): Promise<void> {
    const name = this.nameOf(slot);
    const read = this.observed.get(name);
    const wall = this.options.clock.now();
    const seconds = Math.ceil(this.durationMs / 1000);
    const fields = leaseRecordOf(read?.lease);
    const mine = fields.holderIdentity === this.options.identity;
    const next = {
      ...leaseSpecOf(read?.lease),
      holderIdentity: this.options.identity,
      leaseDurationSeconds: seconds,
      renewTime: microTime(wall),
      ...(mine
        ? {}
        : {
            acquireTime: microTime(wall),
            leaseTransitions: (fields.leaseTransitions ?? 0) + (read === undefined ? 0 : 1),
          }),
    };
    const written =
      read === undefined
        ? await this.options.cluster.create(
            newLease({ apiVersion: LEASE_API_VERSION, kind: 'Lease', namespace: this.options.namespace, name }, next, {
              [SHARDING_LABEL]: this.prefix,
            }),
          )()
        : await this.options.cluster.update(withLeaseSpec(read.lease, next))();
    if (this.stopped) return;
    if (E.isRight(written)) {
      this.held.set(`${slot.kind}/${slot.index}`, sentAt);
      if (!mine)
        (this.options.logger ?? silentLogger).info({ identity: this.options.identity, lease: name }, 'acquired lease');
    } else {
      this.held.delete(`${slot.kind}/${slot.index}`);
      this.warn(written.left);
    }
  }

  /** Gives a Lease up (holder cleared) if it is still ours; a changed Lease is left alone. */
  private async release(slot: Slot): Promise<void> {
    const current = await this.options.cluster.get({
      apiVersion: LEASE_API_VERSION,
      kind: 'Lease',
      namespace: this.options.namespace,
      name: this.nameOf(slot),
    })();
    if (E.isLeft(current)) {
      this.warn(current.left);
      return;
    }
    if (O.isNone(current.right)) return;
    const lease = current.right.value;
    if (leaseRecordOf(lease).holderIdentity !== this.options.identity) return;
    const released = await this.options.cluster.update(
      withLeaseSpec(lease, {
        ...leaseSpecOf(lease),
        holderIdentity: null,
        renewTime: microTime(this.options.clock.now()),
      }),
    )();
    if (E.isLeft(released)) this.warn(released.left);
    else
      (this.options.logger ?? silentLogger).info(
        { identity: this.options.identity, lease: this.nameOf(slot) },
        'released lease',
      );
  }

  /**
   * Tells the listeners when the set of owned shards changed since the last call, or a shard's
   * validity lapsed meanwhile (work refused then must be queued again, even if it was renewed since).
   */
  private announce(): void {
    const now = this.ownedShards;
    const lapsed = this.lapsed;
    this.lapsed = false;
    if (!lapsed && now.length === this.owned.length && now.every((shard, i) => shard === this.owned[i])) return;
    this.owned = now;
    this.ownershipChanges++;
    (this.options.logger ?? silentLogger).info(
      { identity: this.options.identity, shards: now },
      'owned shards changed',
    );
    for (const listener of [...this.listeners]) listener();
  }

  private warn(error: ClusterError): void {
    if (error._tag !== 'Conflict' && error._tag !== 'AlreadyExists')
      (this.options.logger ?? silentLogger).warn({ error: showClusterError(error) }, 'shard leases');
  }
}

/** How long ago `renewTime` was by the local wall clock, within [0, durationMs]; 0 when it is missing or unreadable. */
const ageOf = (renewTime: string | undefined, wallNow: number, durationMs: number): number => {
  const renewed = renewTime === undefined ? Number.NaN : Date.parse(renewTime);
  return Number.isNaN(renewed) ? 0 : Math.min(durationMs, Math.max(0, wallNow - renewed));
};
