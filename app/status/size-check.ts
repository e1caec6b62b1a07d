/**
 * The size check before the first write (docs/decisions/0023-status-size.md), shared by the
 * operator and the CLI: the core decides (core/plan/size-check.ts) on the bytes the status takes
 * as stored, which only the shell can compute (it packs and deflates it, stored-status.ts).
 */
import type { Application, JsonObject, Plan } from '../../core/internal.js';
import { redactStatus } from '../../core/internal.js';
import {
  sizeProblems,
  statusOnceObserved,
  utf8Length,
  type SizeProblem,
  type StorageLimits,
} from '../../core/plan/size-check.js';
import { storedStatus } from './stored-status.js';
import { defined } from '../../core/json/defined.js';

/**
 * Whether a plan starts or grows what the status must then record: a create, patch or recreation,
 * or the finalizer a new Application gets right before its first creates. Deletions and plans with
 * nothing to do are never held back (removing resources is how an Application is made to fit).
 */
export const writesChildren = (plan: Plan): boolean =>
  plan.actions.some(
    (action) =>
      action.type === 'create' ||
      action.type === 'patch' ||
      action.type === 'recreate' ||
      action.type === 'addFinalizer',
  );

/**
 * What of `object` (the Application as read) and its desired children cannot be stored, with the
 * status the plan leads to once every child is observed in sync, as the operator would store it.
 */
export const sizeProblemsOf = (
  object: JsonObject,
  application: Application,
  plan: Plan,
  limits?: StorageLimits,
): ReadonlyArray<SizeProblem> => {
  const owner = { namespace: application.metadata.namespace ?? 'default', name: application.metadata.name };
  const observed = statusOnceObserved(redactStatus(plan.status, owner));
  const check = (storedStatusBytes: number): ReadonlyArray<SizeProblem> =>
    sizeProblems({
      application: object,
      storedStatusBytes,
      children: plan.status.lastAppliedManifest ?? [],
      ...defined({ limits }),
    });
  // Deflating costs more than planning: when even a bound on the stored size fits, the exact size does too.
  const bounded = check(storedSizeBound(utf8Length(JSON.stringify(observed))));
  return bounded.length === 0 ? bounded : check(utf8Length(JSON.stringify(storedStatus(observed))));
};

/**
 * More than the stored status can take for a status of `rawBytes` as JSON: packing rearranges the
 * lists (never by half again), deflate adds at most a few bytes per block, base64 a third.
 */
const storedSizeBound = (rawBytes: number): number => Math.ceil(rawBytes * 1.5 * (4 / 3)) + 4096;

/** The one line an Application that cannot fit is stalled with (`TooLarge`), or undefined when it fits. */
export const tooLargeMessage = (problems: ReadonlyArray<SizeProblem>): string | undefined =>
  problems.length === 0 ? undefined : problems.map((problem) => problem.message).join('; ');
