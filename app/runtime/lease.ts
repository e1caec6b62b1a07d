/**
 * coordination.k8s.io/v1 Leases as leader election and sharding read and write them. A Lease is
 * written by other replicas (and by anyone else with Lease rights), so its fields are read with
 * their types checked; writes keep the fields this code does not know (newer API versions add some).
 */
import { getOwn, isJsonObject, type JsonObject, type ObjectRef, type Resource } from '../../core/internal.js';
import { defined } from '../../core/json/defined.js';

export const LEASE_API_VERSION = 'coordination.k8s.io/v1';

/** The fields read. A field of another type reads as absent: no holder, no duration, no transitions. */
export type LeaseRecord = {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
};

/** The Lease's spec as stored, or an empty one (what every write starts from). */
export const leaseSpecOf = (lease: Resource | undefined): JsonObject =>
  lease !== undefined && isJsonObject(lease.spec) ? lease.spec : {};

/** The typed fields of a Lease's spec. */
export const leaseRecordOf = (lease: Resource | undefined): LeaseRecord => {
  const spec = leaseSpecOf(lease);
  const text = (key: string): string | undefined => {
    const value = getOwn(spec, key);
    return typeof value === 'string' ? value : undefined;
  };
  const count = (key: string): number | undefined => {
    const value = getOwn(spec, key);
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const holderIdentity = text('holderIdentity');
  const leaseDurationSeconds = count('leaseDurationSeconds');
  const renewTime = text('renewTime');
  const leaseTransitions = count('leaseTransitions');
  return {
    ...defined({ holderIdentity, leaseDurationSeconds, renewTime, leaseTransitions }),
  };
};

/** A new Lease at `ref` with `spec`. */
export const newLease = (
  ref: ObjectRef & { readonly namespace: string },
  spec: JsonObject,
  labels?: Readonly<Record<string, string>>,
): Resource => ({
  apiVersion: LEASE_API_VERSION,
  kind: 'Lease',
  metadata: { name: ref.name, namespace: ref.namespace, ...defined({ labels }) },
  spec,
});

/** `lease` with its spec replaced (resourceVersion kept: the update is refused if someone wrote in between). */
export const withLeaseSpec = (lease: Resource, spec: JsonObject): Resource => ({ ...lease, spec });

/** A Kubernetes MicroTime (RFC 3339 with microseconds), as the API server stores `renewTime`. */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');
