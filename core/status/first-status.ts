/**
 * Whether a brand-new Application's first status, when it only says "waiting for my children to
 * become ready", is held back for a short grace (docs/behaviour.md §5, "First status"): a first
 * rollout that is ready within the grace then costs one status write (Ready=True) instead of two
 * (Ready=False WaitingForReadiness, then Ready=True), and the held status is written once the grace
 * has passed if readiness has not come by then.
 *
 * The grace counts from what the cluster recorded, never from process state: the newest
 * `metadata.creationTimestamp` among the Application's own children (server time, whole seconds),
 * so a restarted operator, or another replica, reaches the same decision.
 */
import type { ApplicationStatus } from '../model/application.js';
import type { Resource } from '../model/resource.js';
import { ownerMark, ownerOf, type Owner } from '../manifest/ownership.js';

export type FirstStatusDecision =
  | { readonly _tag: 'Write' }
  /** Not written now; reconcile again after `remainingMs` (then it is written unless readiness came). */
  | { readonly _tag: 'Hold'; readonly remainingMs: number };

export const WRITE_STATUS: FirstStatusDecision = { _tag: 'Write' };

/**
 * The decision for one status write. Held only when every one of these holds:
 * - `graceMs` > 0;
 * - nothing recorded a condition yet (`stored` has none: the Application was never reported on);
 * - `next` is a plain wait for readiness: `Ready=False` with reason `WaitingForReadiness`, and no
 *   timed readiness rule running (`readinessWaits` count from the status that records them, so
 *   they are written at once, as every failure, stall, denial, drift report or deletion is);
 * - the newest creation of a child is less than `graceMs` before `now`. A creation time in the
 *   future (the server's clock ahead of ours) counts as `now`: the hold is never longer than `graceMs`.
 * Without any child creation time to count from, the status is written.
 */
export const firstStatusDecision = (args: {
  readonly stored: ApplicationStatus | undefined;
  readonly next: ApplicationStatus;
  /**
   * `metadata.creationTimestamp` of the Application's children (see `childCreationTimes`): asked
   * only when the rest allows a hold, so a reconcile of an Application with a status (every resync)
   * collects nothing.
   */
  readonly childrenCreated: () => ReadonlyArray<string>;
  /** RFC 3339. */
  readonly now: string;
  readonly graceMs: number;
}): FirstStatusDecision => {
  const { stored, next, graceMs } = args;
  if (!(graceMs > 0) || (stored?.conditions ?? []).length > 0 || !waitsOnlyForReadiness(next)) return WRITE_STATUS;
  const nowMs = Date.parse(args.now);
  const newest = newestTime(args.childrenCreated());
  if (!Number.isFinite(nowMs) || newest === undefined) return WRITE_STATUS;
  const remainingMs = graceMs - (nowMs - Math.min(newest, nowMs));
  return remainingMs > 0 ? { _tag: 'Hold', remainingMs } : WRITE_STATUS;
};

const waitsOnlyForReadiness = (status: ApplicationStatus): boolean => {
  const ready = status.conditions?.find((condition) => condition.type === 'Ready');
  return (
    ready !== undefined &&
    ready.status === 'False' &&
    ready.reason === 'WaitingForReadiness' &&
    (status.readinessWaits ?? []).length === 0
  );
};

const newestTime = (times: ReadonlyArray<string>): number | undefined => {
  let newest: number | undefined;
  for (const time of times) {
    const ms = Date.parse(time);
    if (Number.isFinite(ms) && (newest === undefined || ms > newest)) newest = ms;
  }
  return newest;
};

/** The creation times of the objects among `objects` that carry `owner`'s ownership mark (its children). */
export const childCreationTimes = (objects: ReadonlyArray<Resource>, owner: Owner): ReadonlyArray<string> => {
  const mark = ownerMark(owner);
  return objects.flatMap((object) => {
    const created = object.metadata.creationTimestamp;
    return typeof created === 'string' && ownerOf(object) === mark ? [created] : [];
  });
};
