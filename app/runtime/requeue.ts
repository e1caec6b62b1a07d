/**
 * What a finished reconcile means for its key's next turn in the work queue: backoff after a
 * retryable failure, a delayed requeue the plan asked for, or nothing until something changes.
 */
import type { ReconcileResult } from '../reconcile/reconcile-application.js';

export type Requeue =
  /** Retry with the key's exponential backoff, at least `atLeastMs`, at most `capMs` when given. */
  | { readonly _tag: 'Backoff'; readonly atLeastMs: number; readonly capMs?: number }
  /** The backoff is reset; the key comes back after `afterMs` when given, else only on a change or resync. */
  | { readonly _tag: 'Settled'; readonly afterMs?: number };

/** A reconcile that crashed (a defect) is retried with backoff. */
export const AFTER_DEFECT: Requeue = { _tag: 'Backoff', atLeastMs: 0 };

/** A write that found its kind gone is planned again soon: the plan then says UnknownKind (its scope was forgotten). */
const AFTER_KIND_GONE_MS = 1_000;

export const requeueOf = (result: ReconcileResult): Requeue => {
  // Only a write's failure: its kind is forgotten then (reconcile-step), so the next plan cannot fail the same way.
  if (
    result._tag === 'Failed' &&
    !result.terminal &&
    result.error._tag === 'UnknownKind' &&
    result.execution?.failure !== undefined
  )
    return { _tag: 'Backoff', atLeastMs: 0, capMs: AFTER_KIND_GONE_MS };
  if (result._tag === 'Failed')
    return result.terminal ? SETTLED : { _tag: 'Backoff', atLeastMs: result.retryAfterMs ?? 0 };
  // Waiting for a CRD that may be installed any moment: retry soon, then less often, up to the plan's delay.
  if (
    result._tag === 'Done' &&
    result.plan.outcome._tag === 'RequeueAfter' &&
    result.plan.outcome.reason === 'UnknownKind'
  )
    return { _tag: 'Backoff', atLeastMs: 0, capMs: result.plan.outcome.ms };
  return result._tag === 'Done' && result.requeueAfterMs !== undefined
    ? { _tag: 'Settled', afterMs: result.requeueAfterMs }
    : SETTLED;
};

/** Settled until something changes (every in-sync reconcile of a resync): one value, not one per reconcile. */
const SETTLED: Requeue = { _tag: 'Settled' };

/**
 * Whether the reconcile ended waiting for a kind the server does not serve: planned `UnknownKind`,
 * or a write answered that its kind is gone. Discovery is then asked again until the kind is back.
 */
export const waitsForKind = (result: ReconcileResult): boolean =>
  (result._tag === 'Done' &&
    result.plan.outcome._tag === 'RequeueAfter' &&
    result.plan.outcome.reason === 'UnknownKind') ||
  (result._tag === 'Failed' && result.error._tag === 'UnknownKind');
