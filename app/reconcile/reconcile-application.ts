/**
 * One reconcile of one Application through the ports: read, plan, execute, write status.
 * Level-based: it receives a reference, never the event that caused it.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  ApplicationStatus as ApplicationStatusCodec,
  clusterError,
  decodeApplication,
  decodeWith,
  getIn,
  getOwn,
  hasOwn,
  isJsonObject,
  ownKeyCount,
  isServiceAccountName,
  kreconcileStatusFieldsOf,
  showIssue,
  type Issue,
  type JsonObject,
  type JsonPatchOperation,
  conditionsFor,
  errorPolicy,
  type ErrorDecision,
  isJsonArray,
  jsonEqual,
  plan as planReconcile,
  redactStatus,
  redactClusterError,
  secretTexts,
  objectFromEntries,
  showClusterError,
  showRef,
  type Application,
  type ApplicationStatus,
  type PlanOptions,
  type Cluster,
  type ClusterError,
  type JsonValue,
  type ObjectRef,
  type LiveVersions,
  type Plan,
  type Resource,
  type ScopeTable,
  type Verdict,
  applicationsViewOf,
  childCreationTimes,
  firstStatusDecision,
  ownerFor,
  keep,
  memoTable,
  recall,
  remember,
  type Memo,
} from '../../core/internal.js';
import { executePlan, nothingExecuted, type Execution, type ExecutionFailure } from '../executor/execute.js';
import { hookContextOf, hookSecretsToRead, shutdownWait, type HookRuntime } from '../hooks/runtime.js';
import { stalledOnTranslation } from '../tosca/stalled.js';
import { needsTranslation, type Translation, type Translator } from '../tosca/translator.js';
import type { ExpressionEvaluator } from '../../core/ports/expressions.js';
import type { IsolatedRules } from '../isolation/isolated-rules.js';
import { accountOf, forbiddenMessage, OPERATOR, refusedPlan, type ChildCluster } from '../access/child-access.js';
import { intentOf, type Kind } from './intent-kinds.js';
import { EMPTY_INVENTORY } from './inventory.js';
import { inheritedInventory, takesOver, withInventory, type InventoryReader } from './inventory-takeover.js';
import { deletionRead, type ReconcileNote } from './intent-skip.js';
import { knowsEveryKind, readLive, resolveScopes, statusKinds } from './live-reader.js';
import { readStoredStatus, storedStatus, unpackedStatus, withReadableStatus } from '../status/stored-status.js';
import { STORED_MANIFESTS_FIELD } from '../../core/model/application.js';
import { sizeProblemsOf, tooLargeMessage, writesChildren } from '../status/size-check.js';
import type { StorageLimits } from '../../core/plan/size-check.js';
import { defined } from '../../core/json/defined.js';

/**
 * Where a reconcile reads live state from: the cluster directly, or a runtime's cache. A source may
 * answer at once, without a promise (from its caches: every reconcile of a resync).
 */
export type LiveSource = (
  application: Application,
  scopes: ScopeTable,
) => E.Either<ClusterError, ReadonlyArray<Resource>> | Promise<E.Either<ClusterError, ReadonlyArray<Resource>>>;

/** Reads one object: a cache answers at once, without a promise. */
export type ObjectSource = (
  ref: ObjectRef,
) => E.Either<ClusterError, O.Option<Resource>> | Promise<E.Either<ClusterError, O.Option<Resource>>>;

/**
 * Where a reconcile reads with the operator's rights besides `cluster` (each defaults to it): a runtime answers from
 * its caches.
 */
export type ReconcileReads = {
  /** The Application, at the reconcile's start and before each status write (`ReconciledKind.statusPatch`). */
  readonly application?: ObjectSource;
  readonly live?: LiveSource;
  /**
   * The inventory ConfigMap of an Application taken over (inventory-takeover.ts). A runtime answers from its ConfigMap
   * cache when synced.
   */
  readonly inventory?: ObjectSource;
};

/**
 * The kind reconciled, when it is not the Application: how its objects decode into the Application to plan for (the
 * embedded runtime maps its primary kind), and the status write's JSON Patch given the object's status as it stands
 * (read through `ReconcileReads.application` before each write; the embedded runtime writes only kreconcile's fields).
 * Default: decoded as an Application, its status written whole (`add /status`).
 */
export type ReconciledKind = {
  readonly decode: (object: Resource) => E.Either<ReadonlyArray<Issue>, Application>;
  readonly statusPatch: (current: JsonValue | undefined, status: JsonObject) => ReadonlyArray<JsonPatchOperation>;
};

/**
 * What one reconcile is given. No callback reports what it writes: every write goes through `cluster` (or an
 * impersonating client) and its answer comes back there, so a runtime keeps its caches current in the client it hands
 * over (app/runtime/own-writes.ts), as each answer arrives.
 */
