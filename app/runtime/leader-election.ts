/**
 * Leader election on a `coordination.k8s.io/v1` Lease (client-go semantics): acquire when free or
 * expired, renew before the deadline, release on shutdown. Only the leader reconciles.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { showClusterError, type Clock, type ClusterError, type ClusterReader, type ClusterWriter, type Resource } from '../../core/index.js';
import { silentLogger, type Logger } from './logger.js';

export type LeaderElectionOptions = {
  readonly cluster: ClusterReader & ClusterWriter;
  readonly clock: Clock;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  /** How long a lease is valid without renewal (default 15 s). */
  readonly leaseDurationMs?: number;
  /** How often to try to acquire or renew (default 2 s). */
  readonly retryPeriodMs?: number;
  readonly onStartedLeading: () => void;
  /** Called once when leadership is lost or released; the process should stop reconciling. */
  readonly onStoppedLeading: () => void;
  readonly logger?: Logger;
};

type LeaseSpec = { holderIdentity?: string | null; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };

const microTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private cancel: (() => void) | undefined;
  private lastRenew = 0;

  constructor(private readonly options: LeaderElectionOptions) {}

  get isLeader(): boolean { return this.leading; }

  /** Starts trying to acquire; keeps renewing while leading. */
  start(): void { void this.tick(); }

  /** Stops; releases the lease when held so another instance takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    if (this.leading) {
      await this.write((spec) => ({ ...spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(this.options.clock.now()) }), true);
      this.lose('released');
    }
  }

  private get durationMs(): number { return this.options.leaseDurationMs ?? 15_000; }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const ok = await this.tryAcquireOrRenew();
    if (ok) {
      this.lastRenew = this.options.clock.now();
      if (!this.leading) { this.leading = true; (this.options.logger ?? silentLogger).info({ identity: this.options.identity }, 'became leader'); this.options.onStartedLeading(); }
    } else if (this.leading && this.options.clock.now() - this.lastRenew > this.durationMs * 2 / 3) {
      this.lose('could not renew the lease in time');
    }
    if (!this.stopped) this.cancel = this.options.clock.setTimer(this.options.retryPeriodMs ?? 2_000, () => void this.tick());
  }

  private lose(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    (this.options.logger ?? silentLogger).warn({ identity: this.options.identity, why }, 'stopped leading');
    this.options.onStoppedLeading();
  }

  private ref() {
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: this.options.namespace, name: this.options.name };
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.options.clock.now();
    const current = await this.options.cluster.get(this.ref())();
    if (E.isLeft(current)) return this.failed(current.left);
    if (O.isNone(current.right)) {
      const created = await this.options.cluster.create({
        ...this.ref(), metadata: { name: this.options.name, namespace: this.options.namespace },
        spec: { holderIdentity: this.options.identity, leaseDurationSeconds: Math.ceil(this.durationMs / 1000), acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      } as unknown as Resource)();
      return E.isRight(created) || this.failed(created.left);
    }
    const lease = current.right.value;
    const spec = (lease.spec ?? {}) as LeaseSpec;
    const held = typeof spec.holderIdentity === 'string' && spec.holderIdentity !== '';
    const renewedAt = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = renewedAt + (spec.leaseDurationSeconds ?? 0) * 1000 < now;
    if (held && spec.holderIdentity !== this.options.identity && !expired) return false;
    const mine = spec.holderIdentity === this.options.identity;
    return this.update(lease, {
      ...spec, holderIdentity: this.options.identity, leaseDurationSeconds: Math.ceil(this.durationMs / 1000), renewTime: microTime(now),
      ...(mine ? {} : { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
    });
  }

  /** Optimistic concurrency: the update carries the resourceVersion read, so a rival's write wins. */
  private async update(lease: Resource, spec: LeaseSpec): Promise<boolean> {
    const updated = await this.options.cluster.update({ ...lease, spec } as unknown as Resource)();
    return E.isRight(updated) || this.failed(updated.left);
  }

  private async write(change: (spec: LeaseSpec) => LeaseSpec, onlyIfMine: boolean): Promise<void> {
    const current = await this.options.cluster.get(this.ref())();
    if (E.isLeft(current) || O.isNone(current.right)) return;
    const spec = (current.right.value.spec ?? {}) as LeaseSpec;
    if (onlyIfMine && spec.holderIdentity !== this.options.identity) return;
    await this.update(current.right.value, change(spec));
  }

  private failed(error: ClusterError): false {
    if (error._tag !== 'Conflict' && error._tag !== 'AlreadyExists') (this.options.logger ?? silentLogger).warn({ error: showClusterError(error) }, 'leader election');
    return false;
  }
}
