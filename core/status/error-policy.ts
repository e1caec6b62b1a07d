/** Error policy: whether a failed write is retried (and when) or stalls the Application. */
import type { ClusterError } from '../ports/errors.js';
import type { StalledReason } from './conditions.js';

export type ErrorDecision =
  | { readonly _tag: 'Retry'; readonly afterMs: number }
  | { readonly _tag: 'Terminal'; readonly reason: StalledReason };

export type Backoff = { readonly baseMs: number; readonly capMs: number };

export const defaultBackoff: Backoff = { baseMs: 500, capMs: 5 * 60_000 };

/**
 * Exponential backoff per attempt (1-based) with "equal jitter": half fixed, half random,
 * capped; `jitter` in [0, 1) is an argument because the core has no randomness.
 */
export const backoffDelay = (attempt: number, jitter: number, backoff: Backoff = defaultBackoff): number => {
  const exponential = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * jitter);
};

/**
 * Retry vs terminal (controller-runtime `TerminalError`, kube-rs `error_policy`): permission and
 * input errors cannot be fixed by retrying; everything else backs off, honouring `Retry-After`.
 * A 422 from a guarded patch means a `test` guard failed: the object moved, so re-plan.
 */
export const errorPolicy = (error: ClusterError, attempt: number, jitter: number, options: { readonly guardedPatch?: boolean; readonly backoff?: Backoff } = {}): ErrorDecision => {
  if (error._tag === 'Forbidden' || error._tag === 'Unauthorized') return { _tag: 'Terminal', reason: 'Forbidden' };
  if ((error._tag === 'Invalid' || error._tag === 'BadRequest' || error._tag === 'UnsupportedMediaType') && options.guardedPatch !== true) {
    return { _tag: 'Terminal', reason: 'InvalidSpec' };
  }
  const delay = backoffDelay(attempt, jitter, options.backoff);
  return { _tag: 'Retry', afterMs: Math.max(delay, error.retryAfterMs ?? 0) };
};
