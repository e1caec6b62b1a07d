/**
 * The guard as the CLI applies it (`plan --guard`, `apply --guard`): the core's verdict on each
 * Application's plan, and the lines that report it on stderr (every violation with its rule and
 * action, then the digest an approval names).
 */
import {
  APPROVE_ANNOTATION,
  evaluateGuard,
  guardedApplicationOf,
  isDenied,
  type Action,
  type Application,
  type GuardPolicy,
  type GuardVerdict,
  type GuardedApplication,
} from '../../../core/index.js';

/** One Application's plan as the CLI holds it. */
export type GuardInput = { readonly application: GuardedApplication; readonly actions: ReadonlyArray<Action> };

/** The verdicts on every plan, judged together (`maxDeletesPerPlan` counts them all). */
export const guardVerdicts = (policy: GuardPolicy, plans: ReadonlyArray<GuardInput>): ReadonlyArray<GuardVerdict> =>
  evaluateGuard(policy, plans);

const subject = (application: GuardedApplication): string => `Application ${application.namespace}/${application.name}`;

/** The shell command that approves a denied plan (what the admin runs after review). */
export const approveCommand = (verdict: GuardVerdict): string =>
  `kubectl annotate applications.kreconcile.io -n ${verdict.application.namespace} ${verdict.application.name} --overwrite ${APPROVE_ANNOTATION}=${verdict.digest}`;

/**
 * The report of denied and approved plans, one line each (empty when every plan passes untouched):
 * `guard: Application shop/web: rule "keep-volumes" denies delete of v1 PersistentVolumeClaim shop/data`.
 */
export const guardReport = (verdicts: ReadonlyArray<GuardVerdict>): ReadonlyArray<string> =>
  verdicts.flatMap((verdict) => {
    if (verdict.violations.length === 0) return [];
    const who = subject(verdict.application);
    if (!isDenied(verdict))
      return [
        `guard: ${who}: approved by ${APPROVE_ANNOTATION} (plan ${verdict.digest}) despite ${verdict.violations.length} violation(s): ${verdict.violations.map((v) => `rule ${JSON.stringify(v.rule)}`).join(', ')}`,
      ];
    return [
      ...verdict.violations.map((v) => `guard: ${who}: rule ${JSON.stringify(v.rule)} denies ${v.message}`),
      `guard: ${who}: plan ${verdict.digest} denied; after review, approve it with: ${approveCommand(verdict)}`,
    ];
  });

/** Whether any plan is denied. */
export const anyDenied = (verdicts: ReadonlyArray<GuardVerdict>): boolean => verdicts.some(isDenied);

/**
 * The verdicts on `kreconcile plan`'s plans. An approval is read from the Application as planned
 * (the `-f` file) or, when the file has none, from the Application in the cluster (`live`): an
 * admin annotates the live object (`kubectl annotate`), which applying the file again keeps.
 */
export const plannedVerdicts = (
  policy: GuardPolicy,
  planned: ReadonlyArray<{
    readonly application: Application;
    readonly plan: { readonly actions: ReadonlyArray<Action> };
  }>,
  live: (application: Application) => Application | undefined,
): ReadonlyArray<GuardVerdict> =>
  guardVerdicts(
    policy,
    planned.map(({ application, plan }) => {
      const own = guardedApplicationOf(application);
      const recorded = live(application);
      const approval = own.approval ?? (recorded === undefined ? undefined : guardedApplicationOf(recorded).approval);
      return { application: { ...own, ...(approval === undefined ? {} : { approval }) }, actions: plan.actions };
    }),
  );
