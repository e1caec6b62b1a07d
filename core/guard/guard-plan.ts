/**
 * The guard as the operator applies it to each plan it would carry out: a plan the policy denies
 * (and no approval names) is replaced by one that writes nothing of the Application but its
 * conditions, `Stalled GuardDenied`, naming the rules, the actions and the digest to approve.
 */
import type { Application } from '../model/application.js';
import { conditionsFor } from '../status/conditions.js';
import type { Plan } from '../model/plan.js';
import { APPROVE_ANNOTATION, denialMessage, evaluateOne, isDenied, type GuardVerdict } from './evaluate.js';
import type { GuardPolicy } from './policy.js';

/** The Application as a guard subject: its namespace, name and approval annotation. */
export const guardedApplicationOf = (application: Application): GuardVerdict['application'] => {
  const approval = application.metadata.annotations?.[APPROVE_ANNOTATION];
  return {
    namespace: application.metadata.namespace ?? 'default',
    name: application.metadata.name,
    ...(typeof approval === 'string' ? { approval: approval.trim() } : {}),
  };
};

/**
 * `plan` itself when the policy allows it (or an approval names its digest); otherwise a plan
 * without actions whose status is the stored one with `Stalled GuardDenied` conditions: nothing
 * of a denied plan is written, not even the desired state it would record, so the next plan
 * (after the spec, the cluster or the approval changed) starts from where this one found things.
 * It waits for a change: the spec, an approval or a child's change each start a new reconcile.
 */
export const guardPlan = (args: {
  readonly policy: GuardPolicy;
  readonly application: Application;
  readonly plan: Plan;
  readonly now: string;
  /**
   * Why no approval is accepted, when none is (the operator found no approvals admission policy,
   * docs/decisions/0026): the Application's `kreconcile.io/approve` is then ignored, and the
   * GuardDenied message says why.
   */
  readonly approvalsRefused?: string;
}): { readonly plan: Plan; readonly verdict: GuardVerdict } => {
  const guarded = guardedApplicationOf(args.application);
  const { approval: _ignored, ...unapproved } = guarded;
  const verdict = evaluateOne(args.policy, {
    application: args.approvalsRefused === undefined ? guarded : unapproved,
    actions: args.plan.actions,
  });
  if (!isDenied(verdict)) return { plan: args.plan, verdict };
  const stored = args.application.status ?? {};
  const denied: Plan = {
    actions: [],
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
    status: {
      ...stored,
      conditions: conditionsFor({
        verdict: {
          _tag: 'Stalled',
          reason: 'GuardDenied',
          message:
            args.approvalsRefused === undefined
              ? denialMessage(verdict)
              : `${denialMessage(verdict)}; but no approval is accepted now: ${args.approvalsRefused}`,
        },
        previous: stored.conditions,
        now: args.now,
        generation: args.application.metadata.generation,
      }),
    },
    outcome: { _tag: 'AwaitChange' },
  };
  return { plan: denied, verdict };
};
