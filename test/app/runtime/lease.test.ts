/** Leases are read with their fields' types checked, and written back without losing fields this code does not know. */
import { describe, expect, it } from 'vitest';
import { leaseRecordOf, leaseSpecOf, newLease, withLeaseSpec } from '../../../app/runtime/lease.js';
import type { Resource } from '../../../core/internal.js';

const lease = (spec: unknown): Resource =>
  ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'ops', resourceVersion: '7' },
    spec,
  }) as Resource;

describe('leaseRecordOf', () => {
  it('reads the fields of a well-formed Lease', () => {
    expect(
      leaseRecordOf(
        lease({
          holderIdentity: 'a',
          leaseDurationSeconds: 15,
          renewTime: '2026-11-24T00:00:00.000000Z',
          leaseTransitions: 2,
        }),
      ),
    ).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      renewTime: '2026-11-24T00:00:00.000000Z',
      leaseTransitions: 2,
    });
  });

  it('a field of another type, a negative or endless number, a missing or non-object spec read as absent', () => {
    expect(
      leaseRecordOf(lease({ holderIdentity: 42, leaseDurationSeconds: '15', renewTime: {}, leaseTransitions: -1 })),
    ).toEqual({});
    expect(leaseRecordOf(lease({ holderIdentity: null, leaseDurationSeconds: 1e400 }))).toEqual({});
    expect(leaseRecordOf(lease('a string'))).toEqual({});
    expect(leaseRecordOf(lease(undefined))).toEqual({});
    expect(leaseRecordOf(undefined)).toEqual({});
  });

  it('a `__proto__` member is data, not a prototype', () => {
    const hostile = lease(JSON.parse('{"__proto__": {"holderIdentity": "intruder"}}'));
    expect(leaseRecordOf(hostile).holderIdentity).toBeUndefined();
  });
});

describe('writing a Lease', () => {
  it('keeps the fields it does not know and the resourceVersion (optimistic concurrency)', () => {
    const current = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    const written = withLeaseSpec(current, { ...leaseSpecOf(current), holderIdentity: 'c' });
    expect(written.spec).toEqual({ holderIdentity: 'c', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    expect(written.metadata.resourceVersion).toBe('7');
  });

  it('a new Lease carries its namespace, name and labels', () => {
    expect(
      newLease(
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'ops', name: 'x' },
        { holderIdentity: 'a' },
        { 'kreconcile.io/sharding': 'p' },
      ),
    ).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'x', namespace: 'ops', labels: { 'kreconcile.io/sharding': 'p' } },
      spec: { holderIdentity: 'a' },
    });
  });
});