export type ReconcileDeps = {
  readonly cluster: Cluster;
  readonly scopes: ScopeTable;
  /** RFC 3339 "now" for conditions. */
  readonly now: () => string;
  /** [0, 1) for backoff jitter. */
  readonly random: () => number;
  readonly reads?: ReconcileReads;
  /** Passed to `plan` (readiness rules, requeue delays). */
  readonly planOptions?: PlanOptions;
  /**
   * Evaluates `spec.readiness` rules in worker threads, each evaluation bounded (app/isolation): the
   * plan is given their answers. Without it, `planOptions.expressions` evaluates them in the plan.
   */
  readonly isolatedRules?: IsolatedRules;
  /**
   * Inspects (and may replace) a plan before it runs, given the live objects it was made from: the
   * runtime's hot-loop guard. What it answers it planned against comes back in the result.
   */
  readonly guard?: (application: Application, plan: Plan, live: ReadonlyArray<Resource>) => Guarded;
  /**
   * Whose rights the Application's children are read and written with (see child-access.ts).
   * `Impersonated`: live reads (never the shared caches, which hold what the operator can read)
   * and child writes go through its cluster; `Refused`: the Application is Stalled untouched.
   * Default: the operator's (`cluster`, `reads.live`). The Application, its finalizer and status
   * are always written with `cluster`.
   */
  readonly childClusterFor?: (application: Application) => ChildCluster;
  /**
   * Translates `spec.tosca`/`spec.csar` (docs/behaviour.md §4.1); without it such Applications stall (InvalidTosca).
   * Called only for an Application whose manifest comes from a template (`needsTranslation`).
   */
  readonly translate?: Translator;
  /** The hooks' runtime side: callback URL, tokens, shutdown grace period. Without it, hooks plan without tokens. */
  readonly hooks?: HookRuntime;
  readonly primary?: ReconciledKind;
  /** The cluster's storage limits the size check uses (default: etcd's and kube-apiserver's defaults). */
  readonly storageLimits?: StorageLimits;
  /**
   * What the reconciles of one controller remember about the objects they saw (decoded
   * Applications, scope checks, desired identities, the planner's caches), kept while the
   * objects are; the Controller owns one. Without it every reconcile derives everything again.
   */
  readonly memo?: Memo;
  /**
   * How long a brand-new Application's first status is held while it only waits for its children
   * to become ready (core/status/first-status.ts; docs/behaviour.md §5). Default 0: written at once.
   */
  readonly progressStatusAfterMs?: number;
};

/**
 * What a plan with patches was made against: the live versions and the Application's generation (hot-loop and
 * perpetual-diff records).
 */
export type PlannedAgainst = { readonly versions: LiveVersions; readonly generation: number | undefined };

/** A guard's answer: the plan to carry out, and what it was planned against when that is worth recording. */
export type Guarded = { readonly plan: Plan; readonly plannedAgainst?: PlannedAgainst };

export type ReconcileResult =
  | { readonly _tag: 'Gone' }
  | {
      readonly _tag: 'Done';
      /** Set by the guard (`ReconcileDeps.guard`) for a plan with patches. */
      readonly plannedAgainst?: PlannedAgainst;
      readonly plan: Plan;
      readonly execution: Execution;
      readonly requeueAfterMs?: number;
      readonly statusWritten: boolean;
      readonly status: ApplicationStatus;
      /**
       * The plan acted, and planning again against the writes' answers needed nothing more: `status`
       * and the requeue are that second plan's (no verification reconcile follows; see the `verified` function below).
       */
      readonly verified?: boolean;
      /** What the reconcile tells in Warning Events beside its writes (kinds left unread while deleting). */
      readonly notes?: ReadonlyArray<ReconcileNote>;
    }
  | {
      readonly _tag: 'Failed';
      readonly plannedAgainst?: PlannedAgainst;
      readonly error: ClusterError;
      readonly retryAfterMs?: number;
      readonly terminal: boolean;
      readonly plan?: Plan;
      readonly execution?: Execution;
      readonly statusWritten: boolean;
    };

/**
 * Reconciles the Application at `ref` once.
 * Guarantees: writes status only when it changed; a failed action stops the plan and is
 * classified (retry with backoff, or Stalled in the status when retrying cannot help).
 */
export const reconcileApplication = async (
  ref: ObjectRef,
  deps: ReconcileDeps,
  attempt = 1,
): Promise<ReconcileResult> => {
  const reading = deps.reads?.application?.(ref) ?? deps.cluster.get(ref)();
  const read = reading instanceof Promise ? await reading : reading;
  if (E.isLeft(read)) return failed(read.left, attempt, deps);
  if (O.isNone(read.right)) {
    deps.hooks?.tokens.forget(ref.namespace ?? 'default', ref.name);
    return { _tag: 'Gone' };
  }
  const decoded =
    deps.primary === undefined
      ? decodedApplication(read.right.value, deps.memo)
      : deps.primary.decode(read.right.value);
  const usable = E.isRight(decoded) ? decoded : forDeletion(read.right.value);
  if (E.isLeft(usable)) return stallUndecodable(read.right.value, E.isLeft(decoded) ? decoded.left : [], deps);
  const application = usable.right;
  const access = deps.childClusterFor?.(application) ?? OPERATOR;
  const unguarded: E.Either<ClusterError, Planning> =
    access._tag === 'Refused'
      ? E.right({ plan: refusedPlan(application, access.reason, access.message, deps.now()), live: [] })
      : await planFor(application, deps, access);
  if (E.isLeft(unguarded)) return failed(unguarded.left, attempt, deps);
  const guarded = deps.guard?.(application, unguarded.right.plan, unguarded.right.live);
  const result = await carryOut(read.right.value, application, guarded?.plan ?? unguarded.right.plan, {
    planning: unguarded.right,
    access,
    attempt,
    deps,
  });
  // What the guard planned against travels with the result (hot-loop and perpetual-diff bookkeeping).
  return guarded?.plannedAgainst === undefined || result._tag === 'Gone'
    ? result
    : { ...result, plannedAgainst: guarded.plannedAgainst };
};

/** How the plan was made and what carrying it out depends on. */
type CarryOut = {
  readonly planning: Planning;
  readonly access: ChildCluster;
  readonly attempt: number;
  readonly deps: ReconcileDeps;
};

