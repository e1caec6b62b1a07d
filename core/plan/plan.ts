/**
 * `plan`: from (Application, live snapshot, scopes, now) to the ordered actions, the next status
 * and the outcome of a reconcile. Pure: decides, never does (docs/architecture.md example 1).
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import {
  FINALIZER,
  type Application,
  type ApplicationStatus,
  type ReadinessRuleSpec,
  type ReadinessWait,
} from '../model/application.js';
import { currentLength, isCurrentLength, type ObserverSchema } from '../model/observer-schema.js';
import { isResource, refKey, refOf, resourceKey, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import { withCrdScopes, withLiveScopes, type ScopeTable } from '../model/scope.js';
import {
  identityIndex,
  inNamespace,
  knownScope,
  lazyIdentityIndex,
  namespaceOf,
  resourceFinder,
  type IdentityIndex,
} from '../manifest/identity.js';
import { lastAppliedFromSpec, learnFromLive } from '../manifest/last-applied.js';
import { observeResource } from '../manifest/project.js';
import { calculateResourceDelta, changedResources, type ResourceDelta } from '../delta/resource-delta.js';
import {
  callMemo,
  createMemo,
  keep,
  memoTable,
  outlivesCall,
  recall,
  remember,
  sameInputs,
  type Memo,
  type MemoTable,
} from '../memo/memo.js';
import { inSyncWith } from '../delta/in-sync.js';
import { withinMaxLengths } from '../delta/max-lengths.js';
import { defaultObserverSchemas, type ByPosition } from '../schema/default.js';
import { indexSchemas, schemaFor, schemaLookup, type SchemaIndex } from '../schema/lookup.js';
import { findByPosition, identifyByPosition } from '../manifest/by-position.js';
import { conditionsFor, type Verdict } from '../status/conditions.js';
import { readinessOf } from '../status/readiness.js';
import {
  childrenReadiness,
  compileReadinessRules,
  ruleVerdictOf,
  type ChildrenReadiness,
  type ReadinessRule,
} from '../status/readiness-rules.js';
import type { ExpressionEvaluator } from '../ports/expressions.js';
import { patchOf } from './json-patch.js';
import { inInstallOrder, inUninstallOrder } from './order.js';
import {
  adoptionPatch,
  asCreated,
  isOwnedBy,
  ownerFor,
  ownerOf,
  ownerMark,
  withOwnershipMarks,
  type Owner,
} from '../manifest/ownership.js';
import { checkSpec } from './spec-check.js';
import { forbiddenChildren, forbiddenMessage, mayWrite as writableBy, tenancyFor, type Tenancy } from './tenancy.js';
import type { TenancyPolicy } from '../model/tenancy-policy.js';
import { mangle } from '../hooks/mangle.js';
import { redactPlan } from '../hooks/redact.js';
import { marksFrom } from '../sensitive/marked.js';
import { foldStringData, revealAllMatching, withoutDigests } from '../sensitive/secret-values.js';
import type { HookContext } from '../hooks/types.js';
import { holdCreations, holdDeletions, showHold, waitActions } from './dependencies.js';
import { withOrphans, withProtection } from './protection.js';
import { withDriftReport, withheldDrift } from './drift-policy.js';
import { withFightReport, withheldFights } from './field-fights.js';
import { DEFAULT_KNOWN_MANAGERS, type KnownManager } from '../fields/known-managers.js';
import { withRecreates } from './recreate.js';
import { isSuspended, suspendedPlan } from './suspend.js';
import { heldByDependsOn, type ApplicationsView } from './depends-on.js';
import { serverSideApplyOf } from './server-side-apply.js';
import { canonicalResource } from '../canonical/canonical.js';
import { withConfigDigests } from '../impact/config-digest.js';
import type {
  Action,
  ConflictAction,
  CreateAction,
  DeleteAction,
  ForbiddenAction,
  Outcome,
  PatchAction,
  Plan,
  PlanSummary,
  RecreateAction,
  SkipAction,
  WaitAction,
} from '../model/plan.js';
import { defined } from '../json/defined.js';

export type PlanOptions = {
  /** Requeue delay after a plan with actions, to verify they took effect (default 1 s). */
  readonly progressRequeueMs?: number;
  /** Requeue delay while stalled on something outside the spec (NotOwned, UnknownKind; default 60 s). */
  readonly stalledRequeueMs?: number;
  /**
   * How children count as ready: `kstatus` (default: workloads rolled out and available, Jobs
   * complete, …; see core/status/readiness.ts) or `existence` (for clusters that run no
   * workload controllers, such as a bare API server in tests).
   */
  readonly readiness?: 'kstatus' | 'existence';
  /** Requeue delay while waiting for children to become ready (default 5 s). */
  readonly readinessRequeueMs?: number;
  /** Evaluates `spec.readiness` CEL rules (adapters/cel `celEvaluator`); without it such rules stall the plan. */
  readonly expressions?: ExpressionEvaluator;
  /** Manifest translated from `spec.tosca`/`spec.csar` (used when `spec.manifest` is empty). */
  readonly translatedManifest?: ReadonlyArray<Resource>;
  /** What the `spec.hooks` need from the runtime (callback URL, tokens); parts left out stay out of the plan. */
  readonly hooks?: HookContext;
  /** Where this Application may write (admin-owned; default `DEFAULT_TENANCY`: own namespace only). */
  readonly tenancy?: TenancyPolicy;
  /**
   * The other Applications, for `spec.dependsOn` (core/plan/depends-on.ts): an Application waits for
   * its dependencies, a deleted one for its dependants. Without it `spec.dependsOn` is not checked.
   */
  readonly applications?: ApplicationsView;
  /**
   * Field managers whose fields are left to them (core/plan/field-fights.ts, docs/field-owners.md);
   * default `DEFAULT_KNOWN_MANAGERS`, `[]` patches every observed field back whoever owns it.
   */
  readonly fieldManagers?: ReadonlyArray<KnownManager>;
};

export type PlanInput = {
  readonly application: Application;
  /**
   * The live objects: those matching desired resources and those carrying this Application's
   * owner mark. `undefined` plans from `status.lastObservedManifest` alone (no live read).
   */
  readonly live?: ReadonlyArray<Resource>;
  /** Which kinds are namespaced (built-in table + discovery or snapshot). */
  readonly scopes: ScopeTable;
  /** RFC 3339 time used for condition transitions. */
  readonly now: string;
  readonly options?: PlanOptions;
};

