/**
 * `plan`: from (Application, live snapshot, scopes, now) to the ordered actions, the next status
 * and the outcome of a reconcile. Pure: decides, never does (ARCHITECTURE example 1).
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { FINALIZER, type Application, type ApplicationStatus } from '../model/application.js';
import { currentLength, isCurrentLength, type ObserverSchema } from '../model/observer-schema.js';
import { isResource, refKey, refOf, resourceKey, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import { withCrdScopes, withLiveScopes, type ScopeTable } from '../model/scope.js';
import {
  identityIndex,
  identityOf,
  knownScope,
  resourceFinder,
  withNamespace,
  type IdentityIndex,
} from '../manifest/identity.js';
import { learnFromLive, updateLastAppliedManifestFromSpec } from '../manifest/last-applied.js';
import { observeResource } from '../manifest/project.js';
import { calculateResourceDelta } from '../delta/resource-delta.js';
import { inSyncWith } from '../delta/in-sync.js';
import { withinMaxLengths } from '../delta/max-lengths.js';
import { generateDefaultObserverSchema } from '../schema/default.js';
import { indexSchemas, schemaFor, type SchemaIndex } from '../schema/lookup.js';
import { conditionsFor, type Verdict } from '../status/conditions.js';
import { readinessOf } from '../status/readiness.js';
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
} from './ownership.js';
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
import { withRecreates } from './recreate.js';
import { isSuspended, suspendedPlan } from './suspend.js';
import { serverSideApplyOf } from './server-side-apply.js';
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
  WaitAction,
} from './types.js';

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
  /** Manifest translated from `spec.tosca`/`spec.csar` (used when `spec.manifest` is empty). */
  readonly translatedManifest?: ReadonlyArray<Resource>;
  /** What the `spec.hooks` need from the runtime (callback URL, tokens); parts left out stay out of the plan. */
  readonly hooks?: HookContext;
  /** Where this Application may write (admin-owned; default `DEFAULT_TENANCY`: own namespace only). */
  readonly tenancy?: TenancyPolicy;
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
};

/**
 * Plans one reconcile.
 * Guarantees: never throws on a decoded Application; never mutates its inputs; patches touch
 * observed fields only; objects owned by another Application are never in a write action.
 * Errors: an invalid spec or schema, an unknown kind or a foreign object are reported in the
 * plan's status (`Stalled` with reason) and outcome, never thrown.
 */
export const plan = (input: PlanInput): Plan => {
  const application = input.application;
  const metadata = application.metadata;
  const owner: Owner = ownerFor(application);
  const context: Context = {
    application,
    owner,
    status: application.status ?? {},
    input,
    tenancy: tenancyFor(input.options?.tenancy, owner.namespace),
  };
  const planned = isSuspended(application)
    ? suspendedPlan(application, input.now)
    : metadata.deletionTimestamp !== undefined
      ? planDeletion(context)
      : planApply(context);
  // Hook tokens and Secret values are credentials: they reach the API server in writes, never status or explanations.
  return redactPlan(planned, owner);
};

const planApply = (context: Context): Plan => {
  const { input } = context;
  // Live objects teach scopes only of kinds the table lacks: with every kind known, nothing is learned.
  const snapshot = input.live ?? NO_LIVE;
  const scopes = snapshot.every((object) => knownScope(input.scopes, object.apiVersion, object.kind) !== undefined)
    ? input.scopes
    : withLiveScopes(input.scopes, snapshot);
  const prepared = prepareDesired(context, scopes);
  if (E.isLeft(prepared)) return stalledPlan(context, prepared.left);
  const { mangled, fromSpec } = prepared.right;
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
  return live === undefined
    ? planFromStatus(context, mangled, fromSpec)
    : planFromLive(context, mangled, fromSpec, live);
};

type Prepared = { readonly mangled: ReadonlyArray<ObserverSchema>; readonly fromSpec: ReadonlyArray<Resource> };
type Stalled = Extract<Verdict, { _tag: 'Stalled' }>;