/** Carries out the plan decided for `application` (read as `object`): checks, intent, writes, status. */
const carryOut = async (
  object: Resource,
  application: Application,
  planned: Plan,
  { planning, access, attempt, deps }: CarryOut,
): Promise<ReconcileResult> => {
  // Before the first write: an Application that cannot be stored with its status creates nothing (decision 0023).
  const tooLarge = writesChildren(planned)
    ? tooLargeMessage(sizeProblemsOf(object, application, planned, deps.storageLimits))
    : undefined;
  if (tooLarge !== undefined) return stallWithConditions(object, 'TooLarge', tooLarge, deps);
  // What an in-sync Application needs (every resync) is computed without a promise: nothing to
  // record, nothing to execute, no status to write. Only a reconcile that writes waits for the server.
  const intent = intentOf(application, planned, () => statusKinds(application.status), planning.inherited ?? []);
  if (intent._tag === 'InStatus') {
    const recorded = await recordIntentInStatus(application, planned, deps);
    if (E.isLeft(recorded)) return failed(recorded.left, attempt, deps, planned);
  }
  const execution =
    planned.actions.length === 0
      ? nothingExecuted(planned, application)
      : withoutEchoedSecrets(
          await executePlan({
            plan: planned,
            application,
            cluster: deps.cluster,
            ...(access._tag === 'Impersonated' ? { children: access.cluster } : {}),
            ...(intent._tag === 'OnFinalizerPatch' ? { finalizerAnnotations: intent.annotations } : {}),
          }),
          planned,
          planning.live,
        );
  if (execution.failure !== undefined) return failedExecution(planned, execution, application, attempt, deps, access);
  const concluded = conclusion(application, planned, execution, await withWritesEvaluated(planning, execution), deps);
  if (concluded.write === undefined) return concluded.result;
  const written = await patchStatus(execution.application, concluded.write, deps);
  if (E.isLeft(written)) return failed(written.left, attempt, deps, planned, execution);
  return { ...concluded.result, statusWritten: written.right };
};

type Done = Extract<ReconcileResult, { readonly _tag: 'Done' }>;

/**
 * How a reconcile whose plan was carried out ends: its result as if no status were written, and
 * the status to write when it differs from the stored one (`undefined`: unchanged, or held back
 * while a new Application only waits for its children; see `firstStatusDecision`).
 */
const conclusion = (
  application: Application,
  planned: Plan,
  execution: Execution,
  planning: Planning,
  deps: ReconcileDeps,
): { readonly result: Done; readonly write: ApplicationStatus | undefined } => {
  const verification = verified(application, planned, execution, planning);
  const settled = verification ?? planned;
  const status = verification?.status ?? execution.status;
  // Responses fed back by the executor may carry hook tokens: they never reach the status (redacted once, written and
  // returned).
  const redacted = redactStatus(status, ownerOf(application));
  const requeueAfterMs = settled.outcome._tag === 'RequeueAfter' ? settled.outcome.ms : undefined;
  const first = firstStatusDecision({
    stored: application.status,
    next: redacted,
    childrenCreated: () => childCreationTimes(childrenSeen(planning.live, execution), ownerFor(application)),
    now: deps.now(),
    graceMs: deps.progressStatusAfterMs ?? 0,
  });
  // Held: not written, looked at again when the grace ends (or earlier, when a child's change is watched).
  const held = first._tag === 'Hold';
  const requeue = held ? Math.min(first.remainingMs, requeueAfterMs ?? first.remainingMs) : requeueAfterMs;
  return {
    result: {
      _tag: 'Done',
      plan: planned,
      execution,
      statusWritten: false,
      status: redacted,
      ...defined({ requeueAfterMs: requeue }),
      ...(verification === undefined ? {} : { verified: true }),
      ...defined({ notes: planning.notes }),
    },
    write: held || sameStatus(application.status ?? {}, redacted, deps.memo) ? undefined : redacted,
  };
};

/** The planning, its rules evaluated over what the writes answered too (new versions of the children). */
const withWritesEvaluated = async (planning: Planning, execution: Execution): Promise<Planning> =>
  planning.reevaluated === undefined || !execution.done.some(({ response }) => response !== undefined)
    ? planning
    : { ...planning, replan: await planning.reevaluated(childrenSeen(planning.live, execution)) };

/** The live objects a reconcile planned with, and what its writes answered (the children it just created). */
const childrenSeen = (live: ReadonlyArray<Resource>, execution: Execution): ReadonlyArray<Resource> => [
  ...live,
  ...execution.done.flatMap(({ response }) => (response === undefined ? [] : [response])),
];

/**
 * Before the first child of a kind the Application does not name yet (in its status or its
 * `kreconcile.io/intent-kinds` annotation) is created, that kind is recorded: a process that dies
 * between the create and the final status write then leaves no child a later process cannot find,
 * because the live reader reads the kinds the spec, the status and the annotation name, and what is
 * owned but no longer desired is pruned (docs/behaviour.md §5).
 *
 * When the plan adds the finalizer before its creates (a new Application), the kinds ride on that
 * metadata patch (`intentOf`'s annotations, for `executePlan`'s finalizer write), no request of its
 * own. Otherwise (the finalizer is there: a later spec adds a kind; or the kinds would not fit the
 * annotation's bounds) this records the desired state (`lastAppliedManifest`) in the status first,
 * one status write, the state a plan whose first create failed leaves anyway.
 */
const recordIntentInStatus = async (
  application: Application,
  planned: Plan,
  deps: ReconcileDeps,
): Promise<E.Either<ClusterError, undefined>> => {
  const lastAppliedManifest = redactStatus(planned.status, ownerOf(application)).lastAppliedManifest ?? [];
  const written = await writeStatus(
    application,
    application.status,
    { ...application.status, lastAppliedManifest },
    deps,
  );
  return E.map((): undefined => undefined)(written);
};