/** What the planner knows of the Application it plans for. */
type Context = {
  readonly application: Application;
  readonly owner: Owner;
  readonly status: ApplicationStatus;
  readonly input: PlanInput;
  /** Where this Application may write (core/plan/tenancy.ts). */
  readonly tenancy: Tenancy;
  /** The caller's caches, or this call's own (core/memo/memo.ts). */
  readonly memo: Memo;
  /** `spec.readiness`, compiled (none while deleting). */
  readonly rules?: ReadonlyArray<ReadinessRule>;
};

/**
 * Plans one reconcile.
 * Guarantees: never throws on a decoded Application; never mutates its inputs; patches touch
 * observed fields only; objects owned by another Application are never in a write action. Equal
 * inputs give equal plans, whatever `memo` held before: a memo only saves work (see `createPlanner`).
 * Errors: an invalid spec or schema, an unknown kind or a foreign object are reported in the
 * plan's status (`Stalled` with reason) and outcome, never thrown.
 */
export const plan = (input: PlanInput, memo: Memo = callMemo()): Plan => {
  const application = input.application;
  const owner: Owner = ownerFor(application);
  const context: Context = {
    application,
    owner,
    status: application.status ?? {},
    input,
    tenancy: tenancyFor(input.options?.tenancy, owner.namespace),
    memo,
  };
  const planned = isSuspended(application)
    ? suspendedPlan(application, input.now)
    : (heldByDependsOn(application, input.options, input.now) ??
      (application.metadata.deletionTimestamp !== undefined ? planDeletion(context) : planApply(context)));
  // Hook tokens and Secret values are credentials: they reach the API server in writes, never status or explanations.
  return redactPlan(planned, owner);
};

/** A `plan` that keeps what it derived for the next call: what a controller or a long CLI run holds. */
export type Planner = { readonly plan: (input: PlanInput) => Plan; readonly memo: Memo };

/**
 * A planner with its own memo. Keep it while re-planning the same objects (an informer cache's
 * Applications and live objects): unchanged inputs are then recognised by identity and skip the
 * work; drop it (and its memo) to free what it holds. Plans equal those of `plan(input)`.
 */
export const createPlanner = (memo: Memo = createMemo()): Planner => ({ plan: (input) => plan(input, memo), memo });

const planApply = (withoutRules: Context): Plan => {
  const rules = readinessRulesOf(withoutRules);
  if (E.isLeft(rules))
    return stalledPlan(withoutRules, { _tag: 'Stalled', reason: 'InvalidSpec', message: rules.left });
  const context: Context = { ...withoutRules, rules: rules.right };
  const desired = desiredState(context);
  if (E.isLeft(desired)) return stalledPlan(context, desired.left);
  const { mangled, fromSpec } = desired.right;
  const { input } = context;
  const live =
    input.live === undefined
      ? undefined
      : revealAllMatching(input.live, fromSpec, marksFrom(mangled, context.status.mangledObserverSchema));
  const forbidden = forbiddenChildren({
    tenancy: context.tenancy,
    desired: fromSpec,
    live,
    adopt: context.application.spec.adopt === true,
  });
  if (forbidden.length > 0)
    return stalledPlan(
      context,
      { _tag: 'Stalled', reason: 'Forbidden', message: forbiddenMessage(forbidden) },
      forbidden,
    );
  return live === undefined ? planFromStatus(context, desired.right) : planFromLive(context, desired.right, live);
};

type CompiledRules = {
  readonly evaluator: ExpressionEvaluator;
  readonly value: E.Either<string, ReadonlyArray<ReadinessRule>>;
};

/** Rules compiled once per `spec.readiness` list (and evaluator) while the memo lives. */
const RULES = memoTable<ReadonlyArray<ReadinessRuleSpec>, CompiledRules>('compiled readiness rules per spec.readiness');

const NO_RULES: ReadonlyArray<ReadinessRule> = [];

/** `spec.readiness` compiled through the expression port, or why not (InvalidSpec). */
const readinessRulesOf = (context: Context): E.Either<string, ReadonlyArray<ReadinessRule>> => {
  const specs = context.application.spec.readiness;
  if (specs === undefined || specs.length === 0) return E.right(NO_RULES);
  const evaluator = context.input.options?.expressions;
  if (evaluator === undefined)
    return E.left('spec.readiness needs a CEL evaluator: pass options.expressions (celEvaluator) to plan');
  const known = recall(context.memo, RULES, specs);
  if (known !== undefined && known.evaluator === evaluator) return known.value;
  return keep(context.memo, RULES, specs, { evaluator, value: compileReadinessRules(evaluator, specs) }).value;
};

/** Step "desired": the schemas in force and the desired resources (spec, defaults, learned values, hooks). */
type Desired = {
  readonly mangled: ReadonlyArray<ObserverSchema>;
  readonly fromSpec: ReadonlyArray<Resource>;
  /** What is known of `fromSpec` by position (none when hooks changed it): lookups without indexes. */
  readonly byPosition?: ByPosition;
};
type Stalled = Extract<Verdict, { _tag: 'Stalled' }>;

/**
 * What the desired state of one Application object was computed from, besides the object itself:
 * the scope table in force and the options. The entry is dropped when any of them changes.
 */
type DesiredEntry = {
  readonly scopes: ScopeTable;
  readonly options: PlanOptions | undefined;
  readonly value: E.Either<Stalled, Desired>;
};

/**
 * Steps 2–4 (validate, default schemas, desired from spec, hooks) read the Application and the
 * options only, with the scope table: a no-op reconcile re-plans the same Application object, so
 * its result is kept per Application object (its spec, metadata and status all covered by the
 * object's identity), with the other inputs compared on every own key.
 */
const DESIRED = memoTable<Application, DesiredEntry>('desired state per Application object');

const desiredState = (context: Context): E.Either<Stalled, Desired> => {
  const { input, memo, application } = context;
  const scopes = scopesFor(input, memo);
  const known = recall(memo, DESIRED, application);
  if (known !== undefined && known.scopes === scopes && sameInputs(known.options, input.options)) return known.value;
  return keep(memo, DESIRED, application, { scopes, options: input.options, value: computeDesired(context, scopes) })
    .value;
};

/** Live objects teach scopes only of kinds the table lacks: with every kind known, nothing is learned. */
const scopesFor = (input: PlanInput, memo: Memo): ScopeTable => {
  const snapshot = input.live ?? NO_LIVE;
  return snapshot.every((object) => knownScope(input.scopes, object.apiVersion, object.kind, memo) !== undefined)
    ? input.scopes
    : withLiveScopes(input.scopes, snapshot);
};