/**
 * Steps 2–3 (validate, default schemas, desired from spec) depend only on the spec, the
 * previous desired state and the scopes; a no-op reconcile re-plans the same objects, so the
 * last result per spec object is kept (inputs are immutable, so identity implies equality).
 */
const preparedBySpec = new WeakMap<
  object,
  { readonly key: ReadonlyArray<unknown>; readonly value: E.Either<Stalled, Prepared> }
>();

const prepareDesired = (context: Context, scopes: ScopeTable): E.Either<Stalled, Prepared> => {
  const spec = context.application.spec as object | undefined;
  // `scopes` includes what the live snapshot taught (`withLiveScopes`): part of the key, or a kind
  // known from one snapshot would stay known for every later plan of the same spec object.
  const key = [
    context.status.lastAppliedManifest,
    scopes,
    context.owner.namespace,
    context.input.options?.translatedManifest,
    context.input.options?.hooks,
  ];
  const cached = spec === undefined || spec === null ? undefined : preparedBySpec.get(spec);
  if (cached !== undefined && cached.key.every((part, i) => part === key[i])) return cached.value;
  const value = computeDesired(context, scopes);
  if (spec !== undefined && spec !== null && typeof spec === 'object') preparedBySpec.set(spec, { key, value });
  return value;
};

const computeDesired = (context: Context, scopes: ScopeTable): E.Either<Stalled, Prepared> => {
  const { input, owner } = context;
  const spec = context.application.spec;
  // Only a CustomResourceDefinition declares a scope (`withCrdScopes` skips anything else): only they are passed.
  const manifestScopes = withCrdScopes(
    scopes,
    isJsonArray(spec?.manifest as JsonValue) ? ((spec.manifest ?? []).filter(isCrd) as ReadonlyArray<Resource>) : [],
  );
  const checked = checkSpec({
    spec,
    scopes: manifestScopes,
    namespace: owner.namespace,
    ...(input.options?.translatedManifest ? { translated: input.options.translatedManifest } : {}),
  });
  if (E.isLeft(checked)) return checked;
  // The API server folds a Secret's write-only `stringData` into `data`: desired state and default schema do too.
  const folded = { ...checked.right, manifest: checked.right.manifest.map(foldStringData) };
  const mangled = generateDefaultObserverSchema(folded);
  const desired = folded.manifest.map((resource) =>
    withNamespace(resource, identityOf(resource, manifestScopes, owner.namespace)),
  );
  // A digest in the status is not a value: the keys it stands for are learned again from the live object.
  const marked = marksFrom(mangled, context.status.mangledObserverSchema);
  const earlier = context.status.lastAppliedManifest?.map((resource) => withoutDigests(resource, marked(resource)));
  const fromSpec = updateLastAppliedManifestFromSpec({
    manifest: desired,
    mangledObserverSchema: mangled,
    lastAppliedManifest: earlier,
    namespace: owner.namespace,
  });
  // Step 4: hooks add resources and observed fields to the desired state and their schemas.
  const hooked = mangle({
    desired: fromSpec,
    mangledSchema: mangled,
    hooks: spec.hooks,
    context: { ...input.options?.hooks, owner, scopes: manifestScopes },
  });
  return E.right({ mangled: hooked.mangledSchema, fromSpec: hooked.desired });
};

