/** Plans every `-f` Application against one view of the cluster (a snapshot, possibly empty). */
import { celEvaluator } from '../../../adapters/cel/cel-evaluator.js';
import * as E from 'fp-ts/lib/Either.js';
import {
  conditionOf,
  createPlanner,
  patchedFieldOwners,
  rolloutImpacts,
  type Application,
  type Impact,
  type KnownManager,
  type PatchedFieldOwners,
  type Plan,
  type Resource,
  type TenancyPolicy,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { applicationName, desiredManifest, subjectOf, type ApplicationInput } from '../input/applications.js';
import { locationOf } from '../input/entries.js';
import type { Snapshot } from '../input/snapshot.js';
import { directoryView, inDependencyOrder } from './application-order.js';
import { withClusterState } from './cluster-state.js';
import { indexLive, liveObjectsIn } from './live-objects.js';
import { scopesFor } from '../input/scopes.js';
import { sizeProblemsOf, tooLargeMessage, writesChildren } from '../../status/size-check.js';
import { defined } from '../../../core/json/defined.js';

/**
 * One Application's plan, with the Application as planned (cluster state merged in), and what each
 * action does at run time (`impacts`, parallel to `plan.actions`; absent when not computed, e.g. a saved plan).
 */
export type Planned = {
  readonly input: ApplicationInput;
  readonly application: Application;
  readonly plan: Plan;
  readonly impacts?: ReadonlyArray<ReadonlyArray<Impact>>;
  /** Other managers that own the fields the plan patches, from the snapshot's managedFields (docs/field-owners.md). */
  readonly owners?: ReadonlyArray<PatchedFieldOwners>;
};

/** What each action of `plan` does at run time, against the live objects it was planned with. */
export const impactsOf = (plan: Plan, live: ReadonlyArray<Resource>): ReadonlyArray<ReadonlyArray<Impact>> =>
  rolloutImpacts({ actions: plan.actions, desired: plan.status.lastAppliedManifest ?? [], live });

// Stalled reasons that mean "the input is wrong": the CLI reports them as errors, not as plans.
const INPUT_ERRORS: Readonly<Record<string, string>> = {
  InvalidSpec: '',
  InvalidObserverSchema: '',
  UnknownKind:
    ' (offline, custom kinds are learned from CustomResourceDefinitions: pass the CRD with -f or include it in --snapshot)',
  InvalidTosca: '',
  DependencyCycle: '',
};

/**
 * Plans each Application at time `now`.
 * Errors: a plan stalled on its input (invalid spec or schema, unknown kind, untranslatable TOSCA),
 * one line per Application.
 */
export const planApplications = (args: {
  readonly applications: ReadonlyArray<ApplicationInput>;
  readonly crds: ReadonlyArray<Resource>;
  readonly snapshot: Snapshot;
  readonly now: string;
  /** The admin's tenancy policy (`--policy`; default: own namespace only), as the operator applies it. */
  readonly tenancy?: TenancyPolicy;
}): E.Either<ReadonlyArray<CliError>, ReadonlyArray<Planned>> => {
  const { planned, problems } = planEachApplication(args);
  return problems.length > 0 ? E.left(problems) : E.right(planned);
};

/**
 * Plans each Application at time `now`, keeping the plans of those that planned and the problems
 * of those stalled on their input (`plan -f dir/` shows both).
 */
export const planEachApplication = (args: {
  readonly applications: ReadonlyArray<ApplicationInput>;
  readonly crds: ReadonlyArray<Resource>;
  readonly snapshot: Snapshot;
  readonly now: string;
  readonly tenancy?: TenancyPolicy;
  /** Field managers whose fields are left to them (`--field-managers` added to the defaults; docs/field-owners.md). */
  readonly fieldManagers?: ReadonlyArray<KnownManager>;
  /** CRDs the admin gave (`plan --crd`): the only CRDs that may set a known kind's scope (issue 19). */
  readonly trusted?: ReadonlyArray<Resource>;
}): { readonly planned: ReadonlyArray<Planned>; readonly problems: ReadonlyArray<CliError> } => {
  const scopes = scopesFor(args.crds, args.snapshot.objects, args.trusted);
  // One planner per run: Applications sharing objects (one snapshot, one scope table) derive them once.
  const planner = createPlanner();
  const live = indexLive(args.snapshot.objects); // once per run: each Application then looks its objects up
  // Dependencies first (spec.dependsOn), each Application as the operator will see it (cluster state merged).
  const inputs = inDependencyOrder(args.applications, (input) => input.application);
  const applications = inputs.map((input) =>
    withClusterState(input.application, args.snapshot.applications.get(applicationName(input.application))),
  );
  const view = directoryView(args.snapshot.applications.values(), applications);
  const planned = inputs.map((input, index): Planned => {
    const application = applications[index] ?? input.application;
    const objects = liveObjectsIn(application, live, scopes, desiredManifest(input));
    const options = {
      expressions: celEvaluator,
      applications: view,
      // As the operator hands the planner its translation (never written into spec).
      ...defined({ translatedManifest: input.translated, tenancy: args.tenancy, fieldManagers: args.fieldManagers }),
    };
    const plan = planner.plan({ application, live: objects, scopes, now: args.now, options });
    const owners = patchedFieldOwners(plan, objects);
    return { input, application, plan, impacts: impactsOf(plan, objects), ...(owners.length === 0 ? {} : { owners }) };
  });
  const problems = planned.map((each) => [...stalledOnInput(each), ...tooLargeToStore(each)]);
  return { planned: planned.filter((_, i) => problems[i]?.length === 0), problems: problems.flat() };
};

/** How a size problem's message begins (`validate` picks these out of a plan's problems). */
export const TOO_LARGE_PREFIX = 'stalled (TooLarge): ';

/**
 * An Application the operator would refuse as `Stalled TooLarge` before creating anything
 * (decision 0023): it or a child cannot be stored under etcd's and kube-apiserver's default limits.
 */
const tooLargeToStore = ({ input, application, plan: result }: Planned): ReadonlyArray<CliError> => {
  if (!writesChildren(result)) return [];
  const message = tooLargeMessage(sizeProblemsOf(input.application, application, result));
  return message === undefined
    ? []
    : [
        {
          _tag: 'PlanError',
          location: locationOf(input.origin, 'spec.manifest'),
          subject: subjectOf(application),
          message: `${TOO_LARGE_PREFIX}${message}`,
        },
      ];
};

const stalledOnInput = ({ input, application, plan: result }: Planned): ReadonlyArray<CliError> => {
  const stalled = conditionOf(result.status.conditions, 'Stalled');
  if (stalled?.status !== 'True' || INPUT_ERRORS[stalled.reason] === undefined) return [];
  const firstPath = /^(spec[^\s:;]*): /.exec(stalled.message)?.[1] ?? '';
  return [
    {
      _tag: 'PlanError',
      location: locationOf(input.origin, firstPath),
      subject: subjectOf(application),
      message: `stalled (${stalled.reason}): ${stalled.message}${INPUT_ERRORS[stalled.reason] ?? ''}`,
    },
  ];
};
