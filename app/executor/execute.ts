/**
 * The executor: carries out a Plan through the ports, in order, feeding every response back
 * through the core's update functions; stops at the first failure with a classified error.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  FIELD_MANAGER, FINALIZER, conflictingManagers, type ServerSideApplyIntent, removeFromLastObservedManifest, updateLastAppliedManifestFromResponse, updateLastObservedManifestFromResponse,
  refKey, type Action, type Application, type ApplicationStatus, type ClusterError, type ClusterWriter, type DeleteOptions, type ObjectRef, type Plan, type RecreateAction, type Resource, type WriteOptions,
} from '../../core/index.js';

/** What happened to one action. */
export type ActionResult = { readonly action: Action; readonly response?: Resource };

export type ExecutionFailure = { readonly action: Action; readonly error: ClusterError; readonly guardedPatch: boolean };

export type Execution = {
  /** Actions that succeeded, in order. */
  readonly done: ReadonlyArray<ActionResult>;
  /** The plan's status updated with every response. */
  readonly status: ApplicationStatus;
  /** The Application as last written (finalizer changes), when it was written. */
  readonly application: Application;
  /** The first failure; later actions were not attempted. */
  readonly failure?: ExecutionFailure;
};

type Step = E.Either<ClusterError, { readonly status: ApplicationStatus; readonly response?: Resource; readonly application?: Application }>;

/**
 * Executes `plan` for `application`.
 * Guarantees: actions run one at a time in plan order; nothing after a failure runs; a patch
 * whose `test` guard fails is rejected whole by the server (JSON Patch is atomic), never half-applied.
 */
export const executePlan = async (args: {
  readonly plan: Plan;
  readonly application: Application;
  /** Writes the Application itself (finalizers): the operator's identity. */
  readonly cluster: ClusterWriter;
  /** Writes the children (create, patch, delete); default `cluster`. An impersonating client goes here. */
  readonly children?: ClusterWriter;
  /**
   * The resourceVersion each patched or deleted object must still have, by `refKey` (saved
   * plans): a patch then starts with a `test` of it, a delete carries it as a precondition.
   */
  readonly guards?: ReadonlyMap<string, string>;
}): Promise<Execution> => {
  let status = args.plan.status;
  let application = args.application;
  const done: ActionResult[] = [];
  for (const action of args.plan.actions) {
    const sent = guarded(action, args.guards);
    const step = await runAction(sent, { status, application, cluster: args.cluster, children: args.children ?? args.cluster, ...(args.guards === undefined ? {} : { guards: args.guards }) });
    if (E.isLeft(step)) {
      const guardedPatch = sent.type === 'patch' && sent.patch.some((op) => op.op === 'test');
      return { done, status, application, failure: { action, error: step.left, guardedPatch } };
    }
    status = step.right.status;
    application = step.right.application ?? application;
    done.push({ action, ...(step.right.response === undefined ? {} : { response: step.right.response }) });
  }
  return { done, status, application };
};

/** The action with its guard: a patch tests the resourceVersion first (JSON Patch is atomic). */
const guarded = (action: Action, guards: ReadonlyMap<string, string> | undefined): Action => {
  const resourceVersion = guards?.get(refKey(action.ref));
  if (resourceVersion === undefined || action.type !== 'patch') return action;
  return { ...action, patch: [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }, ...action.patch] };
};

/** `cluster` writes the Application (finalizers); `children` writes its children (possibly impersonating). */
type Scope = { readonly status: ApplicationStatus; readonly application: Application; readonly cluster: ClusterWriter; readonly children: ClusterWriter; readonly guards?: ReadonlyMap<string, string> };

const runAction = async (action: Action, scope: Scope): Promise<Step> => {
  switch (action.type) {
    case 'create': return learnFrom(await scope.children.create(action.body, writeOptions(scope))(), scope);
    case 'patch': return learnFrom(await (action.serverSideApply === undefined
      ? scope.children.patch(action.ref, { type: 'json', operations: action.patch }, writeOptions(scope))()
      : serverSideApply(action.ref, action.serverSideApply, scope.children)), scope);
    case 'delete': return deleted(action, await scope.children.delete(action.ref, deleteOptions(action.ref, scope.guards))(), scope);
    case 'recreate': return recreate(action, scope);
    case 'conflict':
    case 'forbidden':
    case 'wait': return E.right({ status: scope.status });
    case 'addFinalizer':
    case 'removeFinalizer': return finalizerWritten(await writeFinalizer(action.type, scope)(), scope);
  }
};

/**
 * In ServerSideApply mode creates and JSON Patches (sent when a list's names are off position) are
 * made as `kreconcile` too, so a later apply's conflict with them is the recognisable self-conflict below.
 */
const writeOptions = (scope: Scope): WriteOptions | undefined =>
  (scope.application.spec.applyMode === 'ServerSideApply' ? { fieldManager: FIELD_MANAGER } : undefined);

