/**
 * The guards a key's plan passes over the key's histories, which the bookkeeping keeps
 * (bookkeeping.ts): the core's pure perpetual-diff guard (`core/status/perpetual-diff.ts`: patches
 * the server keeps not keeping) and hot-loop guard (`core/status/hot-loop.ts`: patches someone
 * keeps undoing), each telling the log what it stopped.
 */
import {
  guardHotLoop,
  guardPerpetualDiff,
  showRef,
  type Application,
  type HotLoopPolicy,
  type LiveVersions,
  type PatchRecord,
  type PerpetualDiffPolicy,
  type Plan,
  type WriteRecord,
} from '../../core/internal.js';
import type { Logger } from '../logging/logger.js';

/** Whose plan is guarded, when, and where what a guard stopped is told. */
export type GuardedPlan = {
  readonly key: string;
  readonly application: Application;
  readonly now: number;
  readonly logger: Logger;
};

/** `plan`, or the plan without the patches the server keeps dropping, the Application Stalled (PerpetualDiff). */
export const guardedAgainstPerpetualDiff = (
  plan: Plan,
  history: ReadonlyArray<WriteRecord>,
  { key, application, now, logger }: GuardedPlan,
  policy: PerpetualDiffPolicy,
): Plan => {
  if (history.length === 0) return plan;
  const guarded = guardPerpetualDiff({ history, plan, application, now, policy });
  if (guarded.diffs.length > 0)
    logger.warn(
      { key, dropped: guarded.diffs.map((diff) => `${showRef(diff.ref)}: ${diff.paths.join(', ')}`) },
      'perpetual diff: the API server does not keep what is written; no longer written until the spec changes',
    );
  return guarded.plan;
};

/** `plan`, or the Stalled (HotLoop) plan the core decides on when it would repeat a contested patch. */
export const guardedAgainstHotLoop = (
  plan: Plan,
  history: ReadonlyArray<PatchRecord>,
  live: LiveVersions,
  { key, application, now, logger }: GuardedPlan,
  policy: HotLoopPolicy,
): Plan => {
  // Only a patch can repeat a contested one (most plans, every in-sync one, have none).
  if (!plan.actions.some((action) => action.type === 'patch')) return plan;
  const guarded = guardHotLoop({ history, plan, application, live, now, policy });
  if (guarded.contested.length > 0)
    logger.warn({ key, contested: guarded.contested }, 'hot loop: another actor keeps reverting observed fields');
  return guarded.plan;
};