const computeDesired = (context: Context, scopes: ScopeTable): E.Either<Stalled, Desired> => {
  const { input, owner, memo } = context;
  const spec = context.application.spec;
  // Only a CustomResourceDefinition declares a scope (`withCrdScopes` skips anything else): only they are passed.
  const manifestScopes = withCrdScopes(scopes, isJsonArray(spec?.manifest) ? (spec.manifest ?? []).filter(isCrd) : []);
  const checked = checkSpec({
    spec,
    scopes: manifestScopes,
    namespace: owner.namespace,
    ...(input.options?.translatedManifest ? { translated: input.options.translatedManifest } : {}),
    memo,
  });
  if (E.isLeft(checked)) return checked;
  // The API server folds a Secret's write-only `stringData` into `data`: desired state and default schema do too.
  // It also stores quantities and bytes in their canonical form (core/canonical/canonical.ts): so does the desired
  // state.
  const canonicalManifest = checked.right.manifest.map(foldStringData).map(canonicalResource);
  // Opt-in (spec.rolloutOnConfigChange): pod templates carry a digest of the config they read, before the schema
  // observes them.
  const manifest =
    spec.rolloutOnConfigChange === true ? withConfigDigests(canonicalManifest, owner.namespace) : canonicalManifest;
  const folded = { ...checked.right, manifest };
  const schemas = defaultObserverSchemas(folded);
  const mangled = schemas.mangled;
  const desired = folded.manifest.map((resource) =>
    inNamespace(resource, namespaceOf(resource, manifestScopes, owner.namespace, memo)),
  );
  // A digest in the status is not a value: the keys it stands for are learned again from the live object.
  const marked = marksFrom(mangled, context.status.mangledObserverSchema);
  const earlier = context.status.lastAppliedManifest?.map((resource) => withoutDigests(resource, marked(resource)));
  const fromSpec = lastAppliedFromSpec({
    manifest: desired,
    mangledObserverSchema: mangled,
    lastAppliedManifest: earlier,
    namespace: owner.namespace,
    memo,
    byPosition: schemas,
  });
  // Step 4: hooks add resources and observed fields to the desired state and their schemas.
  const hooked = mangle({
    desired: fromSpec,
    mangledSchema: mangled,
    hooks: spec.hooks,
    context: { ...input.options?.hooks, owner, scopes: manifestScopes },
  });
  // Hooks that add resources or schemas leave nothing known by position.
  const unhooked = hooked.desired === fromSpec && hooked.mangledSchema === mangled;
  return E.right({
    mangled: hooked.mangledSchema,
    fromSpec: hooked.desired,
    ...defined({ byPosition: unhooked ? schemas : undefined }),
  });
};

/**
 * The usual case: current state = the live objects projected on their schemas. Reads top to
 * bottom: desired (given) → observed → delta → actions → status.
 */
const planFromLive = (context: Context, desired: Desired, live: ReadonlyArray<Resource>): Plan => {
  const observed = observedState(context, desired, live);
  const delta = deltaOf(context, desired, observed);
  const decided = protectionsOf(context, actionsFor(context, desired, observed, delta), observed);
  const fights = withheldFights(
    decided.decided,
    observed.liveByRef.get,
    context.input.options?.fieldManagers ?? DEFAULT_KNOWN_MANAGERS,
  );
  return withFightReport(
    withDriftReport(assemble(context, fights.decided), decided.withheld, context.owner),
    fights.contested,
  );
};

/** One desired resource with its live object, as the observation step found them. */
type Pairing = {
  /** The desired resource (from the spec, hooks included). */
  readonly resource: Resource;
  readonly schema: ObserverSchema | undefined;
  readonly live: Resource | undefined;
  /** The live object carries our owner mark. */
  readonly owned: boolean;
  /** Ours, or free to adopt under `spec.adopt`: it is observed and may be written. */
  readonly writable: boolean;
  /** The previous observed entry, when the live object is proven unchanged since (nothing to learn or diff). */
  readonly unchanged: JsonObject | undefined;
  /** Desired state: the resource plus the observed values learned from its live object. */
  readonly lastApplied: Resource;
  /** `lastApplied` as compared and created (with our marks where the schema observes them). */
  readonly compared: Resource;
};

/** Step "observed": the live snapshot as it bears on the desired state. */
type Observed = {
  readonly live: ReadonlyArray<Resource>;
  readonly liveByRef: IdentityIndex<Resource>;
  /** The schema of a desired resource or live object (`schemaFor` in the schemas in force). */
  readonly schemaOf: (object: JsonObject) => ObserverSchema | undefined;
  readonly pairs: ReadonlyArray<Pairing>;
  /** Live objects carrying our mark where the tenancy policy lets us write. */
  readonly ours: ReadonlyArray<Resource>;
  /** Current state: entries of the live objects we may write, desired ones first. */
  readonly current: ReadonlyArray<JsonObject>;
  /** The entries of `current` no longer desired. */
  readonly undesired: ReadonlyArray<JsonObject>;
};

const observedState = (context: Context, desired: Desired, live: ReadonlyArray<Resource>): Observed => {
  const { memo } = context;
  const schemaOf = schemaLookup(desired.mangled, memo);
  const liveByRef = lazyIdentityIndex(live, memo);
  const pairs = pairWithLive(context, desired, live, schemaOf);
  // Owner marks are data anyone with write access to an object can set: prune only where we may write.
  const writable = writableBy(context.tenancy);
  const ours = live.filter((object) => isOwnedBy(object, context.owner) && writable(object));
  const entries = currentEntries(context, desired, schemaOf, pairs, ours);
  return { live, liveByRef, schemaOf, pairs, ours, ...entries };
};

/**
 * Each desired resource with its live object. When the live object is proven unchanged since the
 * last observation, its previous entry is reused; otherwise observed values are learned from it.
 */
