/**
 * The per-key bookkeeping alone (app/runtime/bookkeeping.ts): reports in, books and effects out —
 * no store, no queue, no clock. Patches that succeeded are kept for the hot-loop guard and expire
 * with its window; patches the server did not keep are kept for the perpetual-diff guard, the rest
 * forgotten; a refused create turns direct reads on for good; a kind a write found gone is
 * forgotten and waited for; a primary gone keeps nothing; and for any sequence of reports, one
 * requeue comes last, the count is the reports since the primary appeared, nothing outlives it.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Execution } from '../../../app/executor/execute.js';
import type { PlannedAgainst, ReconcileResult } from '../../../app/reconcile/reconcile-application.js';
import {
  afterReconcile,
  type BookkeepingPolicy,
  type KeyBook,
  type KeyEffect,
  type ReconcileReport,
} from '../../../app/runtime/bookkeeping.js';
import { AFTER_DEFECT, requeueOf } from '../../../app/runtime/requeue.js';
import {
  clusterError,
  decodeApplication,
  type Action,
  type Application,
  type ClusterError,
  type Outcome,
  type PatchAction,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';

const POLICY: BookkeepingPolicy = { hotLoop: { windowMs: 60_000, threshold: 3 }, perpetualDiff: { bound: 3, keep: 4 } };
const KEY = 'shop/web';

const application: Application = (() => {
  const decoded = decodeApplication(applicationOf({ namespace: 'shop', name: 'web', children: [] }));
  if (E.isLeft(decoded)) throw new Error('fixture does not decode');
  return decoded.right;
})();

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const RESOURCE = 'apps/v1|Deployment|shop|web';
const patch: PatchAction = {
  type: 'patch',
  ref,
  patch: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
  changes: [{ path: '/spec/replicas' }],
};
/** The server's answer to `patch`: it kept the replicas (`kept`), or dropped them. */
const answer = (resourceVersion: string, kept: boolean): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', resourceVersion },
  spec: kept ? { replicas: 3 } : {},
});
const against = (version: string): PlannedAgainst => ({ versions: new Map([[RESOURCE, version]]), generation: 1 });

const execution = (done: Execution['done'], failure?: Execution['failure']): Execution => ({
  done,
  status: {},
  application,
  ...(failure === undefined ? {} : { failure }),
});

const done = (
  options: { outcome?: Outcome; done?: Execution['done']; plannedAgainst?: PlannedAgainst } = {},
): ReconcileResult => ({
  _tag: 'Done',
  plan: {
    actions: (options.done ?? []).map(({ action }) => action),
    status: {},
    outcome: options.outcome ?? { _tag: 'AwaitChange' },
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
  },
  execution: execution(options.done ?? []),
  statusWritten: false,
  status: {},
  ...(options.plannedAgainst === undefined ? {} : { plannedAgainst: options.plannedAgainst }),
});

const failed = (error: ClusterError, failedOn?: Action): ReconcileResult => ({
  _tag: 'Failed',
  error,
  terminal: false,
  statusWritten: false,
  ...(failedOn === undefined ? {} : { execution: execution([], { action: failedOn, error, guardedPatch: false }) }),
});

const reconciled = (result: ReconcileResult, at = 0, stored = true): ReconcileReport => ({
  _tag: 'Reconciled',
  key: KEY,
  result,
  at,
  stored,
});

/** Runs `reports` from `state`; answers the last state and every effect, in order. */
const run = (
  reports: ReadonlyArray<ReconcileReport>,
  state?: KeyBook,
): { state: KeyBook | undefined; effects: KeyEffect[] } => {
  const effects: KeyEffect[] = [];
  let book = state;
  for (const report of reports) {
    const next = afterReconcile(book, report, POLICY);
    book = next.state;
    effects.push(...next.effects);
  }
  return { state: book, effects };
};

const tags = (effects: ReadonlyArray<KeyEffect>): string[] =>
  effects.map((effect) =>
    effect._tag === 'Requeue'
      ? `Requeue ${effect.requeue._tag}`
      : effect._tag === 'ForgetKind'
        ? `ForgetKind ${effect.kind.apiVersion}/${effect.kind.kind}`
        : effect._tag,
  );

const patchedOk = done({ done: [{ action: patch, response: answer('8', true) }], plannedAgainst: against('7') });
const patchedDropped = done({ done: [{ action: patch, response: answer('7', false) }], plannedAgainst: against('7') });
const unknownKind = clusterError('UnknownKind', 'the server does not serve apps/v1 Deployment');

