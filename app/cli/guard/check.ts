/**
 * The guard as the CLI applies it (`plan --guard`, `apply --guard`): the core's verdict on each
 * Application's plan, and the lines that report it on stderr (every violation with its rule and
 * action, then the digest an approval names). In CI an approval comes only from `--approve` or
 * `--approvals-file`, which the pipeline takes from a place the change under review cannot write
 * (docs/decisions/0026-approvals-outside-the-change.md); an annotation in the files is ignored.
 */
import {
  APPROVE_ANNOTATION,
  evaluateGuard,
  isDenied,
  type Action,
  type Application,
  type GuardPolicy,
  type GuardVerdict,
  type GuardedApplication,
} from '../../../core/internal.js';

/** One Application's plan as the CLI holds it. */
export type GuardInput = { readonly application: GuardedApplication; readonly actions: ReadonlyArray<Action> };

/**
 * The verdicts on every plan, judged together (`maxDeletesPerPlan` counts them all), each approved
 * when `approvals` names its digest. Judged twice: a digest is known only once the plan is judged,
 * and an approved plan's deletes leave the plan-wide count.
 */
export const guardVerdicts = (
  policy: GuardPolicy,
  plans: ReadonlyArray<GuardInput>,
  approvals: ReadonlySet<string>,
): ReadonlyArray<GuardVerdict> => {
  const bare = plans.map(({ application, actions }) => ({
    application: { namespace: application.namespace, name: application.name },
    actions,
  }));
  const first = evaluateGuard(policy, bare);
  return evaluateGuard(
    policy,
    bare.map((plan, index) => {
      const digest = first[index]?.digest;
      return digest !== undefined && approvals.has(digest)
        ? { ...plan, application: { ...plan.application, approval: digest } }
        : plan;
    }),
  );
};

const subject = (application: GuardedApplication): string => `Application ${application.namespace}/${application.name}`;

/** How a denied plan is approved in the flow at hand: a command that works there. */
export type ApproveHint = (verdict: GuardVerdict) => string;

/** `plan`: the same command again, with the digest from a trusted place. */
export const planApproveHint: ApproveHint = (verdict) =>
  `after review, approve it by running kreconcile plan again with --approve ${verdict.digest} (or its line in --approvals-file), taken from a place the change cannot write (docs/ci.md, "Approvals")`;

/** `apply`: the saved plan applied with the digest from a trusted place. */
export const applyApproveHint =
  (path: string, guard: string): ApproveHint =>
  (verdict) =>
    `after review, approve it with: kreconcile apply ${path} --guard ${guard} --approve ${verdict.digest} (docs/ci.md, "Approvals")`;

/**
 * The report of denied and approved plans, one line each (empty when every plan passes untouched):
 * `guard: Application shop/web: rule "keep-volumes" denies delete of v1 PersistentVolumeClaim shop/data`.
 */
export const guardReport = (verdicts: ReadonlyArray<GuardVerdict>, hint: ApproveHint): ReadonlyArray<string> =>
  verdicts.flatMap((verdict) => {
    if (verdict.violations.length === 0) return [];
    const who = subject(verdict.application);
    if (!isDenied(verdict))
      return [
        `guard: ${who}: approved by --approve (plan ${verdict.digest}) despite ${verdict.violations.length} violation(s): ${verdict.violations.map((v) => `rule ${JSON.stringify(v.rule)}`).join(', ')}`,
      ];
    return [
      ...verdict.violations.map((v) => `guard: ${who}: rule ${JSON.stringify(v.rule)} denies ${v.message}`),
      `guard: ${who}: plan ${verdict.digest} denied; ${hint(verdict)}`,
    ];
  });

/** Whether any plan is denied. */
export const anyDenied = (verdicts: ReadonlyArray<GuardVerdict>): boolean => verdicts.some(isDenied);

/**
 * A warning for each `kreconcile.io/approve` annotation among the Applications under review (`-f`)
 * or on their live copies: CI never takes an approval from them (a pull request could approve
 * its own denial; the live annotation is the operator's, guarded by its admission policy).
 */
export const ignoredApprovals = (
  planned: ReadonlyArray<Application>,
  live: (application: Application) => Application | undefined,
): ReadonlyArray<string> =>
  planned.flatMap((application) => {
    const who = `Application ${application.metadata.namespace ?? 'default'}/${application.metadata.name}`;
    const inFile = application.metadata.annotations?.[APPROVE_ANNOTATION] !== undefined;
    const inCluster = live(application)?.metadata.annotations?.[APPROVE_ANNOTATION] !== undefined;
    return [
      ...(inFile
        ? [
            `guard: warning: ${who}: its ${APPROVE_ANNOTATION} annotation is ignored: the files under review cannot approve their own plan; approve with --approve or --approvals-file from a trusted place (docs/ci.md, "Approvals")`,
          ]
        : []),
      ...(inCluster && !inFile
        ? [
            `guard: warning: ${who}: the live Application's ${APPROVE_ANNOTATION} annotation is ignored here (it approves the operator's plan); approve this one with --approve or --approvals-file (docs/ci.md, "Approvals")`,
          ]
        : []),
    ];
  });

/** The verdicts on `kreconcile plan`'s plans, approved only by `approvals` (`--approve`, `--approvals-file`). */
export const plannedVerdicts = (
  policy: GuardPolicy,
  planned: ReadonlyArray<{
    readonly application: Application;
    readonly plan: { readonly actions: ReadonlyArray<Action> };
  }>,
  approvals: ReadonlySet<string>,
): ReadonlyArray<GuardVerdict> =>
  guardVerdicts(
    policy,
    planned.map(({ application, plan }) => ({
      application: { namespace: application.metadata.namespace ?? 'default', name: application.metadata.name },
      actions: plan.actions,
    })),
    approvals,
  );