const pairWithLive = (
  context: Context,
  desired: Desired,
  liveObjects: ReadonlyArray<Resource>,
  schemaOf: Observed['schemaOf'],
): ReadonlyArray<Pairing> => {
  const { owner, memo } = context;
  const adopt = context.application.spec.adopt === true;
  const previouslyObserved = context.status.lastObservedManifest ?? NO_ENTRIES;
  const at = lookupsOf(context, desired, liveObjects, schemaOf);
  const unchangedSinceObserved = inSyncWith(previouslyObserved, memo);
  return desired.fromSpec.map((resource, index): Pairing => {
    const live = at.live(index);
    const schema = at.schema(index);
    const owned = live !== undefined && isOwnedBy(live, owner);
    const writable = owned || (adopt && live !== undefined && ownerOf(live) === undefined);
    const asCompared = asCreated(resource, schema, owner, memo);
    // One object per resource (this runs for every resource of every plan), completed below while still local.
    const pair: { -readonly [K in keyof Pairing]: Pairing[K] } = {
      resource,
      schema,
      live,
      owned,
      writable,
      unchanged: undefined,
      lastApplied: resource,
      compared: asCompared,
    };
    if (live === undefined || schema === undefined || !writable) return pair;
    const observed = owned ? at.observed(index) : undefined;
    if (observed !== undefined && unchangedSinceObserved(asCompared, live, observed, schema)) {
      pair.unchanged = observed;
      return pair;
    }
    pair.lastApplied = fromLive(memo, LEARNED, live, resource, schema, () => learnFromLive(resource, live, schema));
    if (pair.lastApplied !== resource) pair.compared = asCreated(pair.lastApplied, schema, owner, memo);
    return pair;
  });
};

/** What `pairWithLive` looks up for the desired resource at an index. */
type Lookups = {
  readonly live: (index: number) => Resource | undefined;
  readonly schema: (index: number) => ObserverSchema | undefined;
  /** Its entry in the previous `lastObservedManifest`. */
  readonly observed: (index: number) => JsonObject | undefined;
};

/** By position where the desired resources are known distinct (core/manifest/by-position.ts), else in indexes. */
const lookupsOf = (
  context: Context,
  { fromSpec, byPosition }: Desired,
  live: ReadonlyArray<Resource>,
  schemaOf: Observed['schemaOf'],
): Lookups => {
  const { memo, owner } = context;
  const previouslyObserved = context.status.lastObservedManifest ?? NO_ENTRIES;
  if (byPosition?.distinct === true) {
    const queries = { distinct: fromSpec };
    return {
      live: identifyByPosition(live, queries, memo),
      schema: (index) => byPosition.perResource[index],
      observed: findByPosition(previouslyObserved, queries, owner.namespace, memo),
    };
  }
  const liveByRef = identityIndex(live, memo);
  const findObserved = resourceFinder(previouslyObserved, owner.namespace, memo);
  return {
    live: byIndexIn(fromSpec, liveByRef.of),
    schema: byIndexIn(fromSpec, schemaOf),
    observed: byIndexIn(fromSpec, findObserved),
  };
};

/** A lookup of the resource at an index of `resources`. */
const byIndexIn =
  <T>(resources: ReadonlyArray<Resource>, lookUp: (resource: Resource) => T | undefined) =>
  (index: number): T | undefined => {
    const resource = resources[index];
    return resource === undefined ? undefined : lookUp(resource);
  };

/**
 * The current state: an entry per live object we may write (the previous one where unchanged),
 * desired ones in desired order, then our other children; with those no longer desired.
 */
const currentEntries = (
  context: Context,
  desired: Desired,
  schemaOf: Observed['schemaOf'],
  pairs: ReadonlyArray<Pairing>,
  ours: ReadonlyArray<Resource>,
): Pick<Observed, 'current' | 'undesired'> => {
  const isDesired = desiredIn(desired, context.memo);
  const observe = observerOf(context, schemaOf);
  const current: JsonObject[] = [];
  const undesired: JsonObject[] = [];
  const found = new Set<Resource>();
  // Indexed loops: an array iterator's results are allocated until the loop is optimized (once per plan).
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i];
    if (pair === undefined || pair.live === undefined || !pair.writable) continue;
    found.add(pair.live);
    const entry = pair.unchanged ?? observe(pair.live);
    current.push(entry);
    // A live object found for a desired resource is desired, and so is an entry with its identity.
    if (!sameIdentity(entry, pair.resource) && !isDesired(entry)) undesired.push(entry);
  }
  for (let i = 0; i < ours.length; i++) {
    const object = ours[i];
    if (object === undefined || found.has(object) || isDesired(object)) continue;
    const entry = observe(object);
    current.push(entry);
    if (!isDesired(entry)) undesired.push(entry);
  }
  return { current, undesired };
};

// Helpers of the steps are made by these factories rather than bound to names inside the steps:
// tsx (the benchmarks) names every closure bound to a name, a property definition per plan each.

/** Whether an entry has the identity of a desired resource. */
const desiredIn =
  (desired: Desired, memo: Memo) =>
  (object: JsonObject): boolean =>
    // Delta entries are resources (typed JsonObject by the delta): the index reads their identification.
    identityIndex(desired.fromSpec, memo).of(object as Resource) !== undefined;

/** The observed entry of a live object we may write; the previous schemas only serve objects no longer desired. */
const observerOf =
  (context: Context, schemaOf: Observed['schemaOf']) =>
  (object: Resource): JsonObject => {
    const { memo } = context;
    const schema =
      schemaOf(object) ??
      schemaFor(indexSchemas(context.status.mangledObserverSchema ?? NO_SCHEMAS, memo), object) ??
      NO_SCHEMA;
    return fromLive(memo, OBSERVED, object, schema, schema, () => observeResource(object, schema));
  };

/** Whether a delta entry's live object is being deleted. */
const terminatingIn =
  (liveByRef: IdentityIndex<Resource>) =>
  (resource: JsonObject): boolean =>
    // Delta entries are resources (typed JsonObject by the delta).
    isTerminating(liveByRef.of(resource as Resource));

/** Whether a live object is adopted (under `spec.adopt`, one without an owner mark). */
const adoptedUnder =
  (adopt: boolean) =>
  (object: Resource | undefined): boolean =>
    object !== undefined && adopt && ownerOf(object) === undefined;

/** Step "delta": what to create and patch (desired resources not proven unchanged), what to delete. */
const deltaOf = (context: Context, desired: Desired, observed: Observed): ResourceDelta => {
  // What is no longer desired is known from the pairing (`undesired`): only creations and patches are looked for.
  const changed = changedResources({
    lastAppliedManifest: observed.pairs.filter((pair) => pair.unchanged === undefined).map((pair) => pair.compared),
    lastObservedManifest: observed.current,
    mangledObserverSchema: desired.mangled,
    namespace: context.owner.namespace,
    memo: context.memo,
  });
  return { ...changed, deleted: observed.undesired };
};