/** What a reconcile of an Application with its own manifest plans from (no template to translate). */
const NOT_TRANSLATED: Translation = { _tag: 'NotNeeded' };

/** The answer shared by every status write with nothing to write (settled once, not a promise per write). */
const STATUS_UNCHANGED: Promise<E.Either<ClusterError, boolean>> = Promise.resolve(E.right(false));

/** Whether a reconcile left its Application converged and Ready: nothing (more) to do, `Ready=True` written. */
export const converged = (result: ReconcileResult): boolean =>
  result._tag === 'Done' &&
  (result.plan.actions.length === 0 || result.verified === true) &&
  result.status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true;

/** A plan for the Application as it stands, given the live objects (what `planFor` planned with, replayable). */
type Planning = {
  readonly plan: Plan;
  readonly live: ReadonlyArray<Resource>;
  /** What the reconcile tells in Warning Events (intent-skip.ts). */
  readonly notes?: ReadonlyArray<ReconcileNote>;
  readonly replan?: (application: Application, live: ReadonlyArray<Resource>) => Plan;
  /** `replan` for these objects' rule answers, evaluated isolated (what the writes answered has new versions). */
  readonly reevaluated?: (
    objects: ReadonlyArray<Resource>,
  ) => Promise<(application: Application, live: ReadonlyArray<Resource>) => Plan>;
  /**
   * The kinds of the inventory `kreconcile apply` kept, when this reconcile takes the Application over
   * (inventory-takeover.ts).
   */
  readonly inherited?: ReadonlyArray<Kind>;
};

/**
 * The verification a `VerifyActions` requeue would make, made now from what the writes answered:
 * every action succeeded and was a create, patch or finalizer added, each answered with the object
 * as stored, so the next reconcile would plan against exactly these answers (they are in the
 * caches already). When that plan has no actions, it is the reconcile's result — its status is
 * written once, and no verification reconcile follows; otherwise `undefined` (requeue as planned).
 * Deletions and recreations are left to the requeue: an object kept by finalizers is still going.
 */
const verified = (
  application: Application,
  planned: Plan,
  execution: Execution,
  planning: Planning,
): Plan | undefined => {
  if (
    planning.replan === undefined ||
    planned.outcome._tag !== 'RequeueAfter' ||
    planned.outcome.reason !== 'VerifyActions'
  )
    return undefined;
  const answered = execution.done.every(
    ({ action, response }) =>
      action.type === 'addFinalizer' ||
      ((action.type === 'create' || action.type === 'patch') && response !== undefined),
  );
  if (!answered) return undefined;
  const live = new Map(planning.live.map((object) => [liveKey(object), object]));
  for (const { response } of execution.done) if (response !== undefined) live.set(liveKey(response), response);
  // The Application as planned (its generation: a spec edited meanwhile is for the next reconcile), with
  // the finalizer the writes added and the status they led to.
  const finalizers = execution.application.metadata.finalizers;
  const after: Application = {
    ...application,
    metadata: { ...application.metadata, ...defined({ finalizers }) },
    status: redactStatus(execution.status, ownerOf(application)),
  };
  const again = planning.replan(after, [...live.values()]);
  return again.actions.length === 0 ? again : undefined;
};

const liveKey = (object: Resource): string =>
  `${object.apiVersion}|${object.kind}|${object.metadata.namespace ?? ''}|${object.metadata.name}`;

/**
 * The manifest one reconcile plans: the translator's for an Application made from a template, else
 * `spec.manifest` (`own`: its memoised view, reused while no hook Secret is added), and the scopes of
 * every kind it names (discovery asked only for kinds the table does not know yet).
 */
const manifestInForce = async (
  application: Application,
  deps: ReconcileDeps,
  deleting: boolean,
): Promise<{
  readonly translation: Translation;
  readonly own: Application | undefined;
  readonly manifest: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
}> => {
  // Only an Application whose manifest comes from a template is handed to the translator (no promise for the rest).
  const translation: Translation =
    !deleting && deps.translate !== undefined && needsTranslation(application)
      ? await deps.translate(application)
      : NOT_TRANSLATED;
  const own = translation._tag === 'Translated' ? undefined : ownManifestView(application, deps.memo);
  const manifest = translation._tag === 'Translated' ? translation.manifest : manifestOf(application);
  const named = own ?? withManifest(application, manifest);
  const scopes = knowsEveryKind(named, deps.scopes, deps.memo)
    ? deps.scopes
    : await resolveScopes(named, deps.scopes, deps.cluster, deps.memo);
  return { translation, own, manifest, scopes };
};

/**
 * Steps 1–8 for one Application: wait for a shutdown callback (deleting, `shutdown` hook), else
 * translate TOSCA/CSAR, read the live objects (translated resources and hook Secrets included) and
 * plan with the hook context (tokens read back from the live Secrets).
 */
