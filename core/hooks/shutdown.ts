/**
 * The `shutdown` hook on deletion (docs/behaviour.md §6): before the children are deleted, the workload
 * is asked to shut down and given a bounded grace period to call back.
 *
 * "Asked" means: the Application's `metadata.deletionTimestamp` is the request (the API server
 * records it, so it survives operator restarts), which the operator serves to the workload at
 * `GET …/shutdown` and reports in the `Reconciling` condition. The workload acknowledges with
 * `POST …/shutdown`; the operator records that in the annotation below. The grace period runs
 * from the deletionTimestamp, so it is bounded whatever happens to the operator meanwhile.
 */
import { getOwn, isJsonObject } from '../json/json.js';
import { FINALIZER, type Application } from '../model/application.js';
import { conditionsFor } from '../status/conditions.js';
import type { Plan } from '../model/plan.js';

/** Set on the Application (RFC 3339 time) when its workload acknowledged the shutdown request. */
export const SHUTDOWN_ACKNOWLEDGED_ANNOTATION = 'kreconcile.io/shutdown-acknowledged';

/** Default grace period: how long children are kept waiting for the workload's callback. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5 * 60_000;

export type ShutdownState =
  /** Not deleting, no `shutdown` hook, no finalizer (nothing to delete) or no children observed. */
  | { readonly _tag: 'NotApplicable' }
  | { readonly _tag: 'Proceed'; readonly reason: 'Acknowledged' | 'GraceExpired' }
  | { readonly _tag: 'Wait'; readonly requestedAt: string; readonly deadlineMs: number; readonly remainingMs: number };

/**
 * Where the shutdown handshake of an Application stands at `nowMs`.
 * Guarantees: `Wait` only while deleting, with the `shutdown` hook, children observed, no
 * acknowledgement and `nowMs` before deletionTimestamp + `graceMs`; an unreadable
 * deletionTimestamp proceeds (the wait must stay bounded).
 */
export const shutdownState = (args: {
  readonly application: Application;
  readonly nowMs: number;
  readonly graceMs: number;
}): ShutdownState => {
  const { metadata, spec, status } = args.application;
  const requestedAt = metadata.deletionTimestamp;
  if (requestedAt === undefined || !(spec.hooks ?? []).includes('shutdown')) return { _tag: 'NotApplicable' };
  if (!(metadata.finalizers ?? []).includes(FINALIZER) || (status?.lastObservedManifest ?? []).length === 0)
    return { _tag: 'NotApplicable' };
  if (isAcknowledged(args.application)) return { _tag: 'Proceed', reason: 'Acknowledged' };
  const requested = Date.parse(requestedAt);
  const deadlineMs = (Number.isNaN(requested) ? args.nowMs : requested) + Math.max(0, args.graceMs);
  return args.nowMs >= deadlineMs
    ? { _tag: 'Proceed', reason: 'GraceExpired' }
    : { _tag: 'Wait', requestedAt, deadlineMs, remainingMs: deadlineMs - args.nowMs };
};

export const isAcknowledged = (application: Application): boolean => {
  const annotations = getOwn(application.metadata, 'annotations');
  return isJsonObject(annotations) && typeof getOwn(annotations, SHUTDOWN_ACKNOWLEDGED_ANNOTATION) === 'string';
};

/**
 * The plan while waiting: no action, `Reconciling=True` with reason `AwaitingShutdown`, and a
 * requeue at the deadline (a callback triggers a reconcile earlier: it changes the Application).
 */
export const awaitingShutdownPlan = (
  application: Application,
  state: Extract<ShutdownState, { _tag: 'Wait' }>,
  now: string,
): Plan => {
  const status = application.status ?? {};
  const message = `shutdown requested at ${state.requestedAt}; waiting for the workload's shutdown callback until ${new Date(state.deadlineMs).toISOString()}, then deleting the children`;
  return {
    actions: [],
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
    status: {
      ...status,
      conditions: conditionsFor({
        verdict: { _tag: 'Progressing', reason: 'AwaitingShutdown', message },
        previous: status.conditions,
        now,
        generation: application.metadata.generation,
      }),
    },
    outcome: { _tag: 'RequeueAfter', ms: state.remainingMs, reason: 'AwaitingShutdown' },
  };
};
