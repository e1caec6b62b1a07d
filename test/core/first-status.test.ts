/**
 * A brand-new Application's first status, when it only waits for readiness, is held for a grace
 * counted from its children's creation (core/status/first-status.ts): every other status is written.
 */
import { describe, expect, it } from 'vitest';
import {
  OWNER_ANNOTATION,
  childCreationTimes,
  conditionsFor,
  firstStatusDecision,
  ownerMark,
  type ApplicationStatus,
  type Owner,
  type Resource,
  type Verdict,
} from '../../core/internal.js';

const NOW = '2026-03-02T12:00:10Z';
const GRACE = 5_000;

const statusOf = (verdict: Verdict, extra: Partial<ApplicationStatus> = {}): ApplicationStatus => ({
  observedGeneration: 1,
  conditions: conditionsFor({ verdict, previous: undefined, now: NOW, generation: 1 }),
  ...extra,
});

const WAITING = statusOf({ _tag: 'Progressing', reason: 'WaitingForReadiness', message: 'waiting for Deployment' });

const decide = (
  overrides: Partial<Parameters<typeof firstStatusDecision>[0]> & { readonly created?: ReadonlyArray<string> } = {},
) =>
  firstStatusDecision({
    stored: undefined,
    next: WAITING,
    childrenCreated: () => overrides.created ?? ['2026-03-02T12:00:08Z'],
    now: NOW,
    graceMs: GRACE,
    ...overrides,
  });

describe('firstStatusDecision', () => {
  it('holds a first WaitingForReadiness for what is left of the grace after the newest child was created', () => {
    expect(decide()).toEqual({ _tag: 'Hold', remainingMs: 3_000 });
    expect(decide({ created: ['2026-03-02T12:00:01Z', '2026-03-02T12:00:09Z', '2026-03-02T12:00:04Z'] })).toEqual({
      _tag: 'Hold',
      remainingMs: 4_000,
    });
    expect(decide({ stored: {} })).toEqual({ _tag: 'Hold', remainingMs: 3_000 });
    expect(decide({ stored: { conditions: [], lastAppliedManifest: [] } })).toEqual({
      _tag: 'Hold',
      remainingMs: 3_000,
    });
  });

  it('writes once the grace has passed, and at once with a grace of 0', () => {
    expect(decide({ created: ['2026-03-02T12:00:05Z'] })).toEqual({ _tag: 'Write' });
    expect(decide({ created: ['2026-03-02T11:59:00Z'] })).toEqual({ _tag: 'Write' });
    expect(decide({ graceMs: 0 })).toEqual({ _tag: 'Write' });
    expect(decide({ graceMs: Number.NaN })).toEqual({ _tag: 'Write' });
  });

  it('a child created in the future (the server clock ahead) holds for the grace at most', () => {
    expect(decide({ created: ['2026-03-02T12:05:00Z'] })).toEqual({ _tag: 'Hold', remainingMs: GRACE });
    expect(decide({ created: ['9999-12-31T23:59:59Z'] })).toEqual({ _tag: 'Hold', remainingMs: GRACE });
  });

  it('writes when there is no creation time to count from, or none that parses, or no clock', () => {
    expect(decide({ created: [] })).toEqual({ _tag: 'Write' });
    expect(decide({ created: ['yesterday', ''] })).toEqual({ _tag: 'Write' });
    expect(decide({ created: ['garbage', '2026-03-02T12:00:09Z'] })).toEqual({ _tag: 'Hold', remainingMs: 4_000 });
    expect(decide({ now: 'not a time' })).toEqual({ _tag: 'Write' });
  });

  it('never holds a status once one was recorded', () => {
    expect(decide({ stored: WAITING })).toEqual({ _tag: 'Write' });
    expect(decide({ stored: statusOf({ _tag: 'Ready', message: 'ok' }) })).toEqual({ _tag: 'Write' });
  });

  it('never holds a failure, a stall, a denial, another wait or a timed readiness wait', () => {
    const verdicts: ReadonlyArray<Verdict> = [
      { _tag: 'Stalled', reason: 'ReadinessFailed', message: 'failed' },
      { _tag: 'Stalled', reason: 'NotOwned', message: 'not owned' },
      { _tag: 'Stalled', reason: 'GuardDenied', message: 'denied' },
      { _tag: 'Progressing', reason: 'WaitingForDependencies', message: 'waiting: db' },
      { _tag: 'Progressing', reason: 'WaitingForDeletion', message: 'waiting for x' },
      { _tag: 'Progressing', reason: 'Progressing', message: '1 to create' },
      { _tag: 'Progressing', reason: 'Forbidden', message: 'refused for now' },
      { _tag: 'Suspended', message: 'suspended' },
    ];
    for (const verdict of verdicts) expect(decide({ next: statusOf(verdict) })).toEqual({ _tag: 'Write' });
    const timed: ApplicationStatus = {
      ...WAITING,
      readinessWaits: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', since: NOW }],
    };
    expect(decide({ next: timed })).toEqual({ _tag: 'Write' });
    // A Ready status is the one the hold waits for: written, of course.
    expect(decide({ next: statusOf({ _tag: 'Ready', message: 'ok' }) })).toEqual({ _tag: 'Write' });
  });

  it('does not collect creation times unless the rest allows a hold', () => {
    const asked: string[] = [];
    firstStatusDecision({
      stored: WAITING,
      next: WAITING,
      childrenCreated: () => (asked.push('asked'), []),
      now: NOW,
      graceMs: GRACE,
    });
    expect(asked).toEqual([]);
  });
});

describe('childCreationTimes', () => {
  const owner: Owner = { namespace: 'shop', name: 'web' };
  const child = (name: string, created: string | undefined, mark: string | undefined): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'shop',
      ...(created === undefined ? {} : { creationTimestamp: created }),
      ...(mark === undefined ? {} : { annotations: { [OWNER_ANNOTATION]: mark } }),
    },
  });

  it("only the Application's own children count: another owner's object or an unmarked one does not", () => {
    const objects = [
      child('a', '2026-03-02T12:00:01Z', ownerMark(owner)),
      child('b', '2026-03-02T12:00:09Z', 'shop/other'),
      child('c', '2026-03-02T12:00:08Z', undefined),
      child('d', undefined, ownerMark(owner)),
      child('e', '2026-03-02T12:00:02Z', ownerMark(owner)),
    ];
    expect(childCreationTimes(objects, owner)).toEqual(['2026-03-02T12:00:01Z', '2026-03-02T12:00:02Z']);
  });
});