const planFor = async (
  application: Application,
  deps: ReconcileDeps,
  access: ChildCluster,
): Promise<E.Either<ClusterError, Planning>> => {
  const now = deps.now();
  const deleting = application.metadata.deletionTimestamp !== undefined;
  // Only an Application being deleted may wait for its shutdown callback (no time parsed for the rest).
  const waiting = deleting ? shutdownWait(application, deps.hooks, Date.parse(now)) : undefined;
  if (waiting !== undefined) return E.right({ plan: waiting, live: [] });
  const { translation, own, manifest, scopes } = await manifestInForce(application, deps, deleting);
  // The live reader reads what `spec.manifest` names: hand it the manifest in force and the hook Secrets.
  const hookSecrets = hookSecretsToRead(application, manifest, scopes);
  const inherited = takesOver(application) ? await inheritedInventory(application, readerOf(deps, access)) : undefined;
  if (inherited !== undefined && E.isLeft(inherited)) return inherited;
  const view = withInventory(
    own !== undefined && hookSecrets.length === 0 ? own : withManifest(application, [...manifest, ...hookSecrets]),
    inherited?.right ?? EMPTY_INVENTORY,
  );
  const reading = liveReadFor(view, scopes, deps, access);
  // A source that answers from its caches gives the answer itself: no promise to wait for.
  const first = reading instanceof Promise ? await reading : reading;
  // Deleting: a kind only the intent annotation names never holds the finalizer (intent-skip.ts).
  const { live, note } = deleting
    ? await deletionRead(view, scopes, first, (without) => liveReadFor(without, scopes, deps, access))
    : { live: first, note: undefined };
  if (E.isLeft(live)) {
    // A read the API server refuses will be refused again: report it instead of retrying blind.
    const refused = forbiddenMessage(accountOf(access), live.left);
    return refused === undefined
      ? live
      : E.right({ plan: refusedPlan(application, 'Forbidden', refused, now), live: [] });
  }
  const listed = needsApplicationsListed(application, deps)
    ? await withListedApplications(application, deps)
    : undefined;
  if (listed !== undefined && E.isLeft(listed)) return listed;
  const listedOptions = listed === undefined ? deps.planOptions : listed.right;
  const replanWith = replanner({ deps, scopes, now, deleting, translation });
  const planning = await planningOf(
    application,
    live.right,
    replanWith(listedOptions),
    deps,
    listedOptions,
    replanWith,
  );
  const kinds = inherited?.right.kinds ?? [];
  const withInherited = kinds.length === 0 ? planning : { ...planning, inherited: kinds };
  return E.right(note === undefined ? withInherited : { ...withInherited, notes: [note] });
};

/** How the inventory is read: with the impersonated ServiceAccount's rights, else the operator's (its cache first). */
const readerOf = (deps: ReconcileDeps, access: ChildCluster): InventoryReader =>
  access._tag === 'Impersonated'
    ? (ref) => access.cluster.get(ref)()
    : (deps.reads?.inventory ?? ((ref: ObjectRef) => deps.cluster.get(ref)()));

type Replan = (application: Application, live: ReadonlyArray<Resource>) => Plan;

/** Plans for an Application with the given options: hooks read from the objects, a translation's manifest or stall. */
const replanner =
  (context: {
    readonly deps: ReconcileDeps;
    readonly scopes: ScopeTable;
    readonly now: string;
    readonly deleting: boolean;
    readonly translation: Translation;
  }) =>
  (planOptions: PlanOptions | undefined): Replan =>
  (current, objects) => {
    const { deps, scopes, now, deleting, translation } = context;
    const hooks = deleting ? undefined : hookContextOf(current, objects, deps.hooks);
    const options =
      translation._tag !== 'Translated' && hooks === undefined
        ? planOptions
        : {
            ...planOptions,
            ...(translation._tag === 'Translated' ? { translatedManifest: translation.manifest } : {}),
            ...defined({ hooks }),
          };
    const planned = planReconcile({ application: current, live: objects, scopes, now, options }, deps.memo);
    return translation._tag === 'Invalid' ? stalledOnTranslation(planned, current, translation, now) : planned;
  };

/** The plan over `live`: its readiness rules evaluated isolated first, when the runtime isolates them. */
const planningOf = async (
  application: Application,
  live: ReadonlyArray<Resource>,
  replan: Replan,
  deps: ReconcileDeps,
  options: PlanOptions | undefined,
  replanWith: (planOptions: PlanOptions | undefined) => Replan,
): Promise<Planning> => {
  const isolated = isolatedRulesFor(application, deps);
  if (isolated === undefined) return { plan: replan(application, live), live, replan };
  const reevaluated = async (objects: ReadonlyArray<Resource>) =>
    replanWith({ ...options, expressions: await isolated(objects) });
  const evaluated = await reevaluated(live);
  return { plan: evaluated(application, live), live, replan: evaluated, reevaluated };
};

/**
 * The isolated evaluation of `application`'s readiness rules over some objects, when it has rules and the runtime
 * isolates them.
 */
const isolatedRulesFor = (
  application: Application,
  deps: ReconcileDeps,
): ((objects: ReadonlyArray<Resource>) => Promise<ExpressionEvaluator>) | undefined => {
  const specs = application.spec.readiness ?? [];
  const rules = deps.isolatedRules;
  if (rules === undefined || specs.length === 0) return undefined;
  const owner = `${application.metadata.namespace ?? ''}/${application.metadata.name}`;
  return (objects) => rules.evaluatorFor(owner, specs, objects);
};

/** The live objects `view` names, read with the rights `access` gives (see `LiveSource`). */
const liveReadFor = (
  view: Application,
  scopes: ScopeTable,
  deps: ReconcileDeps,
  access: ChildCluster,
): ReturnType<LiveSource> => {
  if (access._tag !== 'Impersonated' && deps.reads?.live !== undefined) return deps.reads.live(view, scopes);
  const tenancy = deps.planOptions?.tenancy;
  const options = {
    ...defined({ tenancy, memo: deps.memo }),
  };
  return access._tag === 'Impersonated'
    ? // Only what the ServiceAccount may read: the shared caches hold what the operator can see.
      readLive(view, scopes, access.cluster, { perNamespace: true, ...options })
    : readLive(view, scopes, deps.cluster, options);
};

