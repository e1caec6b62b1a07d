/**
 * `kreconcile apply --guard`: the rules re-evaluated on a saved plan's actions right before it is
 * carried out, with each Application's approval read from the cluster (an approval is an admin's
 * annotation on the live Application, never something the plan file can claim).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  APPROVE_ANNOTATION,
  showClusterError,
  type ClusterReader,
  type GuardVerdict,
} from '../../../core/index.js';
import { clusterFailure, inputError, type CliError } from '../cli-error.js';
import type { SavedPlanV1 } from '../saved-plan/format.js';
import { planOf } from '../saved-plan/replay.js';
import { guardVerdicts } from './check.js';
import type { GuardFile } from './read-guard.js';

/**
 * Refuses a plan checked against a guard (`plan --guard`) when `apply` is given none: the rules
 * must be evaluated again against what is applied now.
 */
export const missingGuard = (
  saved: SavedPlanV1,
  guard: GuardFile | undefined,
  path: string,
): ReadonlyArray<CliError> =>
  saved.metadata.guard === undefined || guard !== undefined
    ? []
    : [
        inputError(
          `the plan was checked against the guard file ${saved.metadata.guard.file} (${saved.metadata.guard.digest}): pass it with --guard, apply evaluates its rules again`,
          { location: { file: path } },
        ),
      ];

/** A note when the guard given is not the file the plan was checked against (the one given is what counts). */
export const otherGuardNote = (saved: SavedPlanV1, guard: GuardFile | undefined): ReadonlyArray<string> =>
  saved.metadata.guard === undefined || guard === undefined || saved.metadata.guard.digest === guard.digest
    ? []
    : [
        `guard: ${guard.file} (${guard.digest}) is not the guard file the plan was checked against (${saved.metadata.guard.file}, ${saved.metadata.guard.digest}): its rules are the ones applied`,
      ];

/**
 * The verdict on each saved Application's plan under `guard`, approvals read from the live
 * Applications. Errors: a read that fails, as one line.
 */
export const savedVerdicts = async (
  reader: ClusterReader,
  saved: SavedPlanV1,
  guard: GuardFile,
): Promise<E.Either<CliError, ReadonlyArray<GuardVerdict>>> => {
  const subjects = [];
  for (const application of saved.applications) {
    const namespace = application.application.namespace ?? 'default';
    const { name } = application.application;
    const live = await reader.get({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace, name })();
    if (E.isLeft(live))
      return E.left(
        clusterFailure(`cannot read Application ${namespace}/${name} for its approval: ${showClusterError(live.left)}`),
      );
    const approval = O.isSome(live.right) ? live.right.value.metadata.annotations?.[APPROVE_ANNOTATION] : undefined;
    subjects.push({
      application: { namespace, name, ...(typeof approval === 'string' ? { approval: approval.trim() } : {}) },
      actions: planOf(application).actions,
    });
  }
  return E.right(guardVerdicts(guard.policy, subjects));
};
