/**
 * Leader election on a `coordination.k8s.io/v1` Lease, judged by local time only (client-go's
 * approach): a rival's lease counts as expired `leaseDuration` after this process last *observed* it
 * change (a new resourceVersion), measured on this process's monotonic clock — never by comparing
 * the lease's `renewTime` with the local clock, so clock skew between replicas cannot elect two leaders.
 * The leader's own lease is valid `leaseDuration` after it *sent* its last successful renewal; the
 * write fence (`mayWrite`) closes a safety margin earlier, so a leader that was paused (SIGSTOP, a long
 * GC) refuses its next write instead of finding out at its next renewal.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  showClusterError,
  type Clock,
  type ClusterError,
  type ClusterReader,
  type ClusterWriter,
  type Resource,
} from '../../core/internal.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { LEASE_API_VERSION, leaseRecordOf, leaseSpecOf, microTime, newLease, withLeaseSpec } from './lease.js';

export type LeaderElectionOptions = {
  readonly cluster: ClusterReader & ClusterWriter;
  /** Timers (retry period). */
  readonly clock: Clock;
  /** A monotonic reading in ms (default `clock.now`; the CLI passes `performance.now`). Only differences are used. */
  readonly monotonic?: () => number;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  /** How long a lease is valid without renewal (default 15 s). */
  readonly leaseDurationMs?: number;
  /** A leader that could not renew for this long stops leading (default 10 s; less than the lease duration). */
  readonly renewDeadlineMs?: number;
  /** How often to try to acquire or renew (default 2 s). */
  readonly retryPeriodMs?: number;
  /**
   * Writes stop this long before the lease could expire for others: covers a write's transit time (default 2 s, at most
   * a fifth of the lease).
   */
  readonly fenceMarginMs?: number;
  readonly onStartedLeading: () => void;
  /** Called once per term when leadership is lost or released; the process should stop reconciling. */
  readonly onStoppedLeading: () => void;
  readonly logger?: Logger;
};

/**
 * What an attempt came to: `Renewed` a lease that named this process, `Acquired` one that did not
 * (created, taken over after expiry, or released), or `Failed`.
 */
type Attempt = 'Renewed' | 'Acquired' | 'Failed';

