/**
 * An operator author's check before deploying a new `desired()` (issue 38; docs/runtime.md,
 * "Checking a new desired() against the fleet"): every primary of a snapshot or of the live
 * cluster mapped through the old and the new reconciler, each planned with `planFleet` against the
 * children the old one made, and the fleet report of each side. The new side says what deploying
 * the new `desired()` does (totals, groups, conflicts, rollout impact, the guard); the old side what
 * the running operator would do anyway (drift, pending work), so a change is told from what was
 * already pending. Nothing is written.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  builtinScopes,
  changeSignature,
  planFleet,
  refKey,
  refOf,
  withCrdScopes,
  withLiveScopes,
  type Application,
  type ClusterError,
  type ClusterReader,
  type Discovery,
  type FleetPlan,
  type GuardPolicy,
  type Issue,
  type PlanOptions,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../core/internal.js';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import { readLive, resolveScopes } from '../reconcile/live-reader.js';
import type { DesiredLimits } from './desired-guard.js';
import type { UntypedSpec } from './kubernetes-object.js';
import { primaryOf, type PrimaryReconciler } from './primary.js';
import { defined } from '../../core/json/defined.js';

/**
 * A primary whose spec or `desired()` result does not decode on one side: the operator would stall it `InvalidSpec`.
 */
export type DesiredProblem = {
  /** `namespace/name` of the primary. */
  readonly primary: string;
  readonly side: 'before' | 'after';
  readonly issues: ReadonlyArray<Issue>;
};

export type DesiredChange = {
  /** Every primary planned with the new `desired()`: what deploying it does. */
  readonly after: FleetPlan;
  /** Every primary planned with the old `desired()`: what the running operator would do anyway. */
  readonly before: FleetPlan;
  /** Positions in `after.members` whose plan differs from the old side's (or that the old side could not plan). */
  readonly changed: ReadonlyArray<number>;
  readonly problems: ReadonlyArray<DesiredProblem>;
};

type Reconcilers<Before, After> = {
  /** The reconciler the operator runs now: the live children and statuses are what it made. */
  readonly before: PrimaryReconciler<Before>;
  /** The reconciler about to be deployed (the same kind). */
  readonly after: PrimaryReconciler<After>;
  /** Bounds on both `desired()`s, as `startEmbeddedOperator`'s `desiredLimits`. */
  readonly desiredLimits?: Partial<DesiredLimits>;
};

export type DesiredChangeInput<Before = UntypedSpec, After = UntypedSpec> = Reconcilers<Before, After> & {
  /** The cluster's objects: the primaries of the reconcilers' kind and their children (a snapshot, a cache). */
  readonly objects: ReadonlyArray<Resource>;
  /** RFC 3339: the time the plans are computed at. */
  readonly now: string;
  /** Default: the built-in kinds, the CRDs among `objects`, and the kinds of namespaced objects in it. */
  readonly scopes?: ScopeTable;
  /** As the operator plans (default: `expressions: celEvaluator`, the rest the planner's defaults). */
  readonly options?: PlanOptions;
  /** Evaluated over the new side's plans together (core/guard/). */
  readonly guard?: GuardPolicy;
};

