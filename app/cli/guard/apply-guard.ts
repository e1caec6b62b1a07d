/**
 * `kreconcile apply --guard`: the rules re-evaluated on a saved plan's actions right before it is
 * carried out, approved only by `--approve`/`--approvals-file` (never by the plan file), and the
 * plan's digests checked against its actions and guard record.
 */
import { judgedDigest, type GuardVerdict } from '../../../core/internal.js';
import { inputError, type CliError } from '../cli-error.js';
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

/**
 * Each saved Application whose recorded digest is not the one its actions give under the guard
 * `apply` is given (or none): the digest covers the guard record and its verdict, so a plan whose
 * guard entry was removed or edited, or applied under other rules than it was checked against, is
 * refused (issue 37). A saved plan without digests is refused too.
 */
export const digestMismatches = (
  saved: SavedPlanV1,
  guard: GuardFile | undefined,
  path: string,
): ReadonlyArray<CliError> =>
  saved.applications.flatMap((application) => {
    const namespace = application.application.namespace ?? 'default';
    const { name } = application.application;
    const recomputed = judgedDigest(guard?.policy, { namespace, name }, planOf(application).actions);
    if (application.digest === recomputed) return [];
    const under = guard === undefined ? 'without a guard' : `under the guard ${guard.file}`;
    return [
      inputError(
        application.digest === undefined
          ? `Application ${namespace}/${name}: the saved plan records no digest: plan again (kreconcile plan … --out ${path})`
          : `Application ${namespace}/${name}: the saved plan's digest ${application.digest} is not what its actions give ${under} (${recomputed}): the plan was edited, its guard record removed or changed, or it was checked against other rules; nothing was applied: plan again (kreconcile plan … --out ${path})`,
        { location: { file: path } },
      ),
    ];
  });

/**
 * The verdict on each saved Application's plan under `guard`, approved only by `approvals`
 * (`--approve`, `--approvals-file`): never by the plan file, nor by the live Application's
 * annotation (the operator's approval).
 */
export const savedVerdicts = (
  saved: SavedPlanV1,
  guard: GuardFile,
  approvals: ReadonlySet<string>,
): ReadonlyArray<GuardVerdict> =>
  guardVerdicts(
    guard.policy,
    saved.applications.map((application) => ({
      application: { namespace: application.application.namespace ?? 'default', name: application.application.name },
      actions: planOf(application).actions,
    })),
    approvals,
  );