/** The usual case: current state = the live objects projected on their schemas. */
const planFromLive = (
  context: Context,
  mangled: ReadonlyArray<ObserverSchema>,
  fromSpec: ReadonlyArray<Resource>,
  live: ReadonlyArray<Resource>,
): Plan => {
  const { owner } = context;
  const schemas = indexSchemas(mangled);
  const liveByRef = identityIndex(live);
  const liveOf = liveByRef.of;
  const adopt = context.application.spec.adopt === true;
  const previouslyObserved = context.status.lastObservedManifest ?? NO_ENTRIES;
  const findObserved = resourceFinder(previouslyObserved, owner.namespace);
  const unchangedSinceObserved = inSyncWith(previouslyObserved);
  // Per desired resource, by index: its live object, its schema and (when nothing changed since
  // the last observation) its previous observed entry, each looked up once.
  const lives = fromSpec.map(liveOf);
  const owned = lives.map((object) => object !== undefined && isOwnedBy(object, owner));
  const mayWrite = (i: number): boolean =>
    owned[i] === true || (adopt && lives[i] !== undefined && ownerOf(lives[i] as Resource) === undefined);
  const desiredSchemas = fromSpec.map((resource) => schemaFor(schemas, resource));
  const unchanged: Array<JsonObject | undefined> = fromSpec.map(() => undefined);
  const lastApplied = fromSpec.map((resource, i) => {
    const object = lives[i];
    const schema = desiredSchemas[i];
    if (object === undefined || schema === undefined || !mayWrite(i)) return resource;
    const observed = findObserved(resource);
    if (
      observed !== undefined &&
      owned[i] === true &&
      unchangedSinceObserved(asCreated(resource, schema, owner), object, observed, schema)
    ) {
      unchanged[i] = observed;
      return resource;
    }
    return learnFromLive(resource, object, schema);
  });
  // Learning never changes identification: the spec's objects give the same keys (indexed when first asked).
  let desiredByRef: IdentityIndex<Resource> | undefined;
  const isDesired = (object: JsonObject): boolean =>
    (desiredByRef ??= identityIndex(fromSpec)).of(object as Resource) !== undefined;
  const compared = lastApplied.map((resource, i) => asCreated(resource, desiredSchemas[i], owner));
  // Owner marks are data anyone with write access to an object can set: prune only where we may write.
  const writable = writableBy(context.tenancy);
  const ours = live.filter((object) => isOwnedBy(object, owner) && writable(object));
  // The previous schemas only serve objects no longer desired: indexed when one is observed.
  let previousSchemas: SchemaIndex | undefined;
  const observe = (object: Resource): JsonObject =>
    observeResource(
      object,
      schemaFor(schemas, object) ??
        schemaFor((previousSchemas ??= indexSchemas(context.status.mangledObserverSchema ?? [])), object) ??
        {},
    );
  // Whether each entry of `current` is desired, answered without the index where it is certain: a
  // live object found for a desired resource is desired, and so is an entry with that resource's identity.
  const found = new Set(lives);
  const current: JsonObject[] = [];
  const desiredEntry: boolean[] = [];
  for (let i = 0; i < lastApplied.length; i++) {
    const o = lives[i];
    if (o === undefined || !mayWrite(i)) continue;
    const entry = unchanged[i] ?? observe(o);
    current.push(entry);
    desiredEntry.push(sameIdentity(entry, fromSpec[i] as Resource) || isDesired(entry));
  }
  for (const object of ours) {
    if (found.has(object) || isDesired(object)) continue;
    const entry = observe(object);
    current.push(entry);
    desiredEntry.push(isDesired(entry));
  }
  const changed = calculateResourceDelta({
    lastAppliedManifest: compared.filter((_, i) => unchanged[i] === undefined),
    lastObservedManifest: current,
    mangledObserverSchema: mangled,
    namespace: owner.namespace,
  });
  const delta = { ...changed, deleted: current.filter((_, k) => desiredEntry[k] !== true) };
  const conflicts = delta.new.flatMap((resource) => conflictWith(resource, liveOf(resource), owner));
  const blocked = new Set(conflicts.map((conflict) => refKey(conflict.ref)));
  const terminating = (resource: JsonObject): boolean => isTerminating(liveByRef.of(resource as Resource));
  const creates = delta.new
    .filter((r) => !blocked.has(resourceKey(r)) && !terminating(r))
    .map((r) => createAction(r, schemaFor(schemas, r), owner));
  // An adopted object gets our marks even when its observed fields already match.
  const adopting = (object: Resource | undefined): boolean =>
    object !== undefined && adopt && ownerOf(object) === undefined;
  // Looked up by identity in nested maps: no key string (nor key cache entry) for every resource compared.
  const modified = identityIndex(delta.modified);
  // In sync and not adopting, no resource needs a patch: nothing is looked up to find that out.
  const patches = (delta.modified.length === 0 && !adopt ? [] : compared)
    .filter(
      (resource) =>
        (modified.of(resource) !== undefined || (adopt && adopting(liveOf(resource)))) && !terminating(resource),
    )
    .flatMap((resource) => {
      const object = liveOf(resource) as Resource;
      return patchAction(context, resource, object, schemaFor(schemas, resource) ?? {}, adopting(object));
    });
  const lastAppliedByRef = patches.length === 0 ? undefined : identityIndex(lastApplied);
  const split = withRecreates(
    patches,
    (patch) => lastAppliedByRef?.get(patch.ref),
    (resource) => createAction(resource, schemaFor(schemas, resource), owner).body,
  );
  const deletes = delta.deleted
    .filter((entry) => !terminating(entry))
    .map((entry) => deleteAction(entry, 'RemovedFromSpec'));
  // A terminating object is neither created, patched nor deleted again: the plan waits for it to go.
  const waiting = [...delta.new, ...delta.modified, ...delta.deleted]
    .filter(terminating)
    .map((r) => showRef(refOf(r as Resource)));
  const notReady =
    context.input.options?.readiness === 'existence'
      ? []
      : lastApplied.flatMap((resource, i) => {
          const object = lives[i];
          if (object === undefined || owned[i] !== true) return NOT_WAITING;
          const readiness = readinessOf(object);
          return readiness.ready
            ? NOT_WAITING
            : [
                `${resource.kind} ${refOf(resource).namespace ? `${refOf(resource).namespace}/` : ''}${resource.metadata.name} (${readiness.reason})`,
              ];
        });
  // kreconcile.io/depends-on: creations wait for ready dependencies, deletions for dependents to go.
  const ready = (ref: ObjectRef): boolean => {
    const object = liveByRef.get(ref);
    return (
      object !== undefined &&
      !isTerminating(object) &&
      (context.input.options?.readiness === 'existence' || readinessOf(object).ready)
    );
  };
  const creating = holdCreations(creates, lastApplied, ready);
  const deleting = holdDeletions(deletes, ours);
  const waits = [...waitActions(creating.held, 'DependenciesReady'), ...waitActions(deleting.held, 'DependentsGone')];
  // kreconcile.io/prune and kreconcile.io/apply (core/plan/protection.ts).
  const protectedWrites = withProtection(
    { creates: creating.go, patches: split.patches, recreates: split.recreates, deletes: deleting.go },
    identityIndex(lastApplied).get,
    liveByRef.get,
    owner,
  );
  // spec.driftPolicy: Report (core/plan/drift-policy.ts).
  const reported = withheldDrift(
    protectedWrites,
    context.application,
    context.status.lastAppliedManifest,
    lastApplied,
    mangled,
    owner,
  );
  const assembled = assemble(context, {
    ...reported.decided,
    mangled,
    lastApplied,
    current,
    waits,
    conflicts,
    waiting,
    notReady,
  });
  return withDriftReport(assembled, reported.withheld, owner);
};

