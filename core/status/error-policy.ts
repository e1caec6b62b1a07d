/** Error policy: whether a failed write is retried (and when) or stalls the Application. */
import type { ClusterError } from '../ports/errors.js';
import type { StalledReason } from './conditions.js';

export type ErrorDecision =
  | { readonly _tag: 'Retry'; readonly afterMs: number }
  | { readonly _tag: 'Terminal'; readonly reason: StalledReason; readonly detail?: string };

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
  const managers = conflictingManagers(error);
  if (managers.length > 0) return { _tag: 'Terminal', reason: 'Conflict', detail: conflictDetail(managers) };
  const immutable = immutableFieldsOf(error);
  if (immutable.length > 0) return { _tag: 'Terminal', reason: 'ImmutableField', detail: immutableDetail(immutable) };
  if ((error._tag === 'Invalid' || error._tag === 'BadRequest' || error._tag === 'UnsupportedMediaType') && options.guardedPatch !== true) {
    return { _tag: 'Terminal', reason: 'InvalidSpec' };
  }
  const delay = backoffDelay(attempt, jitter, options.backoff);
  return { _tag: 'Retry', afterMs: Math.max(delay, error.retryAfterMs ?? 0) };
};

// kube-apiserver's words for a field that cannot change once set (ValidateImmutableField, Service IPs).
const UNCHANGEABLE = /(field is immutable|may not change once set)$/;

/** The fields a 422 Invalid refuses to change, as the server names them (`spec.selector`). */
export const immutableFieldsOf = (error: ClusterError): ReadonlyArray<string> => (error._tag !== 'Invalid' ? [] : [
  ...new Set((error.causes ?? []).filter((cause) => UNCHANGEABLE.test(cause.message)).map((cause) => cause.field ?? '(unnamed field)')),
]);

const immutableDetail = (fields: ReadonlyArray<string>): string =>
  `${fields.join(', ')} cannot change once set (the API server refuses the patch): add the annotation kreconcile.io/recreate: "true" to this resource in spec.manifest to delete and recreate it, or restore the value`;

// kube-apiserver's words for a server-side apply conflict: `conflict with "kubectl-edit" using v1`.
const CONFLICT_WITH = /conflict with "([^"]*)"/;

/** The field managers a server-side apply conflicts with (409, causes `FieldManagerConflict`); none for any other error. */
export const conflictingManagers = (error: ClusterError): ReadonlyArray<string> => (error._tag !== 'Conflict' ? [] : [
  ...new Set((error.causes ?? []).filter((cause) => cause.reason === 'FieldManagerConflict')
    .map((cause) => CONFLICT_WITH.exec(cause.message)?.[1] ?? '(unnamed manager)')),
]);

const conflictDetail = (managers: ReadonlyArray<string>): string =>
  `server-side apply conflicts with field manager${managers.length > 1 ? 's' : ''} ${managers.map((m) => `"${m}"`).join(', ')}: set spec.forceConflicts: true to take the fields over, or stop the other manager from writing them`;