/** Step "actions": creations, patches, recreations, deletions, waits and conflicts, decided. */
const actionsFor = (context: Context, desired: Desired, observed: Observed, delta: ResourceDelta): Decided => {
  const terminating = terminatingIn(observed.liveByRef);
  const { creates, conflicts } = creationsOf(context, observed, delta, terminating);
  const split = patchesOf(context, observed, delta, terminating);
  const deletes = delta.deleted
    .filter((entry) => !terminating(entry))
    .map((entry) => deleteAction(entry, 'RemovedFromSpec'));
  // A terminating object is neither created, patched nor deleted again: the plan waits for it to go.
  const waiting = [...delta.new, ...delta.modified, ...delta.deleted]
    .filter(terminating)
    // Delta entries are resources (typed JsonObject by the delta).
    .map((r) => showRef(refOf(r as Resource)));
  const lastApplied = observed.pairs.map((pair) => pair.lastApplied);
  // kreconcile.io/depends-on: creations wait for ready dependencies, deletions for dependents to go.
  const creating = holdCreations(creates, lastApplied, (ref) => isReady(context, observed.liveByRef.get(ref)));
  const deleting = holdDeletions(deletes, observed.ours);
  return {
    mangled: desired.mangled,
    lastApplied,
    current: observed.current,
    creates: creating.go,
    patches: split.patches,
    recreates: split.recreates,
    deletes: deleting.go,
    waits: [...waitActions(creating.held, 'DependenciesReady'), ...waitActions(deleting.held, 'DependentsGone')],
    conflicts,
    waiting,
    ...readinessOfPairs(context, observed),
  };
};

/**
 * Step "protections", on the decided writes: kreconcile.io/prune and kreconcile.io/apply
 * (core/plan/protection.ts), then spec.driftPolicy: Report withholding drift corrections
 * (core/plan/drift-policy.ts), which the status then reports.
 */
const protectionsOf = (
  context: Context,
  decided: Decided,
  observed: Observed,
): { readonly decided: Decided; readonly withheld: ReturnType<typeof withheldDrift>['withheld'] } => {
  const { owner } = context;
  const protectedWrites = withProtection(
    {
      creates: decided.creates,
      patches: decided.patches,
      recreates: decided.recreates,
      deletes: decided.deletes,
      conflicts: decided.conflicts,
    },
    // Looked up for writes only: a plan without any indexes nothing.
    lazyIdentityIndex(decided.lastApplied).get,
    observed.liveByRef.get,
    owner,
  );
  const reported = withheldDrift(
    protectedWrites,
    context.application,
    context.status.lastAppliedManifest,
    decided.lastApplied,
    decided.mangled,
    owner,
  );
  return { decided: { ...decided, ...reported.decided }, withheld: reported.withheld };
};

/** Creations of resources not found live, except where another owner's object is in the way (a conflict). */
const creationsOf = (
  context: Context,
  observed: Observed,
  delta: ResourceDelta,
  terminating: (resource: JsonObject) => boolean,
): { readonly creates: ReadonlyArray<CreateAction>; readonly conflicts: ReadonlyArray<ConflictAction> } => {
  const { owner } = context;
  const conflicts = delta.new.flatMap((resource) => conflictWith(resource, observed.liveByRef.of(resource), owner));
  const blocked = new Set(conflicts.map((conflict) => refKey(conflict.ref)));
  const creates = delta.new
    .filter((r) => !blocked.has(resourceKey(r)) && !terminating(r))
    .map((r) => createAction(r, observed.schemaOf(r), owner));
  return { creates, conflicts };
};

/** Patches of drifted resources (and of adopted ones, for our marks), split off as recreations where opted in. */
const patchesOf = (
  context: Context,
  observed: Observed,
  delta: ResourceDelta,
  terminating: (resource: JsonObject) => boolean,
): ReturnType<typeof withRecreates> => {
  const { owner, memo } = context;
  const { liveByRef, schemaOf } = observed;
  const adopt = context.application.spec.adopt === true;
  // An adopted object gets our marks even when its observed fields already match.
  const adopting = adoptedUnder(adopt);
  // Looked up by identity in nested maps: no key string for every resource compared.
  const modified = identityIndex(delta.modified, memo);
  // In sync and not adopting, no resource needs a patch: nothing is looked up to find that out.
  const patches = (delta.modified.length === 0 && !adopt ? [] : observed.pairs)
    .map((pair) => pair.compared)
    .filter(
      (resource) => (modified.of(resource) !== undefined || adopting(liveByRef.of(resource))) && !terminating(resource),
    )
    .flatMap((resource) => {
      const object = liveByRef.of(resource);
      if (object === undefined) return [];
      return patchAction(context, resource, object, schemaOf(resource) ?? {}, adopting(object));
    });
  // Looked up only for a patch of an immutable field (a recreation candidate).
  const lastAppliedByRef = lazyIdentityIndex(observed.pairs.map((p) => p.lastApplied));
  return withRecreates(
    patches,
    (patch) => lastAppliedByRef.get(patch.ref),
    (resource) => createAction(resource, schemaOf(resource), owner).body,
  );
};

/**
 * What was derived from a live object (values learned, its observed entry, a patch), kept per live
 * object (immutable by contract) with the other inputs it was derived from: a plan that sees the
 * same drifted object again (its patch not yet visible, or drift only reported) reuses it. Only
 * a memo that outlives the call records anything: within one call each is derived once anyway.
 */
type FromLive<T> = { readonly from: JsonValue; readonly schema: JsonValue; readonly value: T };

const fromLive = <T>(
  memo: Memo,
  table: MemoTable<Resource, FromLive<T>>,
  live: Resource,
  from: JsonValue,
  schema: JsonValue,
  derive: () => T,
): T => {
  if (!outlivesCall(memo)) return derive();
  const known = recall(memo, table, live);
  if (known !== undefined && known.from === from && known.schema === schema) return known.value;
  return keep(memo, table, live, { from, schema, value: derive() }).value;
};

const LEARNED = memoTable<Resource, FromLive<Resource>>('desired resource with values learned, per live object');
const OBSERVED = memoTable<Resource, FromLive<JsonObject>>('observed entry, per live object');
const PATCHES = memoTable<Resource, FromLive<ReturnType<typeof patchOf>>>('patch of desired, per live object');

/** The schema of a live object no schema list names: observes nothing but its identification. */
const NO_SCHEMA: JsonObject = {};

/** Why a child is not ready by kstatus, or undefined when it is. */
const kstatusReason = (object: Resource): string | undefined => {
  const readiness = readinessOf(object);
  const namespace = object.metadata.namespace;
  return readiness.ready
    ? undefined
    : `${object.kind} ${namespace ? `${namespace}/` : ''}${object.metadata.name} (${readiness.reason})`;
};