describe('afterReconcile: one key’s book after each report', () => {
  it('counts an in-sync reconcile, keeps no history and settles the key', () => {
    const { state, effects } = run([reconciled(done())]);
    expect(state).toEqual({ reconciles: 1, patches: [], writes: [], readDirectly: false, waitsForKinds: false });
    expect(tags(effects)).toEqual(['Requeue Settled']);
  });

  it('keeps a patch that succeeded for the hot-loop guard, with what it was planned against, until the window passes', () => {
    const first = run([reconciled(patchedOk, 1_000)]);
    expect(first.state?.patches).toEqual([
      {
        resource: RESOURCE,
        fingerprint: expect.any(String),
        at: 1_000,
        paths: ['/spec/replicas'],
        plannedAgainst: '7',
        wrote: '8',
      },
    ]);
    expect(run([reconciled(done(), 61_000)], first.state).state?.patches).toHaveLength(1);
    expect(run([reconciled(done(), 61_001)], first.state).state?.patches).toEqual([]);
  });

  it('keeps the patches the server did not keep for the perpetual-diff guard, and forgets kept ones', () => {
    const dropped = run([reconciled(patchedDropped), reconciled(patchedDropped)]);
    expect(dropped.state?.writes.map((record) => record.dropped)).toEqual([['spec.replicas'], ['spec.replicas']]);
    expect(run([reconciled(patchedOk)]).state?.writes).toEqual([]);
    // A plan without patches records no generation: the history of the last one goes (as it always did).
    expect(run([reconciled(done())], dropped.state).state?.writes).toEqual([]);
  });

  it('turns direct reads on after a create refused with AlreadyExists, for as long as the primary is there', () => {
    const refused = run([reconciled(failed(clusterError('AlreadyExists', 'taken')))]);
    expect(refused.state?.readDirectly).toBe(true);
    expect(tags(refused.effects)).toEqual(['Requeue Backoff']);
    expect(run([reconciled(done()), reconciled(patchedOk)], refused.state).state?.readDirectly).toBe(true);
    expect(run([reconciled({ _tag: 'Gone' }), reconciled(done())], refused.state).state?.readDirectly).toBe(false);
  });

  it('forgets the kind a write found gone, waits for it, and stops waiting once a reconcile does not', () => {
    const gone = run([reconciled(failed(unknownKind, patch))]);
    expect(tags(gone.effects)).toEqual(['ForgetKind apps/v1/Deployment', 'WaitForKinds', 'Requeue Backoff']);
    expect(gone.effects.at(-1)).toEqual({ _tag: 'Requeue', requeue: { _tag: 'Backoff', atLeastMs: 0, capMs: 1_000 } });
    const planned = done({ outcome: { _tag: 'RequeueAfter', ms: 30_000, reason: 'UnknownKind' } });
    const waiting = run([reconciled(planned)], gone.state);
    expect(tags(waiting.effects)).toEqual(['WaitForKinds', 'Requeue Backoff']);
    const back = run([reconciled(done()), reconciled(done())], waiting.state);
    expect(tags(back.effects)).toEqual(['StopWaitingForKinds', 'Requeue Settled', 'Requeue Settled']);
  });

  it('keeps nothing for a primary found gone or deleted while reconciled, releasing what it waited for', () => {
    const waiting = run([reconciled(failed(unknownKind))]).state;
    expect(waiting?.waitsForKinds).toBe(true);
    const gone = run([reconciled({ _tag: 'Gone' })], waiting);
    expect(gone).toEqual({
      state: undefined,
      effects: [{ _tag: 'StopWaitingForKinds' }, { _tag: 'Requeue', requeue: { _tag: 'Settled' } }],
    });
    expect(run([reconciled(patchedOk, 0, false)]).state).toBeUndefined();
  });

  it('counts a crash, records nothing it may have half done, and backs off', () => {
    const before = run([reconciled(patchedDropped)]).state;
    const crashed = run([{ _tag: 'Crashed', key: KEY, stored: true }], before);
    expect(crashed.state).toEqual({ ...before, reconciles: 2 });
    expect(crashed.effects).toEqual([{ _tag: 'Requeue', requeue: AFTER_DEFECT }]);
    expect(run([{ _tag: 'Crashed', key: KEY, stored: false }], before).state).toBeUndefined();
  });
});

const results: ReadonlyArray<ReconcileResult> = [
  done(),
  patchedOk,
  patchedDropped,
  done({ outcome: { _tag: 'RequeueAfter', ms: 5_000, reason: 'NotReady' } }),
  done({ outcome: { _tag: 'RequeueAfter', ms: 30_000, reason: 'UnknownKind' } }),
  failed(clusterError('AlreadyExists', 'taken')),
  failed(unknownKind, patch),
  failed(unknownKind),
  failed(clusterError('Internal', 'boom')),
  { _tag: 'Gone' },
];

const reportArbitrary: fc.Arbitrary<ReconcileReport> = fc.oneof(
  fc
    .record({ result: fc.constantFrom(...results), at: fc.nat(1_000_000), stored: fc.boolean() })
    .map(({ result, at, stored }): ReconcileReport => ({ _tag: 'Reconciled', key: KEY, result, at, stored })),
  fc.boolean().map((stored): ReconcileReport => ({ _tag: 'Crashed', key: KEY, stored })),
);

describe('afterReconcile over any sequence of reports', () => {
  it('ends each step with its one requeue, counts the reports since the primary appeared, keeps nothing once it went', () => {
    fc.assert(
      fc.property(fc.array(reportArbitrary, { maxLength: 30 }), (reports) => {
        let state: KeyBook | undefined;
        let since = 0;
        let refused = false;
        for (const report of reports) {
          const next = afterReconcile(state, report, POLICY);
          const requeues = next.effects.filter((effect) => effect._tag === 'Requeue');
          expect(requeues).toHaveLength(1);
          expect(next.effects.at(-1)).toEqual({
            _tag: 'Requeue',
            requeue: report._tag === 'Crashed' ? AFTER_DEFECT : requeueOf(report.result),
          });
          const gone = !report.stored || (report._tag === 'Reconciled' && report.result._tag === 'Gone');
          since = gone ? 0 : since + 1;
          refused =
            !gone &&
            (refused ||
              (report._tag === 'Reconciled' &&
                report.result._tag === 'Failed' &&
                report.result.error._tag === 'AlreadyExists'));
          if (gone) expect(next.state).toBeUndefined();
          else expect(next.state).toMatchObject({ reconciles: since, readDirectly: refused });
          // Histories hold at most what their policies keep.
          expect(next.state?.writes.length ?? 0).toBeLessThanOrEqual(POLICY.perpetualDiff.keep);
          state = next.state;
        }
      }),
    );
  });
});
