/** The shutdown handshake on deletion: wait for the workload's callback, bounded by a grace period. */
import { describe, expect, it } from 'vitest';
import { awaitingShutdownPlan, shutdownState, SHUTDOWN_ACKNOWLEDGED_ANNOTATION, type Application } from './imports.js';
import { application } from '../fixtures.js';

const DELETED_AT = Date.parse('2024-01-01T00:00:00Z');
const GRACE = 60_000;
const observed = {
  lastObservedManifest: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' } }],
};

const deleting = (hooks: ReadonlyArray<'complete' | 'shutdown'>, extra: Record<string, unknown> = {}): Application => {
  const app = application({ manifest: [], hooks }, { deleting: true, status: observed });
  return { ...app, metadata: { ...app.metadata, ...extra } as Application['metadata'] };
};

describe('shutdownState', () => {
  it('waits while deleting with the shutdown hook, until the grace period ends', () => {
    expect(shutdownState({ application: deleting(['shutdown']), nowMs: DELETED_AT + 1_000, graceMs: GRACE })).toEqual({
      _tag: 'Wait',
      requestedAt: '2024-01-01T00:00:00Z',
      deadlineMs: DELETED_AT + GRACE,
      remainingMs: GRACE - 1_000,
    });
    expect(shutdownState({ application: deleting(['shutdown']), nowMs: DELETED_AT + GRACE, graceMs: GRACE })).toEqual({
      _tag: 'Proceed',
      reason: 'GraceExpired',
    });
  });

  it('proceeds at once when the workload acknowledged', () => {
    const app = deleting(['shutdown'], { annotations: { [SHUTDOWN_ACKNOWLEDGED_ANNOTATION]: '2024-01-01T00:00:05Z' } });
    expect(shutdownState({ application: app, nowMs: DELETED_AT + 1, graceMs: GRACE })).toEqual({
      _tag: 'Proceed',
      reason: 'Acknowledged',
    });
  });

  it('does not apply without the hook, when not deleting, without finalizer or without children', () => {
    const none = { _tag: 'NotApplicable' };
    expect(shutdownState({ application: deleting(['complete']), nowMs: DELETED_AT, graceMs: GRACE })).toEqual(none);
    expect(
      shutdownState({
        application: application({ manifest: [], hooks: ['shutdown'] }),
        nowMs: DELETED_AT,
        graceMs: GRACE,
      }),
    ).toEqual(none);
    expect(
      shutdownState({ application: deleting(['shutdown'], { finalizers: [] }), nowMs: DELETED_AT, graceMs: GRACE }),
    ).toEqual(none);
    const childless = application({ manifest: [], hooks: ['shutdown'] }, { deleting: true });
    expect(shutdownState({ application: childless, nowMs: DELETED_AT, graceMs: GRACE })).toEqual(none);
  });

  it('an unreadable deletionTimestamp does not make the wait unbounded', () => {
    const app = deleting(['shutdown'], { deletionTimestamp: 'yesterday' });
    const state = shutdownState({ application: app, nowMs: DELETED_AT, graceMs: GRACE });
    expect(state).toMatchObject({ _tag: 'Wait', remainingMs: GRACE });
  });
});

describe('awaitingShutdownPlan', () => {
  it('acts on nothing, says why in Reconciling, and requeues at the deadline', () => {
    const app = deleting(['shutdown']);
    const state = shutdownState({ application: app, nowMs: DELETED_AT + 10_000, graceMs: GRACE });
    if (state._tag !== 'Wait') throw new Error('expected Wait');
    const result = awaitingShutdownPlan(app, state, '2024-01-01T00:00:10Z');
    expect(result.actions).toEqual([]);
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 50_000, reason: 'AwaitingShutdown' });
    expect(result.status.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'AwaitingShutdown',
    });
    expect(result.status.conditions?.find((c) => c.type === 'Reconciling')?.message).toContain(
      'until 2024-01-01T00:01:00.000Z',
    );
    expect(result.status.lastObservedManifest).toEqual(observed.lastObservedManifest);
  });
});
