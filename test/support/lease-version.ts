/**
 * A Lease as its holders wrote it, for tests that order a takeover after the old holder's expiry
 * by what the Lease itself records (renewTime, acquireTime, leaseTransitions) rather than by how
 * long the takeover took on this machine.
 */
import { getIn, type JsonValue, type Resource } from '../../core/internal.js';

export type LeaseVersion = {
  readonly name: string;
  readonly holder: string;
  /** The holder's pod: `kreconcile run` holds as `<POD_NAME>_<process>`; an in-process identity is its own pod. */
  readonly pod: string;
  /** ms since the epoch, from the holder's MicroTime. */
  readonly renewTime: number;
  readonly acquireTime: number;
  readonly leaseDurationMs: number;
  readonly transitions: number;
};

const field = (lease: Resource, key: string): JsonValue | undefined => getIn(lease, ['spec', key]);

const time = (lease: Resource, key: string): number => {
  const text = field(lease, key);
  const ms = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms))
    throw new Error(`Lease ${lease.metadata.name}: spec.${key} is not a MicroTime: ${String(text)}`);
  return ms;
};

/** The pod part of a Lease holder `<POD_NAME>_<process>` (`kreconcile run`'s identity). */
export const podOfHolder = (holder: string): string => holder.split('_')[0] ?? holder;

export const leaseVersionOf = (lease: Resource): LeaseVersion => {
  const holder = field(lease, 'holderIdentity');
  const seconds = field(lease, 'leaseDurationSeconds');
  const transitions = field(lease, 'leaseTransitions');
  return {
    name: lease.metadata.name,
    holder: typeof holder === 'string' ? holder : '',
    pod: typeof holder === 'string' ? podOfHolder(holder) : '',
    renewTime: time(lease, 'renewTime'),
    acquireTime: time(lease, 'acquireTime'),
    leaseDurationMs: typeof seconds === 'number' ? seconds * 1000 : Number.NaN,
    transitions: typeof transitions === 'number' ? transitions : Number.NaN,
  };
};