/** Whether `entry` has the identity of `resource` as `identityIndex` keys it (namespace '' when absent). */
const sameIdentity = (entry: JsonObject, resource: Resource): boolean => {
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

/** The status entries of an Application never planned: one shared empty list. */
const NO_ENTRIES: ReadonlyArray<JsonObject> = [];

/** What a ready child adds to the readiness wait (most children): nothing, one shared list. */
const NOT_WAITING: ReadonlyArray<string> = [];

/** Without a live read: current state = `status.lastObservedManifest`. */
const planFromStatus = (
  context: Context,
  mangled: ReadonlyArray<ObserverSchema>,
  lastApplied: ReadonlyArray<Resource>,
): Plan => {
  const { owner } = context;
  const schemas = indexSchemas(mangled);
  const current = revealAllMatching(
    observedEntries(context.status),
    lastApplied,
    marksFrom(mangled, context.status.mangledObserverSchema),
  );
  const findCurrent = resourceFinder(current, owner.namespace);
  const compared = lastApplied.map((resource) => asCreated(resource, schemaFor(schemas, resource), owner));
  const delta = calculateResourceDelta({
    lastAppliedManifest: compared,
    lastObservedManifest: current,
    mangledObserverSchema: mangled,
    namespace: owner.namespace,
  });
  const creates = delta.new.map((resource) => createAction(resource, schemaFor(schemas, resource), owner));
  const patches = delta.modified.flatMap((resource) =>
    patchAction(
      context,
      resource,
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
  readonly deletes: ReadonlyArray<DeleteAction>;
  readonly conflicts: ReadonlyArray<ConflictAction>;
  /** Resources still terminating that the plan waits for. */
  readonly waiting: ReadonlyArray<string>;
  /** Children that exist but are not ready yet (kstatus), with the reason. */
  readonly notReady?: ReadonlyArray<string>;
};

const assemble = (context: Context, decided: Decided): Plan => {
  const finalizer = hasFinalizer(context.application) ? [] : [finalizerAction(context, 'addFinalizer')];
  const writes: ReadonlyArray<Action> = [
    ...inUninstallOrder(decided.deletes),
    ...inInstallOrder(decided.creates),
    ...inInstallOrder<PatchAction | RecreateAction>([...decided.patches, ...(decided.recreates ?? [])]),
  ];
  const actions: ReadonlyArray<Action> = [...finalizer, ...writes, ...(decided.waits ?? []), ...decided.conflicts];
  const summary = summarize(actions);
  const verdict = verdictOf(decided, summary, finalizer.length > 0);
  return {
    actions,
    summary,
    status: nextStatus(context, verdict, {
      mangledObserverSchema: decided.mangled,
      lastAppliedManifest: decided.lastApplied,
      lastObservedManifest: decided.current,
    }),
    outcome:
      verdict._tag === 'Progressing' &&
      (verdict.reason === 'WaitingForReadiness' || verdict.reason === 'WaitingForDependencies')
        ? { _tag: 'RequeueAfter', ms: context.input.options?.readinessRequeueMs ?? 5_000, reason: verdict.reason }
        : outcomeOf(context, verdict, writes.length > 0 || finalizer.length > 0 || decided.waiting.length > 0),
  };
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
    ...(generation === undefined ? {} : { observedGeneration: generation }),
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
  ...(application.metadata.namespace === undefined ? {} : { namespace: application.metadata.namespace }),
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
  const fields = patchOf(desired, live, schema);
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
      ...(liveOwner === undefined ? {} : { owner: liveOwner }),
      changes: [],
    },
  ];
};

const showWait = (wait: WaitAction): string =>
  `${showHold(wait)}${wait.until === 'DependenciesReady' ? ' to be ready' : ' to be gone'}`;

const summarize = (actions: ReadonlyArray<Action>): PlanSummary => {
  const forbidden = actions.filter((a) => a.type === 'forbidden').length;
  const recreate = actions.filter((a) => a.type === 'recreate').length;
  const wait = actions.filter((a) => a.type === 'wait').length;
  return {
    create: actions.filter((a) => a.type === 'create').length,
    patch: actions.filter((a) => a.type === 'patch').length,
    delete: actions.filter((a) => a.type === 'delete').length,
    conflict: actions.filter((a) => a.type === 'conflict').length,
    ...(forbidden === 0 ? {} : { forbidden }),
    ...(recreate > 0 ? { recreate } : {}),
    ...(wait > 0 ? { wait } : {}),
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