/**
 * Whether the plan needs a view of the other Applications for `spec.dependsOn`
 * (core/plan/depends-on.ts) that the options do not hold: the runtime passes its primary store's;
 * without one, an Application that names dependencies or is being deleted (its dependants may hold
 * it back) has its kind listed (`withListedApplications`).
 */
const needsApplicationsListed = (application: Application, deps: ReconcileDeps): boolean =>
  deps.planOptions?.applications === undefined &&
  (application.metadata.deletionTimestamp !== undefined || (application.spec.dependsOn ?? []).length > 0);

/** The plan options with a view of the Applications of `application`'s kind, listed once in every namespace. */
const withListedApplications = async (
  application: Application,
  deps: ReconcileDeps,
): Promise<E.Either<ClusterError, PlanOptions>> => {
  const listed = await deps.cluster.list({ apiVersion: application.apiVersion, kind: application.kind })();
  return E.map((list: { readonly items: ReadonlyArray<Resource> }): PlanOptions => ({
    ...deps.planOptions,
    applications: applicationsViewOf(list.items),
  }))(listed);
};

/**
 * The Application as the live reader sees it when it reads what its own manifest names (no
 * translation, no hook Secrets): one value per Application, so what is derived from it per
 * object can be kept.
 */
const ownManifestView = (application: Application, memo: Memo | undefined): Application =>
  recall(memo, OWN_MANIFEST_VIEWS, application) ??
  keep(memo, OWN_MANIFEST_VIEWS, application, withManifest(application, [...manifestOf(application)]));

const OWN_MANIFEST_VIEWS = memoTable<Application, Application>('own-manifest view per Application object');

/**
 * Decoding is the boundary between what the API server holds (anything a tenant wrote) and what the
 * planner may assume. Memoized per object: an unchanged object (same identity in the informer
 * cache) is decoded once, and its decoded spec keeps its identity for the planner's caches.
 */
const DECODED = memoTable<Resource, E.Either<ReadonlyArray<Issue>, Application>>('decoded Application per object');

export const decodedApplication = (object: Resource, memo?: Memo): E.Either<ReadonlyArray<Issue>, Application> =>
  remember(memo, DECODED, object, (stored) => decodeApplication(withReadableStatus(stored)));

/**
 * An object being deleted whose spec no longer decodes is still cleaned up, never left Terminating
 * with its children: they are known from its status, so it is planned with an empty manifest (every
 * child it owns is deleted, then the finalizer released), as the ServiceAccount its spec names when
 * that name is valid (under `--require-service-account` it must be). Left when it is not being
 * deleted, or when even that does not decode (then it stays Stalled InvalidSpec).
 */
const forDeletion = (object: Resource): E.Either<ReadonlyArray<Issue>, Application> => {
  if (object.metadata.deletionTimestamp === undefined) return E.left([]);
  const spec = isJsonObject(object.spec) ? object.spec : {};
  const account = getOwn(spec, 'serviceAccountName');
  const status = decodeWith(
    ApplicationStatusCodec,
    readStoredStatus(isJsonObject(object.status) ? object.status : {}),
    'status',
  );
  const kreconcileStatus = E.isRight(status) ? kreconcileStatusFieldsOf(status.right) : {};
  const shaped = {
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: object.metadata,
    spec: { manifest: [], ...(isServiceAccountName(account) ? { serviceAccountName: account } : {}) },
    status: kreconcileStatus,
  };
  return E.map((application: Application): Application => ({
    ...application,
    apiVersion: object.apiVersion,
    kind: object.kind,
  }))(decodeApplication(shaped));
};

/**
 * An Application that does not decode is `Stalled InvalidSpec`, naming every path: the conditions
 * and observedGeneration are written (the rest of the status is kept, to prune once it is fixed);
 * nothing else is planned or done until the object changes.
 */
const stallUndecodable = (
  object: Resource,
  issues: ReadonlyArray<Issue>,
  deps: ReconcileDeps,
): Promise<ReconcileResult> => stallWithConditions(object, 'InvalidSpec', issues.map(showIssue).join('; '), deps);

/**
 * `Stalled` with `reason` before anything is planned or written: only the conditions and
 * observedGeneration are written (the rest of the status is kept), and nothing else is done until
 * the object changes.
 */
const stallWithConditions = async (
  object: Resource,
  reason: 'InvalidSpec' | 'TooLarge',
  message: string,
  deps: ReconcileDeps,
): Promise<ReconcileResult> => {
  const generation = typeof object.metadata.generation === 'number' ? object.metadata.generation : undefined;
  const previous = decodeWith(
    ApplicationStatusCodec,
    readStoredStatus(isJsonObject(object.status) ? object.status : {}),
    'status',
  );
  const conditions = conditionsFor({
    verdict: { _tag: 'Stalled', reason, message },
    previous: E.isRight(previous) ? previous.right.conditions : undefined,
    now: deps.now(),
    generation,
  });
  const ref: ObjectRef = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    namespace: object.metadata.namespace ?? 'default',
  };
  const error =
    reason === 'TooLarge'
      ? clusterError('BadRequest', message, { code: 413, ref })
      : clusterError('Invalid', `the ${object.kind} does not decode: ${message}`, { code: 422, ref });
  const status: JsonObject = { conditions, ...defined({ observedGeneration: generation }) };
  const unchanged = E.isRight(previous) && jsonEqual(previous.right.conditions ?? [], conditions);
  if (unchanged) return { _tag: 'Failed', error, terminal: true, statusWritten: false };
  // The status as a whole may be what does not decode: replace it then (an embedder's primary: only
  // kreconcile's fields of it), else only its conditions.
  const operations: E.Either<ClusterError, ReadonlyArray<JsonPatchOperation>> = E.isRight(previous) &&
  isJsonObject(object.status)
    ? E.right(Object.entries(status).map(([key, value]) => ({ op: 'add' as const, path: `/status/${key}`, value })))
    : await statusOperations(ref, status, deps);
  const written = E.isLeft(operations)
    ? operations
    : await deps.cluster.patchStatus(ref, { type: 'json', operations: operations.right })();
  return { _tag: 'Failed', error, terminal: true, statusWritten: E.isRight(written) };
};