const keyOf = (object: Resource): string => `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;

/** The primaries as Applications through one reconciler, and those that do not decode. */
const mapped = <Spec>(
  reconciler: PrimaryReconciler<Spec>,
  primaries: ReadonlyArray<Resource>,
  side: DesiredProblem['side'],
  limits: Partial<DesiredLimits> | undefined,
): { readonly applications: ReadonlyArray<Application>; readonly problems: ReadonlyArray<DesiredProblem> } => {
  const primary = primaryOf(reconciler, limits === undefined ? {} : { limits });
  const decoded = primaries.map((object) => ({ object, result: primary.decode(object) }));
  return {
    applications: decoded.flatMap(({ result }) => (E.isRight(result) ? [result.right] : [])),
    problems: decoded.flatMap(({ object, result }) =>
      E.isLeft(result) ? [{ primary: keyOf(object), side, issues: result.left }] : [],
    ),
  };
};

const isPrimaryOf =
  (reconciler: { readonly apiVersion: string; readonly kind: string }) =>
  (object: Resource): boolean =>
    object.apiVersion === reconciler.apiVersion && object.kind === reconciler.kind;

/**
 * The fleet report of the new `desired()` and of the old one over the primaries in `objects`.
 * Pure (both `desired()`s are, by contract); linear in the primaries and objects.
 */
export const planDesiredChange = <Before = UntypedSpec, After = UntypedSpec>(
  input: DesiredChangeInput<Before, After>,
): DesiredChange => {
  const primaries = input.objects.filter(isPrimaryOf(input.after));
  const scopes = input.scopes ?? withLiveScopes(withCrdScopes(builtinScopes, input.objects), input.objects);
  const options: PlanOptions = { expressions: celEvaluator, ...input.options };
  const sides = {
    before: mapped(input.before, primaries, 'before', input.desiredLimits),
    after: mapped(input.after, primaries, 'after', input.desiredLimits),
  };
  const fleetOf = (applications: ReadonlyArray<Application>, guard?: GuardPolicy): FleetPlan =>
    planFleet({ applications, live: input.objects, scopes, now: input.now, options, ...(guard ? { guard } : {}) });
  const before = fleetOf(sides.before.applications);
  const after = fleetOf(sides.after.applications, input.guard);
  const previous = new Map(before.members.map((m) => [keyOf(m.application), changeSignature(m.plan)]));
  const changed = after.members.flatMap((member, index) =>
    previous.get(keyOf(member.application)) === changeSignature(member.plan) ? [] : [index],
  );
  return { after, before, changed, problems: [...sides.before.problems, ...sides.after.problems] };
};

export type LiveDesiredChangeInput<Before = UntypedSpec, After = UntypedSpec> = Omit<
  DesiredChangeInput<Before, After>,
  'objects' | 'scopes'
> & {
  /** Read only (list and get); discovery gives the scopes of kinds the built-in table does not know. */
  readonly cluster: ClusterReader & Discovery;
  /** Only the primaries of this namespace (default: every namespace). */
  readonly namespace?: string;
};

/**
 * `planDesiredChange` over the live cluster: lists the primaries, reads the children each side's
 * plan needs as the operator reads them (desired identities, objects carrying the primary's owner
 * mark), then plans. Errors: the first read that failed (forbidden, unreachable, …).
 */
export const planDesiredChangeLive = async <Before = UntypedSpec, After = UntypedSpec>(
  input: LiveDesiredChangeInput<Before, After>,
): Promise<E.Either<ClusterError, DesiredChange>> => {
  const { cluster, namespace, ...rest } = input;
  const listed = await cluster.list({
    apiVersion: input.after.apiVersion,
    kind: input.after.kind,
    ...defined({ namespace }),
  })();
  if (E.isLeft(listed)) return listed;
  const primaries = listed.right.items;
  const applications = [
    ...mapped(input.before, primaries, 'before', input.desiredLimits).applications,
    ...mapped(input.after, primaries, 'after', input.desiredLimits).applications,
  ];
  const children = await childrenOf(applications, cluster, input.options?.tenancy);
  if (E.isLeft(children)) return children;
  return E.right(
    planDesiredChange({ ...rest, objects: [...primaries, ...children.right.objects], scopes: children.right.scopes }),
  );
};

/** Every child either side's plan needs, once each, and the scope table discovery completed for them. */
const childrenOf = async (
  applications: ReadonlyArray<Application>,
  cluster: ClusterReader & Discovery,
  tenancy: TenancyPolicy | undefined,
): Promise<E.Either<ClusterError, { readonly objects: ReadonlyArray<Resource>; readonly scopes: ScopeTable }>> => {
  let scopes: ScopeTable = builtinScopes;
  const found = new Map<string, Resource>();
  for (const application of applications) {
    scopes = await resolveScopes(application, scopes, cluster);
    const live = await readLive(application, scopes, cluster, tenancy === undefined ? {} : { tenancy });
    if (E.isLeft(live)) return live;
    for (const object of live.right) found.set(refKey(refOf(object)), object);
  }
  return E.right({ objects: [...found.values()], scopes });
};