/**
 * Our children that exist but are not ready yet, with the reason: by their `spec.readiness` rule,
 * else kstatus (none under `existence`); those a rule found failed; the timed waits to keep.
 */
const readinessOfPairs = (context: Context, { pairs, live }: Observed): ChildrenReadiness => {
  const rules = context.rules ?? NO_RULES;
  const kstatus = context.input.options?.readiness === 'existence' ? undefined : kstatusAmong(context, live);
  if (rules.length === 0 && kstatus === undefined) return NOTHING_NOT_READY;
  // A loop, not flatMap (a list per pair): this runs on every plan.
  const children: Resource[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i];
    if (pair?.live !== undefined && pair.owned) children.push(pair.live);
  }
  const time = { now: context.input.now, previous: context.status.readinessWaits ?? [] };
  return childrenReadiness(rules, children, time, kstatus);
};

const NOTHING_NOT_READY: ChildrenReadiness = { notReady: [], failed: [], readinessWaits: [] };

/**
 * `kstatusReason` for objects of the `live` snapshot, kept per snapshot in a memo that outlives
 * the plan: a re-plan of the same snapshot asks again for every child. Keyed by the object
 * (immutable by contract), the whole input of `kstatusReason`.
 */
const kstatusAmong = (context: Context, live: ReadonlyArray<Resource>): ((object: Resource) => string | undefined) => {
  if (!outlivesCall(context.memo)) return kstatusReason;
  const known = remember(context.memo, KSTATUS, live, () => new Map());
  return (object) => {
    if (known.has(object)) return known.get(object);
    const reason = kstatusReason(object);
    known.set(object, reason);
    return reason;
  };
};

const KSTATUS = memoTable<ReadonlyArray<Resource>, Map<Resource, string | undefined>>(
  'kstatus reason per live object, per live snapshot',
);

/**
 * Whether a dependency is there, not terminating and ready (by its rule, else kstatus; existence only, under
 * `existence`).
 */
const isReady = (context: Context, object: Resource | undefined): boolean => {
  if (object === undefined || isTerminating(object)) return false;
  const time = { now: context.input.now, previous: context.status.readinessWaits ?? [] };
  const ruled = ruleVerdictOf(context.rules ?? NO_RULES, object, time);
  if (ruled !== undefined) return ruled.verdict.state === 'ready';
  return context.input.options?.readiness === 'existence' || readinessOf(object).ready;
};

/** Whether `entry` has the identity of `resource` as `identityIndex` keys it (namespace '' when absent). */
const sameIdentity = (entry: JsonObject, resource: Resource): boolean => {
  // Status entries were decoded as objects; only identified ones reach here (lastApplied is Resource[]).
  const { apiVersion, kind, metadata } = entry as Resource;
  return (
    apiVersion === resource.apiVersion &&
    kind === resource.kind &&
    metadata.name === resource.metadata.name &&
    (metadata.namespace ?? '') === (resource.metadata.namespace ?? '')
  );
};

const isCrd = (value: JsonValue): boolean => isJsonObject(value) && value.kind === 'CustomResourceDefinition';

const NO_LIVE: ReadonlyArray<Resource> = [];

const NO_SCHEMAS: ReadonlyArray<ObserverSchema> = [];

/** The status entries of an Application never planned: one shared empty list. */
const NO_ENTRIES: ReadonlyArray<JsonObject> = [];

/** Without a live read: current state = `status.lastObservedManifest`. */
const planFromStatus = (context: Context, desired: Desired): Plan => {
  const { owner, memo } = context;
  const { mangled, fromSpec: lastApplied } = desired;
  const schemas = indexSchemas(mangled, memo);
  const current = revealAllMatching(
    observedEntries(context.status),
    lastApplied,
    marksFrom(mangled, context.status.mangledObserverSchema),
  );
  const findCurrent = resourceFinder(current, owner.namespace, memo);
  const compared = lastApplied.map((resource) => asCreated(resource, schemaFor(schemas, resource), owner, memo));
  const delta = calculateResourceDelta({
    lastAppliedManifest: compared,
    lastObservedManifest: current,
    mangledObserverSchema: mangled,
    namespace: owner.namespace,
    memo,
  });
  const creates = delta.new.map((resource) => createAction(resource, schemaFor(schemas, resource), owner));
  const patches = delta.modified.flatMap((resource) =>
    patchAction(
      context,
      resource,
      // Rebuilt from the resource's own status entry: it carries the resource's identification.
      reconstructLive(findCurrent(resource) ?? {}) as Resource,
      schemaFor(schemas, resource) ?? {},
      false,
    ),
  );
  const deletes = delta.deleted
    .filter(writableBy(context.tenancy))
    .map((entry) => deleteAction(entry, 'RemovedFromSpec'));
  return assemble(context, { mangled, lastApplied, current, creates, patches, deletes, conflicts: [], waiting: [] });
};

type Decided = {
  readonly mangled: ReadonlyArray<ObserverSchema>;
  readonly lastApplied: ReadonlyArray<Resource>;
  readonly current: ReadonlyArray<JsonObject>;
  readonly creates: ReadonlyArray<CreateAction>;
  readonly patches: ReadonlyArray<PatchAction>;
  /** Patches of immutable fields on resources that opted into recreation. */
  readonly recreates?: ReadonlyArray<RecreateAction>;
  /** Creations and deletions held back by dependencies. */
  readonly waits?: ReadonlyArray<WaitAction>;
  /** Writes withheld by `kreconcile.io/apply` (core/plan/protection.ts): shown, never carried out. */
  readonly skips?: ReadonlyArray<SkipAction>;
  readonly deletes: ReadonlyArray<DeleteAction>;
  readonly conflicts: ReadonlyArray<ConflictAction>;
  /** Resources still terminating that the plan waits for. */
  readonly waiting: ReadonlyArray<string>;
  /** Children that exist but are not ready yet (their readiness rule or kstatus), with the reason. */
  readonly notReady?: ReadonlyArray<string>;
  /**
   * Children a readiness rule found failed (`failed` true or `timeout` passed), with the object, expression and values.
   */
  readonly failed?: ReadonlyArray<string>;
  /** Children waited for under a timed readiness rule, with since when (status.readinessWaits). */
  readonly readinessWaits?: ReadonlyArray<ReadinessWait>;
};