/** What a lease looked like when last read, and when (monotonic) that version was first seen. */
type Observation = {
  readonly version: string;
  readonly holder: string;
  readonly durationMs: number;
  readonly at: number;
};

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private cancel: (() => void) | undefined;
  /** Monotonic time at which the last successful renewal was sent. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private observed: Observation | undefined;
  private readonly monotonic: () => number;

  constructor(private readonly options: LeaderElectionOptions) {
    this.monotonic = options.monotonic ?? (() => options.clock.now());
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Whether this process may write now: it leads and its last renewal was sent less than the
   * lease duration minus the fence margin ago (by its own monotonic clock). Checked before every write.
   */
  mayWrite(): boolean {
    return this.leading && !this.stopped && this.monotonic() - this.renewedAt < this.durationMs - this.fenceMarginMs;
  }

  /** Starts trying to acquire; keeps renewing while leading. */
  start(): void {
    void this.tick();
  }

  /**
   * Stops; releases the lease while it still names this process so another instance takes over at
   * once (ReleaseOnCancel) — also when leadership was already given up locally (a renewal missed
   * its deadline on a loaded machine) but nobody took the lease over yet. With `release: false`
   * (writes of this process may still be on their way) the lease is left to expire: the fence
   * margin then covers them, as it does when a leader dies.
   */
  async stop(options: { readonly release?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancel?.();
    this.lose('released');
    if (options.release !== false) await this.release();
  }

  /** Gives up leadership now (the work it leads could not start) and releases the lease; keeps campaigning. */
  abdicate(): void {
    if (!this.leading) return;
    this.lose('the controller could not start');
    void this.release();
  }

  private get durationMs(): number {
    return this.options.leaseDurationMs ?? 15_000;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const sentAt = this.monotonic();
    const attempt = await this.tryAcquireOrRenew(sentAt);
    if (this.stopped) return;
    // Acquired while still leading here (paused past the lease, a rival led and released it): the lease
    // was not ours between two renewals, so the term that planned before the gap ends and a new one begins.
    if (attempt === 'Acquired') this.lose('the lease was held by another process or released since the last renewal');
    if (attempt !== 'Failed') {
      this.renewedAt = sentAt;
      if (!this.leading) {
        this.leading = true;
        (this.options.logger ?? silentLogger).info({ identity: this.options.identity }, 'became leader');
        this.options.onStartedLeading();
      }
    } else if (
      this.leading &&
      (this.observed?.holder !== this.options.identity || this.monotonic() - this.renewedAt > this.renewDeadlineMs)
    ) {
      this.lose(
        this.observed?.holder !== this.options.identity
          ? `the lease is held by ${this.observed?.holder || 'nobody'}`
          : 'could not renew the lease in time',
      );
    }
    if (!this.stopped)
      this.cancel = this.options.clock.setTimer(this.options.retryPeriodMs ?? 2_000, () => void this.tick());
  }

  private get fenceMarginMs(): number {
    return this.options.fenceMarginMs ?? Math.min(2_000, this.durationMs / 5);
  }

  private get renewDeadlineMs(): number {
    return this.options.renewDeadlineMs ?? Math.round((this.durationMs * 2) / 3);
  }

  private lose(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    (this.options.logger ?? silentLogger).warn({ identity: this.options.identity, why }, 'stopped leading');
    this.options.onStoppedLeading();
  }

  private ref() {
    return { apiVersion: LEASE_API_VERSION, kind: 'Lease', namespace: this.options.namespace, name: this.options.name };
  }

  /** Remembers the lease as read; a new version restarts the rival's lease period at `now` (local time). */
  private observe(lease: Resource, now: number): Observation {
    const record = leaseRecordOf(lease);
    const version = lease.metadata.resourceVersion ?? '';
    if (this.observed?.version !== version) {
      this.observed = {
        version,
        holder: record.holderIdentity ?? '',
        durationMs: (record.leaseDurationSeconds ?? 0) * 1000,
        at: now,
      };
    }
    return this.observed;
  }

  private async tryAcquireOrRenew(now: number): Promise<Attempt> {
    const wall = this.options.clock.now();
    const current = await this.options.cluster.get(this.ref())();
    if (E.isLeft(current)) return this.failed(current.left);
    // An answer that took longer than the fence margin (a paused process, a stalled connection) may be
    // stale: act on the next, fresh read instead (the update's resourceVersion would reject it anyway).
    if (this.monotonic() - now > this.fenceMarginMs) return 'Failed';
    if (O.isNone(current.right)) {
      const created = await this.options.cluster.create(
        newLease(this.ref(), {
          holderIdentity: this.options.identity,
          leaseDurationSeconds: Math.ceil(this.durationMs / 1000),
          acquireTime: microTime(wall),
          renewTime: microTime(wall),
          leaseTransitions: 0,
        }),
      )();
      if (E.isLeft(created)) return this.failed(created.left);
      this.observe(created.right, now);
      return 'Acquired';
    }
    const lease = current.right.value;
    const seen = this.observe(lease, now);
    const mine = seen.holder === this.options.identity;
    if (seen.holder !== '' && !mine && this.monotonic() < seen.at + seen.durationMs) return 'Failed';
    const updated = await this.options.cluster.update(
      withLeaseSpec(lease, {
        ...leaseSpecOf(lease),
        holderIdentity: this.options.identity,
        leaseDurationSeconds: Math.ceil(this.durationMs / 1000),
        renewTime: microTime(wall),
        ...(mine
          ? {}
          : { acquireTime: microTime(wall), leaseTransitions: (leaseRecordOf(lease).leaseTransitions ?? 0) + 1 }),
      }),
    )();
    if (E.isLeft(updated)) return this.failed(updated.left);
    this.observe(updated.right, now);
    return mine ? 'Renewed' : 'Acquired';
  }

  /**
   * Gives the lease up (holder cleared, 1 s duration) when it is still ours; optimistic concurrency protects a rival's.
   */
  private async release(): Promise<void> {
    const current = await this.options.cluster.get(this.ref())();
    if (E.isLeft(current) || O.isNone(current.right)) return;
    const lease = current.right.value;
    if (leaseRecordOf(lease).holderIdentity !== this.options.identity) return;
    const released = await this.options.cluster.update(
      withLeaseSpec(lease, {
        ...leaseSpecOf(lease),
        holderIdentity: null,
        leaseDurationSeconds: 1,
        renewTime: microTime(this.options.clock.now()),
      }),
    )();
    if (E.isLeft(released)) this.failed(released.left);
  }

  private failed(error: ClusterError): 'Failed' {
    if (error._tag !== 'Conflict' && error._tag !== 'AlreadyExists')
      (this.options.logger ?? silentLogger).warn({ error: showClusterError(error) }, 'leader election');
    return 'Failed';
  }
}