const manifestOf = (application: Application): ReadonlyArray<Resource> =>
  isJsonArray(application.spec?.manifest) ? (application.spec.manifest ?? []) : [];

const withManifest = (application: Application, manifest: ReadonlyArray<Resource>): Application => ({
  ...application,
  spec: { ...application.spec, manifest },
});

const ownerOf = (application: Application): { readonly namespace: string; readonly name: string } => ({
  namespace: application.metadata.namespace ?? 'default',
  name: application.metadata.name,
});

const failed = (
  error: ClusterError,
  attempt: number,
  deps: ReconcileDeps,
  plan?: Plan,
  execution?: Execution,
): ReconcileResult => {
  const decision = errorPolicy(error, attempt, deps.random());
  return {
    _tag: 'Failed',
    error,
    terminal: decision._tag === 'Terminal',
    statusWritten: false,
    ...(decision._tag === 'Retry' ? { retryAfterMs: decision.afterMs } : {}),
    ...(plan ? { plan } : {}),
    ...(execution ? { execution } : {}),
  };
};

/**
 * `execution` with its failure's text free of every value of every Secret the plan touches (its
 * bodies and patches, the live objects): the API server may quote them (issue 19), and the text
 * becomes the Stalled condition, Events and log lines. Computed only when a write failed.
 */
const withoutEchoedSecrets = (execution: Execution, planned: Plan, live: ReadonlyArray<Resource>): Execution => {
  const failure = execution.failure;
  if (failure === undefined) return execution;
  const written = planned.actions.flatMap((action): ReadonlyArray<JsonValue> => {
    if (action.type === 'create' || action.type === 'recreate') return [action.body];
    // A Secret's patch value is a whole Secret, a field of one or a value: wrapped as data so each form is found.
    return action.type === 'patch' && action.ref.apiVersion === 'v1' && action.ref.kind === 'Secret'
      ? action.patch.flatMap((operation) =>
          operation.op === 'remove' ? [] : [{ apiVersion: 'v1', kind: 'Secret', data: patchValues(operation.value) }],
        )
      : [];
  });
  const error = redactClusterError(failure.error, secretTexts([...written, ...live]));
  return error === failure.error ? execution : { ...execution, failure: { ...failure, error } };
};

/** The strings of a patch value, keyed by position (only their texts matter). */
const patchValues = (value: JsonValue): JsonObject =>
  objectFromEntries(stringsIn(value).map((text, i) => [String(i), text] as const));

const stringsIn = (value: JsonValue): ReadonlyArray<string> =>
  typeof value === 'string'
    ? [value]
    : isJsonArray(value)
      ? value.flatMap(stringsIn)
      : isJsonObject(value)
        ? Object.values(value).flatMap((inner) => stringsIn(inner ?? null))
        : [];

/**
 * The condition a failed write sets: Stalled when retrying cannot help (said in the ServiceAccount's
 * words when it was refused access), Progressing when the server refused for now, else none.
 */
const failureVerdict = (
  decision: ErrorDecision,
  failure: ExecutionFailure,
  refused: string | undefined,
): Verdict | undefined =>
  decision._tag === 'Terminal'
    ? {
        _tag: 'Stalled',
        reason: decision.reason,
        message:
          refused === undefined
            ? decision.detail === undefined
              ? `${failure.action.type} failed: ${showClusterError(failure.error)}`
              : `${failure.action.type} of ${showRef(failure.action.ref)} failed: ${decision.detail}`
            : decision.detail === undefined
              ? refused
              : `${refused} (${decision.detail})`,
      }
    : decision.refusal === undefined
      ? undefined
      : // Refused for now (a terminating CRD or namespace): said as the server said it, and retried.
        {
          _tag: 'Progressing',
          reason: decision.refusal.reason,
          message: `${failure.action.type} of ${showRef(failure.action.ref)} refused for now, retrying: ${decision.refusal.message}`,
        };

/** Records what succeeded before the failure; a terminal failure also marks the Application Stalled. */
const failedExecution = async (
  planned: Plan,
  execution: Execution,
  application: Application,
  attempt: number,
  deps: ReconcileDeps,
  access: ChildCluster,
): Promise<ReconcileResult> => {
  const failure = execution.failure!;
  const decision = errorPolicy(failure.error, attempt, deps.random(), { guardedPatch: failure.guardedPatch });
  const verdict = failureVerdict(decision, failure, forbiddenMessage(accountOf(access), failure.error, failure.action));
  const status: ApplicationStatus =
    verdict === undefined
      ? execution.status
      : {
          ...execution.status,
          conditions: conditionsFor({
            verdict,
            previous: application.status?.conditions,
            now: deps.now(),
            generation: application.metadata.generation,
          }),
        };
  const written = await writeStatus(
    execution.application,
    application.status,
    redactStatus(status, ownerOf(application)),
    deps,
  );
  return {
    _tag: 'Failed',
    error: failure.error,
    terminal: decision._tag === 'Terminal',
    plan: planned,
    execution,
    statusWritten: E.isRight(written) && written.right,
    ...(decision._tag === 'Retry' ? { retryAfterMs: decision.afterMs } : {}),
  };
};

