/**
 * What the runtime keeps per primary key between reconciles, as one pure step (after the watcher,
 * watcher.ts): `afterReconcile(state, report, policy)` answers the key's next state and the effects
 * to carry out. The state is the hot-loop history, the perpetual-diff history, whether the key's
 * desired objects are read directly, whether it waits for unserved kinds and how often it was
 * reconciled; the effects forget a kind, make the key wait (or stop waiting) for kinds, and requeue
 * it. No I/O, no clock: the applier (applier.ts) owns the states and carries out the effects.
 */
import {
  defaultHotLoopPolicy,
  defaultPerpetualDiffPolicy,
  recordPatches,
  recordWrites,
  type HotLoopPolicy,
  type LiveVersions,
  type PatchRecord,
  type PerpetualDiffPolicy,
  type WriteRecord,
} from '../../core/internal.js';
import type { ActionResult } from '../executor/execute.js';
import type { ReconcileResult } from '../reconcile/reconcile-application.js';
import type { Kind } from './known-scopes.js';
import { AFTER_DEFECT, requeueOf, waitsForKind, type Requeue } from './requeue.js';

/** What is kept for one key whose primary is there (`undefined`: nothing yet, or its primary went). */
export type KeyBook = {
  /** Reconciles finished (a crash included) since the primary appeared. */
  readonly reconciles: number;
  /** The patches that succeeded, for the hot-loop guard (core/status/hot-loop.ts). */
  readonly patches: ReadonlyArray<PatchRecord>;
  /** The patches the server did not keep, for the perpetual-diff guard (core/status/perpetual-diff.ts). */
  readonly writes: ReadonlyArray<WriteRecord>;
  /**
   * A create was refused with AlreadyExists: a name the manifest wants is taken by an object the
   * caches do not hold (not ours, or not seen yet), so desired objects are read from the API server
   * until the primary is gone, never assumed absent.
   */
  readonly readDirectly: boolean;
  /** The last reconcile ended waiting for a kind the server does not serve. */
  readonly waitsForKinds: boolean;
};

/** A reconcile that finished, or crashed (a defect), as the reconcile step reports it. */
export type ReconcileReport =
  | {
      readonly _tag: 'Reconciled';
      readonly key: string;
      readonly result: ReconcileResult;
      /** Clock ms when it finished: the hot-loop records are timed by it. */
      readonly at: number;
      /** The primary is still in the store: a key whose primary went meanwhile keeps nothing. */
      readonly stored: boolean;
    }
  | { readonly _tag: 'Crashed'; readonly key: string; readonly stored: boolean };

/** What the applier does for the key, in order. */
export type KeyEffect =
  /** A write found `kind` gone: the scope table forgets it, so the next plan says UnknownKind. */
  | { readonly _tag: 'ForgetKind'; readonly kind: Kind }
  /** The key waits for the kinds its primary names that the server does not serve (discovery is asked again). */
  | { readonly _tag: 'WaitForKinds' }
  | { readonly _tag: 'StopWaitingForKinds' }
  /** The key's next turn in the work queue (requeue.ts). */
  | { readonly _tag: 'Requeue'; readonly requeue: Requeue };

export type KeyStep = { readonly state: KeyBook | undefined; readonly effects: ReadonlyArray<KeyEffect> };

export type BookkeepingPolicy = {
  readonly hotLoop: HotLoopPolicy;
  readonly perpetualDiff: PerpetualDiffPolicy;
};

export const defaultBookkeepingPolicy: BookkeepingPolicy = {
  hotLoop: defaultHotLoopPolicy,
  perpetualDiff: defaultPerpetualDiffPolicy,
};

/** A key with nothing kept: the start of every key's book. */
export const EMPTY_BOOK: KeyBook = {
  reconciles: 0,
  patches: [],
  writes: [],
  readDirectly: false,
  waitsForKinds: false,
};

/** What a plan without patches was planned against (nothing recorded for the guards). */
const NO_VERSIONS: LiveVersions = new Map();

