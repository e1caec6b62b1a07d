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

export const requeueOf = (result: ReconcileResult): Requeue => {
  if (result._tag === 'Failed')
    return result.terminal ? { _tag: 'Settled' } : { _tag: 'Backoff', atLeastMs: result.retryAfterMs ?? 0 };
  // Waiting for a CRD that may be installed any moment: retry soon, then less often, up to the plan's delay.
  if (
    result._tag === 'Done' &&
    result.plan.outcome._tag === 'RequeueAfter' &&
    result.plan.outcome.reason === 'UnknownKind'
  )
    return { _tag: 'Backoff', atLeastMs: 0, capMs: result.plan.outcome.ms };
  return result._tag === 'Done' && result.requeueAfterMs !== undefined
    ? { _tag: 'Settled', afterMs: result.requeueAfterMs }
    : { _tag: 'Settled' };
};