/**
 * A server-side apply as `kreconcile`. kube-apiserver records a create as an `Update` by
 * `kreconcile`, a different manager entry from `kreconcile`'s `Apply`, so the first apply that
 * changes a field of an object we created conflicts with ourselves (measured on 1.36): a conflict
 * with `kreconcile` alone is taken over with `force`; any other manager is reported.
 */
const serverSideApply = async (ref: ObjectRef, intent: ServerSideApplyIntent, children: ClusterWriter): Promise<E.Either<ClusterError, Resource>> => {
  const apply = (force: boolean) => children.patch(ref, { type: 'apply', body: intent.body, fieldManager: FIELD_MANAGER, ...(force ? { force } : {}) })();
  if (intent.beforeApply.length > 0) {
    // Against the object the plan saw (its guards hold there), before the apply moves list elements.
    const removed = await children.patch(ref, { type: 'json', operations: intent.beforeApply })();
    if (E.isLeft(removed)) return removed;
  }
  const first = await apply(intent.force);
  const managers = E.isLeft(first) ? conflictingManagers(first.left) : [];
  return managers.length > 0 && managers.every((manager) => manager === FIELD_MANAGER) ? apply(true) : first;
};

const deleteOptions = (ref: ObjectRef, guards: ReadonlyMap<string, string> | undefined): DeleteOptions => {
  const resourceVersion = guards?.get(refKey(ref));
  return { propagationPolicy: 'Background', ...(resourceVersion === undefined ? {} : { preconditions: { resourceVersion } }) };
};

/**
 * Recreation: delete, then create once the object is gone. An object kept by finalizers is left
 * terminating: the next plan waits for it to go and then creates it.
 */
const recreate = async (action: RecreateAction, scope: Scope): Promise<Step> => {
  const removal = await scope.children.delete(action.ref, deleteOptions(action.ref, scope.guards))();
  const gone = E.isRight(removal) ? O.isNone(removal.right) : removal.left._tag === 'NotFound';
  if (E.isLeft(removal) && !gone) return E.left(removal.left);
  if (!gone && E.isRight(removal) && O.isSome(removal.right)) return E.right({ status: scope.status, response: removal.right.value });
  return learnFrom(await scope.children.create(action.body)(), scope);
};

const namespaceOf = (scope: Scope): string => scope.application.metadata.namespace ?? 'default';

/** Steps 7–8: learn unknown observed values and record the observation from the response. */
const learnFrom = (result: E.Either<ClusterError, Resource>, scope: Scope): Step =>
  E.map((response: Resource) => {
    const mangled = scope.status.mangledObserverSchema ?? [];
    const namespace = namespaceOf(scope);
    return {
      response,
      status: {
        ...scope.status,
        lastAppliedManifest: updateLastAppliedManifestFromResponse({ lastAppliedManifest: scope.status.lastAppliedManifest ?? [], mangledObserverSchema: mangled, response, namespace }),
        lastObservedManifest: updateLastObservedManifestFromResponse({ lastObservedManifest: scope.status.lastObservedManifest ?? [], mangledObserverSchema: mangled, response, namespace }),
      },
    };
  })(result);

/** 404 on delete counts as done; an object kept by finalizers stays observed until it is gone. */
const deleted = (action: Action, result: E.Either<ClusterError, O.Option<Resource>>, scope: Scope): Step => {
  const gone = E.isRight(result) ? O.isNone(result.right) : result.left._tag === 'NotFound';
  if (E.isLeft(result) && !gone) return E.left(result.left);
  const lastObserved = scope.status.lastObservedManifest ?? [];
  const reference = { apiVersion: action.ref.apiVersion, kind: action.ref.kind, metadata: { name: action.ref.name, ...(action.ref.namespace ? { namespace: action.ref.namespace } : {}) } };
  if (gone) return E.right({ status: { ...scope.status, lastObservedManifest: removeFromLastObservedManifest(lastObserved, reference, namespaceOf(scope)) } });
  const pending = E.isRight(result) && O.isSome(result.right) ? result.right.value : undefined;
  return E.right({ status: scope.status, ...(pending === undefined ? {} : { response: pending }) });
};

/** Finalizer edits are guarded by a `test` of the list we saw, so a concurrent edit is not lost. */
const writeFinalizer = (type: 'addFinalizer' | 'removeFinalizer', scope: Scope) => {
  const current = scope.application.metadata.finalizers;
  const ref = { apiVersion: scope.application.apiVersion, kind: scope.application.kind, name: scope.application.metadata.name, namespace: namespaceOf(scope) };
  const next = type === 'addFinalizer' ? [...(current ?? []), FINALIZER] : (current ?? []).filter((f) => f !== FINALIZER);
  const operations = current === undefined
    ? [{ op: 'add' as const, path: '/metadata/finalizers', value: next }]
    : [{ op: 'test' as const, path: '/metadata/finalizers', value: current }, { op: 'replace' as const, path: '/metadata/finalizers', value: next }];
  return scope.cluster.patch(ref, { type: 'json', operations });
};

const finalizerWritten = (result: E.Either<ClusterError, Resource>, scope: Scope): Step =>
  E.map((response: Resource) => ({ status: scope.status, application: { ...scope.application, metadata: response.metadata } as Application }))(result);
