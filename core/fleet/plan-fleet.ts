/**
 * The fleet plan as a library function (docs/plan-output.md, "Fleet plan"): every Application
 * planned against one view of the cluster (a snapshot's or an informer cache's objects), each
 * exactly as `plan` would plan it alone, with its rollout impact, then the fleet report. The
 * runtime and the test kit call it with the Applications after a change (new files, a new observer
 * schema, an embedder's new `desired()` mapped through its primary); `kreconcile fleet-plan` in CI.
 */
import type { GuardPolicy } from '../guard/policy.js';
import { rolloutImpacts } from '../impact/rollout-impact.js';
import type { Impact } from '../impact/types.js';
import type { Application } from '../model/application.js';
import type { Resource } from '../model/resource.js';
import type { ScopeTable } from '../model/scope.js';
import { createPlanner, type PlanOptions, type Planner } from '../plan/plan.js';
import type { Plan } from '../model/plan.js';
import { fleetReport, type FleetReport } from './fleet-report.js';
import { desiredRefs, indexLive, liveObjectsIn } from './live-index.js';
import { defined } from '../json/defined.js';

/** One planned instance: the plan `plan` gives it alone, what each action does at run time, what it declares. */
export type FleetMember = {
  readonly application: Application;
  readonly plan: Plan;
  /** Parallel to `plan.actions`. */
  readonly impacts: ReadonlyArray<ReadonlyArray<Impact>>;
};

export type FleetPlan = { readonly members: ReadonlyArray<FleetMember>; readonly report: FleetReport };

export type FleetInput = {
  readonly applications: ReadonlyArray<Application>;
  /** The cluster's objects (a snapshot or a cache): each Application is planned with those that concern it. */
  readonly live: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
  readonly now: string;
  /** The options every plan gets (expressions, tenancy, readiness…), as the operator gives them. */
  readonly options?: PlanOptions;
  /** Evaluated over every plan together (core/guard/). */
  readonly guard?: GuardPolicy;
  /** A planner to share derived state with (one is made for the call otherwise). */
  readonly planner?: Planner;
};

/**
 * Plans every Application and reports over the fleet. Guarantees: each member's plan equals
 * `plan({ application, live: its objects, scopes, now, options })`; pure; linear in the
 * Applications and live objects (the objects are indexed once).
 */
export const planFleet = (input: FleetInput): FleetPlan => {
  const planner = input.planner ?? createPlanner();
  const index = indexLive(input.live);
  const members = input.applications.map((application): FleetMember & { live: ReadonlyArray<Resource> } => {
    const live = liveObjectsIn(application, index, input.scopes);
    const plan = planner.plan({
      application,
      live,
      scopes: input.scopes,
      now: input.now,
      ...defined({ options: input.options }),
    });
    const impacts = rolloutImpacts({ actions: plan.actions, desired: plan.status.lastAppliedManifest ?? [], live });
    return { application, plan, impacts, live };
  });
  const report = fleetReport({
    instances: members.map((m) => ({
      application: m.application,
      plan: m.plan,
      declares: desiredRefs(m.application, input.scopes),
    })),
    live: input.live,
    ...defined({ guard: input.guard }),
  });
  return { members: members.map(({ live: _live, ...member }) => member), report };
};