const assemble = (context: Context, decided: Decided): Plan => {
  const finalizer = hasFinalizer(context.application) ? [] : [finalizerAction(context, 'addFinalizer')];
  const writes: ReadonlyArray<Action> = [
    ...inUninstallOrder(decided.deletes),
    ...inInstallOrder(decided.creates),
    ...inInstallOrder<PatchAction | RecreateAction>([...decided.patches, ...(decided.recreates ?? [])]),
  ];
  const actions: ReadonlyArray<Action> = [
    ...finalizer,
    ...writes,
    ...(decided.waits ?? []),
    ...(decided.skips ?? []),
    ...decided.conflicts,
  ];
  const summary = summarize(actions);
  const verdict = verdictOf(decided, summary, finalizer.length > 0);
  return {
    actions,
    summary,
    status: withReadinessWaits(
      nextStatus(context, verdict, {
        mangledObserverSchema: decided.mangled,
        lastAppliedManifest: decided.lastApplied,
        lastObservedManifest: decided.current,
      }),
      decided.readinessWaits,
    ),
    outcome:
      verdict._tag === 'Progressing' &&
      (verdict.reason === 'WaitingForReadiness' || verdict.reason === 'WaitingForDependencies')
        ? { _tag: 'RequeueAfter', ms: context.input.options?.readinessRequeueMs ?? 5_000, reason: verdict.reason }
        : outcomeOf(context, verdict, writes.length > 0 || finalizer.length > 0 || decided.waiting.length > 0),
  };
};

/**
 * The timed readiness waits in force replace the previous ones (none: the field goes); unknown (no live read): kept.
 */
const withReadinessWaits = (
  status: ApplicationStatus,
  waits: ReadonlyArray<ReadinessWait> | undefined,
): ApplicationStatus => {
  if (waits === undefined) return status;
  if (waits.length > 0) return { ...status, readinessWaits: waits };
  if (status.readinessWaits === undefined) return status;
  const { readinessWaits: _gone, ...rest } = status;
  return rest;
};

const verdictOf = (decided: Decided, summary: PlanSummary, addingFinalizer: boolean): Verdict => {
  if (decided.conflicts.length > 0) {
    return {
      _tag: 'Stalled',
      reason: 'NotOwned',
      message: `not owned by this Application (set spec.adopt to take over): ${decided.conflicts.map((c) => showRef(c.ref) + (c.owner ? ` (owner ${c.owner})` : '')).join(', ')}`,
    };
  }
  if (summary.create + summary.patch + summary.delete + (summary.recreate ?? 0) > 0) {
    const recreating = summary.recreate === undefined ? '' : `, ${summary.recreate} to recreate`;
    const waiting = summary.wait === undefined ? '' : `, ${summary.wait} waiting on dependencies`;
    return {
      _tag: 'Progressing',
      reason: 'Progressing',
      message: `${summary.create} to create, ${summary.patch} to patch, ${summary.delete} to delete${recreating}${waiting}`,
    };
  }
  if ((decided.failed ?? []).length > 0)
    return { _tag: 'Stalled', reason: 'ReadinessFailed', message: (decided.failed ?? []).join('; ') };
  if ((decided.waits ?? []).length > 0)
    return {
      _tag: 'Progressing',
      reason: 'WaitingForDependencies',
      message: `waiting: ${(decided.waits ?? []).map(showWait).join('; ')}`,
    };
  if (decided.waiting.length > 0)
    return {
      _tag: 'Progressing',
      reason: 'WaitingForDeletion',
      message: `waiting for ${decided.waiting.join(', ')} to be deleted`,
    };
  if (addingFinalizer)
    return { _tag: 'Progressing', reason: 'AddingFinalizer', message: `adding finalizer ${FINALIZER}` };
  if ((decided.notReady ?? []).length > 0)
    return {
      _tag: 'Progressing',
      reason: 'WaitingForReadiness',
      message: `waiting for ${(decided.notReady ?? []).join('; ')}`,
    };
  return { _tag: 'Ready', message: `${decided.lastApplied.length} resources match the desired state` };
};

const outcomeOf = (context: Context, verdict: Verdict, acting: boolean): Outcome => {
  const options = context.input.options ?? {};
  if (verdict._tag === 'Stalled') {
    return verdict.reason === 'InvalidSpec' ||
      verdict.reason === 'InvalidObserverSchema' ||
      verdict.reason === 'InvalidTosca'
      ? { _tag: 'AwaitChange' }
      : { _tag: 'RequeueAfter', ms: options.stalledRequeueMs ?? 60_000, reason: verdict.reason };
  }
  return acting
    ? { _tag: 'RequeueAfter', ms: options.progressRequeueMs ?? 1_000, reason: 'VerifyActions' }
    : { _tag: 'AwaitChange' };
};

const nextStatus = (
  context: Context,
  verdict: Verdict,
  manifests: Pick<ApplicationStatus, 'mangledObserverSchema' | 'lastAppliedManifest' | 'lastObservedManifest'>,
): ApplicationStatus => {
  const generation = context.application.metadata.generation;
  return {
    ...context.status,
    ...defined({ observedGeneration: generation }),
    conditions: conditionsFor({ verdict, previous: context.status.conditions, now: context.input.now, generation }),
    ...manifests,
  };
};

/**
 * An invalid spec (or one the tenancy policy forbids, its `forbidden` children listed) changes
 * nothing in the cluster and loses nothing in the status.
 */
const stalledPlan = (
  context: Context,
  verdict: Extract<Verdict, { _tag: 'Stalled' }>,
  forbidden: ReadonlyArray<ForbiddenAction> = [],
): Plan => {
  const finalizer = hasFinalizer(context.application) ? [] : [finalizerAction(context, 'addFinalizer')];
  const actions: ReadonlyArray<Action> = [...finalizer, ...forbidden];
  return {
    actions,
    summary: summarize(actions),
    status: nextStatus(context, verdict, {}),
    outcome: outcomeOf(context, verdict, false),
  };
};

/**
 * Deletion: every child we own goes (reverse install order); then the finalizer is removed.
 * Children outside the policy's destinations are left alone (an owner mark there proves nothing).
 */