/**
 * Status subresource write of an already redacted status, skipped when nothing changed; a vanished Application is not
 * an error.
 */
const writeStatus = (
  application: Application,
  before: ApplicationStatus | undefined,
  after: ApplicationStatus,
  deps: ReconcileDeps,
): Promise<E.Either<ClusterError, boolean>> =>
  sameStatus(before ?? {}, after, deps.memo) ? STATUS_UNCHANGED : patchStatus(application, after, deps);

/** Writes `after` as the status of `application`; a vanished Application is not an error. */
const patchStatus = async (
  application: Application,
  after: ApplicationStatus,
  deps: ReconcileDeps,
): Promise<E.Either<ClusterError, boolean>> => {
  const ref = {
    apiVersion: application.apiVersion,
    kind: application.kind,
    name: application.metadata.name,
    namespace: application.metadata.namespace ?? 'default',
  };
  // A JSON Patch `add /status` (replaces the whole status, or creates it) stores exactly what was
  // computed: a merge patch would delete the observer schema's `null` leaves on the API server, so the
  // stored status would never equal the next computed one and every reconcile would write again.
  // Stored packed (app/status/stored-status.ts): what regenerates is a reference, the rest deflated.
  const packed = await writeStoredStatus(ref, storedStatus(after), deps);
  if (E.isLeft(packed) || packed.right === 'kept') return E.map((written: Written) => written !== 'gone')(packed);
  // A CRD older than the operator prunes `status.manifests` (unknown to its schema): the lists are
  // written as before rather than lost, until `kreconcile crd` is applied (docs/decisions/0023-status-size.md).
  const unpacked = await writeStoredStatus(ref, unpackedStatus(after), deps);
  return E.map((written: Written) => written !== 'gone')(unpacked);
};

type Written = 'kept' | 'pruned' | 'gone';

/** Writes a status as stored; `pruned` when the server dropped the packed lists it was sent (an older CRD). */
const writeStoredStatus = async (
  ref: ObjectRef,
  stored: JsonObject,
  deps: ReconcileDeps,
): Promise<E.Either<ClusterError, Written>> => {
  const operations = await statusOperations(ref, stored, deps);
  if (E.isLeft(operations)) return operations;
  const result = await deps.cluster.patchStatus(ref, { type: 'json', operations: operations.right })();
  if (E.isLeft(result)) return result.left._tag === 'NotFound' ? E.right('gone') : E.left(result.left);
  const sent = getOwn(stored, STORED_MANIFESTS_FIELD) !== undefined;
  return E.right(sent && getIn(result.right, ['status', STORED_MANIFESTS_FIELD]) === undefined ? 'pruned' : 'kept');
};

/**
 * `jsonEqual` of a stored and a computed status, where entries of the status' lists (observed and
 * applied manifests, the observer schema: most of a status) proven equal once are not compared
 * again: each reconcile compares the status it computed with the stored one, and for an unchanged
 * Application both keep their entries' identity (the informer's object, the planner's per-spec
 * caches), so a resync compares them by identity instead of walking every field. What was proven
 * is kept per stored status, one memo entry (not one per list entry): the computed status last
 * found equal to it, whose entries stand for theirs.
 */
const sameStatus = (before: JsonObject, after: JsonObject, memo: Memo | undefined): boolean => {
  if (before === after) return true;
  const proven = recall(memo, PROVEN_EQUAL, before);
  if (proven === after) return true;
  let count = 0;
  let walked = false;
  for (const key in after) {
    if (!hasOwn(after, key)) continue;
    count++;
    if (!hasOwn(before, key)) return false;
    const was = before[key];
    const is = after[key];
    if (was === is) continue;
    if (isJsonArray(was) && isJsonArray(is)) {
      if (was.length !== is.length) return false;
      const known = proven === undefined ? undefined : proven[key];
      const shown = isJsonArray(known) && known.length === is.length ? known : undefined;
      for (let i = 0; i < is.length; i++) {
        const entry = is[i];
        if (entry === was[i] || (shown !== undefined && entry === shown[i])) continue;
        if (!jsonEqual(was[i], entry)) return false;
        walked = true;
      }
    } else if (!jsonEqual(was, is)) return false;
  }
  if (count !== ownKeyCount(before)) return false;
  // Only what took a walk to prove is news: a status proven by identity alone leaves the memo as it is.
  if (walked || proven === undefined) keep(memo, PROVEN_EQUAL, before, after);
  return true;
};

/** For each stored status, the computed status last proven equal to it (values are never mutated). */
const PROVEN_EQUAL = memoTable<JsonObject, JsonObject>('computed status last proven equal, per stored status');

/**
 * The status write's JSON Patch: `add /status` for an Application; for another kind (`deps.primary`), computed against
 * the object's status as it stands now, read again before each write (a status written earlier in this reconcile, or
 * by the object's author meanwhile, is what the patch's `remove`s must match).
 */
const statusOperations = async (
  ref: ObjectRef,
  status: JsonObject,
  deps: ReconcileDeps,
): Promise<E.Either<ClusterError, ReadonlyArray<JsonPatchOperation>>> => {
  if (deps.primary === undefined) return E.right([{ op: 'add', path: '/status', value: status }]);
  const reading = deps.reads?.application?.(ref) ?? deps.cluster.get(ref)();
  const read = reading instanceof Promise ? await reading : reading;
  const primary = deps.primary;
  return E.map((current: O.Option<Resource>) =>
    primary.statusPatch(O.isSome(current) ? current.value.status : undefined, status),
  )(read);
};
