/**
 * A model of replicas sharing Leases through an API server, for property tests of `decideShards`:
 * the store does compare-and-swap on a version, each replica has its own monotonic clock (same rate,
 * any offset), reads and writes are separate steps (time may pass between them: a slow write or a
 * paused process), and a killed replica stops acting without releasing anything. Each replica also
 * has a wall clock (the model's time plus a skew) that stamps `renewTime` and judges the age of a
 * record it sees for the first time, as ShardLeases does.
 */
import { decideShards, stillValid, type LeaseObservation } from '../../../core/internal.js';

export const DURATION_MS = 15_000;
export const MARGIN_MS = 2_000;
export const RETRY_MS = 2_000;

type Stored = { readonly holder: string; readonly renewTime: number; readonly version: number };
type SlotKind = 'shard' | 'member';
const slotName = (kind: SlotKind, index: number): string => `${kind}-${index}`;

type Replica = {
  readonly id: string;
  readonly offset: number;
  /** Wall clock minus the model's time: stamps `renewTime`, ages records first seen. */
  readonly wallSkew: number;
  killed: boolean;
  readonly observed: Map<string, { record: string; observedAt: number; age: number }>;
  /** Slot name → local time before the read whose write made it ours. */
  readonly held: Map<string, number>;
  pending:
    | {
        readonly sentAt: number;
        readonly snapshot: ReadonlyMap<string, Stored>;
        readonly shards: ReadonlyArray<LeaseObservation | undefined>;
        readonly members: ReadonlyArray<LeaseObservation | undefined>;
      }
    | undefined;
};

export class LeaseWorld {
  time = 0;
  private readonly store = new Map<string, Stored>();
  readonly replicas: Replica[] = [];
  private writes = 0;

  constructor(readonly shards: number) {}

  join(offset: number, wallSkew = 0): void {
    this.replicas.push({
      id: `r${this.replicas.length}`,
      offset,
      wallSkew,
      killed: false,
      observed: new Map(),
      held: new Map(),
      pending: undefined,
    });
  }

  advance(ms: number): void {
    this.time += ms;
  }

  localNow(replica: Replica): number {
    return this.time + replica.offset;
  }

  /** Reads every Lease; records when each record was first seen on the replica's clock. */
  read(index: number): void {
    const replica = this.replicas[index];
    if (replica === undefined || replica.killed) return;
    const now = this.localNow(replica);
    const view = (kind: SlotKind) =>
      Array.from({ length: this.shards }, (_, i): LeaseObservation | undefined => {
        const stored = this.store.get(slotName(kind, i));
        if (stored === undefined) return undefined;
        const record = `${stored.holder}|${stored.renewTime}`;
        const previous = replica.observed.get(slotName(kind, i));
        const same = previous?.record === record;
        const observedAt = same ? previous.observedAt : now;
        // How old the record was when first seen: only for a record never seen to change.
        const age = same
          ? previous.age
          : previous === undefined
            ? Math.min(DURATION_MS, Math.max(0, this.time + replica.wallSkew - stored.renewTime))
            : 0;
        replica.observed.set(slotName(kind, i), { record, observedAt, age });
        return { holder: stored.holder, observedAt, durationMs: DURATION_MS, ageAtObservationMs: age };
      });
    replica.pending = { sentAt: now, snapshot: new Map(this.store), shards: view('shard'), members: view('member') };
  }

  /** Decides on the last read and writes with compare-and-swap against the versions read. */
  write(index: number): void {
    const replica = this.replicas[index];
    if (replica === undefined || replica.killed || replica.pending === undefined) return;
    const { sentAt, snapshot, shards, members } = replica.pending;
    replica.pending = undefined;
    const decision = decideShards({ self: replica.id, shards, members, now: sentAt });
    const keep = new Set([
      ...decision.shards.renew.map((i) => slotName('shard', i)),
      ...decision.members.renew.map((i) => slotName('member', i)),
    ]);
    for (const slot of [...replica.held.keys()]) if (!keep.has(slot)) replica.held.delete(slot);
    for (const [kind, part] of [
      ['shard', decision.shards],
      ['member', decision.members],
    ] as const) {
      for (const i of [...part.acquire, ...part.renew]) {
        if (this.swap(slotName(kind, i), snapshot, replica.id, replica)) replica.held.set(slotName(kind, i), sentAt);
        else replica.held.delete(slotName(kind, i));
      }
      for (const i of part.release) this.swap(slotName(kind, i), snapshot, '', replica);
    }
  }

  kill(index: number): void {
    const replica = this.replicas[index];
    if (replica !== undefined) replica.killed = true;
  }

  /** Whether a replica would act for `shard` now (its `owns`). */
  owns(replica: Replica, shard: number): boolean {
    const sentAt = replica.held.get(slotName('shard', shard));
    return sentAt !== undefined && stillValid(sentAt, DURATION_MS, MARGIN_MS, this.localNow(replica));
  }

  /** Shards two replicas that can still act believe they own at the same instant. */
  doublyOwned(): ReadonlyArray<number> {
    const acting = this.replicas.filter((r) => !r.killed);
    return Array.from({ length: this.shards }, (_, s) => s).filter(
      (s) => acting.filter((r) => this.owns(r, s)).length > 1,
    );
  }

  /**
   * Every live replica but `paused` reads and writes once per retry period, for `ms`; returns the
   * shards found doubly owned at any step on the way.
   */
  runFairly(ms: number, paused?: number): ReadonlyArray<number> {
    const doubly = new Set<number>();
    for (let elapsed = 0; elapsed < ms; elapsed += RETRY_MS) {
      this.advance(RETRY_MS);
      this.replicas.forEach((_, i) => {
        if (i === paused) return;
        this.read(i);
        this.write(i);
        for (const shard of this.doublyOwned()) doubly.add(shard);
      });
    }
    return [...doubly];
  }

  /** Current holder of each shard Lease in the store. */
  holderOf(shard: number): string | undefined {
    return this.store.get(slotName('shard', shard))?.holder;
  }

  /** The shard Lease as stored: holder ('' when released) and `renewTime` (its writer's wall clock). */
  storedShard(shard: number): { readonly holder: string; readonly renewTime: number } | undefined {
    return this.store.get(slotName('shard', shard));
  }

  private swap(name: string, snapshot: ReadonlyMap<string, Stored>, holder: string, writer: Replica): boolean {
    const expected = snapshot.get(name)?.version;
    if (this.store.get(name)?.version !== expected) return false;
    this.store.set(name, { holder, renewTime: this.time + writer.wallSkew, version: ++this.writes });
    return true;
  }
}