const planDeletion = (context: Context): Plan => {
  if (!hasFinalizer(context.application))
    return { actions: [], summary: summarize([]), status: context.status, outcome: { _tag: 'AwaitChange' } };
  const live = context.input.live;
  const candidates: ReadonlyArray<JsonObject> =
    live === undefined ? observedEntries(context.status) : live.filter((object) => isOwnedBy(object, context.owner));
  const children = candidates.filter(writableBy(context.tenancy));
  const remaining = children.filter((child) => !isTerminating(child));
  const deleting = holdDeletions(
    inUninstallOrder(remaining.map((child) => deleteAction(child, 'ApplicationDeleted'))),
    children.filter(isResource),
  );
  // Children under kreconcile.io/prune: disabled are orphaned instead (core/plan/protection.ts).
  const kept = withOrphans(deleting.go, identityIndex(children.filter(isResource)).get, context.owner);
  const actions: ReadonlyArray<Action> =
    children.length === 0
      ? [finalizerAction(context, 'removeFinalizer')]
      : [...kept.deletes, ...kept.orphans, ...waitActions(deleting.held, 'DependentsGone')];
  const message =
    children.length === 0 ? 'all children deleted; removing finalizer' : `deleting ${children.length} children`;
  return {
    actions,
    summary: summarize(actions),
    status: nextStatus(context, { _tag: 'Progressing', reason: 'Deleting', message }, {}),
    outcome:
      children.length === 0
        ? { _tag: 'AwaitChange' }
        : { _tag: 'RequeueAfter', ms: context.input.options?.progressRequeueMs ?? 1_000, reason: 'AwaitDeletion' },
  };
};

/**
 * The entries of `lastObservedManifest` that name a resource. The codec only checks that entries
 * are objects; one without identification cannot be acted on, and must not stop the reconcile.
 */
const observedEntries = (status: ApplicationStatus): ReadonlyArray<JsonObject> =>
  (status.lastObservedManifest ?? []).filter(isResource);

const hasFinalizer = (application: Application): boolean =>
  application.metadata.finalizers?.includes(FINALIZER) ?? false;

const isTerminating = (object: JsonObject | undefined): boolean => {
  const metadata = object === undefined ? undefined : getOwn(object, 'metadata');
  return isJsonObject(metadata) && typeof getOwn(metadata, 'deletionTimestamp') === 'string';
};

const applicationRef = (application: Application): ObjectRef => ({
  apiVersion: application.apiVersion,
  kind: application.kind,
  name: application.metadata.name,
  ...defined({ namespace: application.metadata.namespace }),
});

const finalizerAction = (context: Context, type: 'addFinalizer' | 'removeFinalizer'): Action => ({
  type,
  ref: applicationRef(context.application),
  finalizer: FINALIZER,
  changes: [{ path: 'metadata.finalizers', ...(type === 'addFinalizer' ? { to: FINALIZER } : { from: FINALIZER }) }],
});

const createAction = (resource: Resource, schema: ObserverSchema | undefined, owner: Owner): CreateAction => {
  const ref = refOf(resource);
  return { type: 'create', ref, body: withOwnershipMarks(withinMaxLengths(resource, schema), ref, owner), changes: [] };
};

/**
 * A patch of the observed fields that differ. In `ServerSideApply` mode it also carries the intent
 * sent instead (every observed field, not just those that differ; the JSON Patch then explains it),
 * or the lists that make it send the JSON Patch after all (`serverSideApplyOf`).
 */
const patchAction = (
  context: Context,
  desired: Resource,
  live: Resource,
  schema: JsonValue,
  adopting: boolean,
): ReadonlyArray<PatchAction> => {
  const {
    owner,
    application: { spec },
  } = context;
  const fields = fromLive(context.memo, PATCHES, live, desired, schema, () => patchOf(desired, live, schema));
  const marks = adopting ? adoptionPatch(live, owner, fields.operations) : { operations: [], changes: [] };
  const operations = [...fields.operations, ...marks.operations];
  if (operations.length === 0) return [];
  const ssa =
    spec.applyMode === 'ServerSideApply'
      ? serverSideApplyOf(desired, live, schema, owner, spec.forceConflicts === true, operations)
      : {};
  return [
    { type: 'patch', ref: refOf(desired), patch: operations, changes: [...fields.changes, ...marks.changes], ...ssa },
  ];
};

const deleteAction = (entry: JsonObject, reason: DeleteAction['reason']): DeleteAction => ({
  type: 'delete',
  // Deleted entries are resources from the last applied manifest (typed JsonObject by the delta).
  ref: refOf(entry as Resource),
  reason,
  changes: [],
});

const conflictWith = (resource: Resource, live: Resource | undefined, owner: Owner): ReadonlyArray<ConflictAction> => {
  if (live === undefined) return [];
  const liveOwner = ownerOf(live);
  if (liveOwner === ownerMark(owner)) return [];
  return [
    {
      type: 'conflict',
      ref: refOf(resource),
      reason: liveOwner === undefined ? 'NotOwned' : 'OwnedByAnother',
      ...defined({ owner: liveOwner }),
      changes: [],
    },
  ];
};

const showWait = (wait: WaitAction): string =>
  `${showHold(wait)}${wait.until === 'DependenciesReady' ? ' to be ready' : ' to be gone'}`;

/** How many actions of each type: one pass (this runs on every plan), counts of the types shown. */
const countByType = (actions: ReadonlyArray<Action>): ReadonlyMap<Action['type'], number> => {
  const counts = new Map<Action['type'], number>();
  for (const action of actions) counts.set(action.type, (counts.get(action.type) ?? 0) + 1);
  return counts;
};

const summarize = (actions: ReadonlyArray<Action>): PlanSummary => {
  const counts = countByType(actions);
  const forbidden = counts.get('forbidden') ?? 0;
  const recreate = counts.get('recreate') ?? 0;
  const wait = counts.get('wait') ?? 0;
  const skip = counts.get('skip') ?? 0;
  return {
    create: counts.get('create') ?? 0,
    patch: counts.get('patch') ?? 0,
    delete: counts.get('delete') ?? 0,
    conflict: counts.get('conflict') ?? 0,
    ...(forbidden === 0 ? {} : { forbidden }),
    ...(recreate > 0 ? { recreate } : {}),
    ...(wait > 0 ? { wait } : {}),
    ...(skip > 0 ? { skip } : {}),
  };
};

/**
 * A stand-in for the live object built from its `lastObservedManifest` entry: lists padded with
 * nulls up to their recorded length, so list-length fixes address the right positions (their
 * `test` guards fail safely if the guess is wrong).
 */
const reconstructLive = (observed: JsonValue): JsonValue => {
  if (isJsonArray(observed)) {
    const last = observed[observed.length - 1];
    const length = currentLength(last);
    const items = (isCurrentLength(last) ? observed.slice(0, -1) : observed).map(reconstructLive);
    return length === undefined || length <= items.length
      ? items
      : [...items, ...Array.from({ length: length - items.length }, () => null)];
  }
  if (!isJsonObject(observed)) return observed;
  return objectFromEntries(Object.entries(observed).map(([key, value]) => [key, reconstructLive(value)] as const));
};

export type { SchemaIndex };