const STOP_WAITING: KeyEffect = { _tag: 'StopWaitingForKinds' };
const WAIT: KeyEffect = { _tag: 'WaitForKinds' };
const AFTER_CRASH: ReadonlyArray<KeyEffect> = [{ _tag: 'Requeue', requeue: AFTER_DEFECT }];

/** The key's next state and effects after `report`. Total: every report has an answer. */
export const afterReconcile = (
  state: KeyBook | undefined,
  report: ReconcileReport,
  policy: BookkeepingPolicy = defaultBookkeepingPolicy,
): KeyStep => {
  if (report._tag === 'Crashed')
    return {
      // A crash records nothing it may have half done: only that it ran.
      state: report.stored ? { ...(state ?? EMPTY_BOOK), reconciles: (state?.reconciles ?? 0) + 1 } : undefined,
      effects: AFTER_CRASH,
    };
  const { result } = report;
  const effects = [...kindEffects(state, result), { _tag: 'Requeue', requeue: requeueOf(result) } as const];
  // A primary found gone, or deleted while reconciled: what was kept for it goes with it.
  if (result._tag === 'Gone' || !report.stored) return { state: undefined, effects };
  return { state: recorded(state ?? EMPTY_BOOK, result, report.at, policy), effects };
};

/** The kind a failed write found gone is forgotten first; then the key waits for unserved kinds, or no longer. */
const kindEffects = (state: KeyBook | undefined, result: ReconcileResult): ReadonlyArray<KeyEffect> => {
  const failedOn = result._tag === 'Failed' ? result.execution?.failure?.action : undefined;
  const forget: ReadonlyArray<KeyEffect> =
    result._tag === 'Failed' && result.error._tag === 'UnknownKind' && failedOn !== undefined
      ? [{ _tag: 'ForgetKind', kind: { apiVersion: failedOn.ref.apiVersion, kind: failedOn.ref.kind } }]
      : [];
  if (result._tag !== 'Gone' && waitsForKind(result)) return [...forget, WAIT];
  return state?.waitsForKinds === true ? [...forget, STOP_WAITING] : forget;
};

const recorded = (
  state: KeyBook,
  result: Exclude<ReconcileResult, { _tag: 'Gone' }>,
  at: number,
  policy: BookkeepingPolicy,
): KeyBook => {
  const done = result.execution?.done ?? [];
  const versions = result.plannedAgainst?.versions ?? NO_VERSIONS;
  return {
    reconciles: state.reconciles + 1,
    patches: patchHistory(state.patches, done, versions, at, policy.hotLoop),
    writes: writeHistory(state.writes, done, versions, result.plannedAgainst?.generation, policy.perpetualDiff),
    readDirectly: state.readDirectly || (result._tag === 'Failed' && result.error._tag === 'AlreadyExists'),
    waitsForKinds: waitsForKind(result),
  };
};

const patched = (done: ReadonlyArray<ActionResult>): boolean => done.some(({ action }) => action.type === 'patch');

/** The hot-loop history with the patches that succeeded (only those can be undone by someone else). */
const patchHistory = (
  history: ReadonlyArray<PatchRecord>,
  done: ReadonlyArray<ActionResult>,
  versions: LiveVersions,
  at: number,
  policy: HotLoopPolicy,
): ReadonlyArray<PatchRecord> =>
  // Nothing to add and nothing to expire: a key without history that patched nothing keeps none (every resync).
  history.length === 0 && !patched(done) ? history : recordPatches(history, done, versions, at, policy);

/** The perpetual-diff history: only writes the server dropped matter, a history of kept writes is forgotten. */
const writeHistory = (
  history: ReadonlyArray<WriteRecord>,
  done: ReadonlyArray<ActionResult>,
  versions: LiveVersions,
  generation: number | undefined,
  policy: PerpetualDiffPolicy,
): ReadonlyArray<WriteRecord> => {
  if (history.length === 0 && !patched(done)) return history;
  const next = recordWrites(history, done, versions, generation, policy);
  return next.some((record) => record.dropped.length > 0) ? next : EMPTY_BOOK.writes;
};
