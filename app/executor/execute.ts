/**
 * The executor: carries out a Plan through the ports, in order, feeding every response back
 * through the core's update functions; stops at the first failure with a classified error.
 * Writes of one wave (consecutive creates, patches or deletes of one kind: the plan's order puts
 * nothing between them) are sent concurrently, a few at a time; waves run one after another.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  FIELD_MANAGER,
  FINALIZER,
  conflictingManagers,
  escapePointerToken,
  isJsonObject,
  ownKeyCount,
  type JsonPatchOperation,
  type Patch,
  type ServerSideApplyIntent,
  removeFromLastObservedManifest,
  updateLastAppliedManifestFromResponse,
  updateLastObservedManifestFromResponse,
  refKey,
  type Action,
  type Application,
  type ApplicationStatus,
  type ClusterError,
  type ClusterWriter,
  type CreateAction,
  type DeleteAction,
  type DeleteOptions,
  type ObjectRef,
  type PatchAction,
  type Plan,
  type RecreateAction,
  type Resource,
  type WriteOptions,
} from '../../core/internal.js';
import { defined } from '../../core/json/defined.js';

/** What happened to one action. */
export type ActionResult = { readonly action: Action; readonly response?: Resource };

export type ExecutionFailure = {
  readonly action: Action;
  readonly error: ClusterError;
  readonly guardedPatch: boolean;
};

export type Execution = {
  /** Actions that succeeded, in plan order (with a failure: those of its wave that succeeded too). */
  readonly done: ReadonlyArray<ActionResult>;
  /** The plan's status updated with every response. */
  readonly status: ApplicationStatus;
  /** The Application as last written (finalizer changes), when it was written. */
  readonly application: Application;
  /** The first failure in plan order; actions of later waves were not attempted. */
  readonly failure?: ExecutionFailure;
};

type Step = E.Either<
  ClusterError,
  { readonly status: ApplicationStatus; readonly response?: Resource; readonly application?: Application }
>;

/** Writes of one wave in flight at once, per reconcile. */
export const WAVE_CONCURRENCY = 4;

const NOTHING_DONE: ReadonlyArray<ActionResult> = Object.freeze([]);

/**
 * The execution of a plan without actions (every resync of an in-sync Application): nothing sent,
 * the plan's status. Synchronous, so a caller that checks first waits for no promise.
 */
export const nothingExecuted = (plan: Plan, application: Application): Execution => ({
  done: NOTHING_DONE,
  status: plan.status,
  application,
});

/**
 * Executes `plan` for `application`.
 * Guarantees: waves run one at a time in plan order; the writes of a wave (creates, patches or
 * deletes of one kind, consecutive in the plan) are sent at most `WAVE_CONCURRENCY` at a time and
 * their answers are taken in plan order; nothing after a failed wave runs, and the failure reported
 * is the first in plan order (the wave's writes that succeeded are `done`); a patch whose `test` guard
 * fails is rejected whole by the server (JSON Patch is atomic), never half-applied.
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
  /**
   * Annotations the finalizer's metadata patch also sets when it adds the finalizer (the reconcile's
   * record of the kinds it is about to create: one write instead of two).
   */
  readonly finalizerAnnotations?: Readonly<Record<string, string>>;
}): Promise<Execution> => {
  if (args.plan.actions.length === 0) return nothingExecuted(args.plan, args.application);
  let status = args.plan.status;
  let application = args.application;
  const done: ActionResult[] = [];
  let failure: ExecutionFailure | undefined;
  const base = {
    cluster: args.cluster,
    children: args.children ?? args.cluster,
    ...defined({ guards: args.guards, finalizerAnnotations: args.finalizerAnnotations }),
  };
  // A skip (withheld by kreconcile.io/apply) is shown by the plan, never carried out nor reported as done.
  for (const wave of wavesOf(args.plan.actions.filter((action) => action.type !== 'skip'))) {
    const sent = wave.map((action) => guarded(action, args.guards));
    const writes = sent.filter(isWaveAction);
    const answers =
      writes.length > 1 && writes.length === sent.length
        ? await boundedAll(writes, WAVE_CONCURRENCY, (action) => send(action, { status, application, ...base }))
        : undefined;
    for (const [index, one] of sent.entries()) {
      const action = wave[index] ?? one;
      const scope: Scope = { status, application, ...base };
      const answer = answers?.[index];
      const step =
        answer === undefined || !isWaveAction(one) ? await runAction(one, scope) : settle(one, answer, scope);
      if (E.isLeft(step)) {
        failure ??= { action, error: step.left, guardedPatch: isGuarded(one, scope) };
        continue;
      }
      status = step.right.status;
      application = step.right.application ?? application;
      done.push({ action, ...defined({ response: step.right.response }) });
    }
    if (failure !== undefined) return { done, status, application, failure };
  }
  return { done, status, application };
};

/** The writes a wave may hold: independent of each other once the plan put them side by side. */
type WaveAction = CreateAction | PatchAction | DeleteAction;

const isWaveAction = (action: Action): action is WaveAction =>
  action.type === 'create' || action.type === 'patch' || action.type === 'delete';

/** The plan's actions cut into waves: runs of creates, patches or deletes of one type and kind; anything else alone. */
const wavesOf = (actions: ReadonlyArray<Action>): ReadonlyArray<ReadonlyArray<Action>> => {
  const waves: Action[][] = [];
  for (const action of actions) {
    const last = waves.at(-1)?.at(-1);
    const joins =
      last !== undefined &&
      isWaveAction(action) &&
      last.type === action.type &&
      last.ref.apiVersion === action.ref.apiVersion &&
      last.ref.kind === action.ref.kind;
    if (joins) waves.at(-1)?.push(action);
    else waves.push([action]);
  }
  return waves;
};

/** `run` over `items` with at most `limit` in flight; answers in the order of `items`. */
const boundedAll = async <T, R>(
  items: ReadonlyArray<T>,
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<ReadonlyArray<R>> => {
  const answers: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) {
      const item = items[index];
      if (item !== undefined) answers[index] = await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return answers;
};

/** What the server answered one write of a wave. */
type Answer =
  | { readonly type: 'written'; readonly result: E.Either<ClusterError, Resource> }
  | { readonly type: 'deleted'; readonly result: E.Either<ClusterError, O.Option<Resource>> };

const send = async (action: WaveAction, scope: Scope): Promise<Answer> => {
  switch (action.type) {
    case 'create':
      return { type: 'written', result: await scope.children.create(action.body, WRITE_OPTIONS)() };
    case 'patch':
      return {
        type: 'written',
        result: await (action.serverSideApply === undefined
          ? scope.children.patch(action.ref, { type: 'json', operations: action.patch }, WRITE_OPTIONS)()
          : serverSideApply(action.ref, action.serverSideApply, scope.children)),
      };
    case 'delete':
      return {
        type: 'deleted',
        result: await scope.children.delete(action.ref, deleteOptions(action.ref, scope.guards))(),
      };
  }
};

/** Folds one answer into the status, as `runAction` does for a write sent alone. */
const settle = (action: WaveAction, answer: Answer, scope: Scope): Step =>
  answer.type === 'written' ? learnFrom(answer.result, scope) : deleted(action, answer.result, scope);

/** The action with its guard: a patch tests the resourceVersion first (JSON Patch is atomic). */
const guarded = (action: Action, guards: ReadonlyMap<string, string> | undefined): Action => {
  const resourceVersion = guards?.get(refKey(action.ref));
  if (resourceVersion === undefined || action.type !== 'patch') return action;
  return {
    ...action,
    patch: [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }, ...action.patch],
  };
};

/** `cluster` writes the Application (finalizers); `children` writes its children (possibly impersonating). */
type Scope = {
  readonly status: ApplicationStatus;
  readonly application: Application;
  readonly cluster: ClusterWriter;
  readonly children: ClusterWriter;
  readonly guards?: ReadonlyMap<string, string>;
  readonly finalizerAnnotations?: Readonly<Record<string, string>>;
};

/**
 * Whether the write of `action` carried a `test` guard: a 422 then means the object moved since it
 * was read (re-plan and retry), not that the input is invalid.
 */
const isGuarded = (action: Action, scope: Scope): boolean => {
  if (action.type === 'patch') return action.patch.some((op) => op.op === 'test');
  if (action.type !== 'addFinalizer' && action.type !== 'removeFinalizer') return false;
  const patch = finalizerPatch(action.type, scope);
  return patch.type === 'json' && patch.operations.some((op) => op.op === 'test');
};

const runAction = async (action: Action, scope: Scope): Promise<Step> => {
  switch (action.type) {
    case 'create':
    case 'patch':
    case 'delete':
      return settle(action, await send(action, scope), scope);
    case 'recreate':
      return recreate(action, scope);
    case 'conflict':
    case 'forbidden':
    case 'wait':
    case 'skip':
      return E.right({ status: scope.status });
    case 'addFinalizer':
    case 'removeFinalizer':
      return finalizerWritten(await writeFinalizer(action.type, scope)(), scope);
  }
};

/**
 * Children are written with strict field validation: a field the kind does not have is refused,
 * naming it (`Stalled InvalidSpec`), instead of dropped and patched again on every reconcile.
 */
const STRICT: WriteOptions = { fieldValidation: 'Strict' };

/**
 * Every write is made as field manager `kreconcile`: in ServerSideApply mode a later apply's conflict
 * with a create or JSON Patch of ours is then the recognisable self-conflict below, and in every mode
 * the fields kreconcile wrote are told apart from other managers' in managedFields (docs/field-owners.md).
 */
const WRITE_OPTIONS: WriteOptions = { ...STRICT, fieldManager: FIELD_MANAGER };

/**
 * A server-side apply as `kreconcile`. kube-apiserver records a create as an `Update` by
 * `kreconcile`, a different manager entry from `kreconcile`'s `Apply`, so the first apply that
 * changes a field of an object we created conflicts with ourselves (measured on 1.36): a conflict
 * with `kreconcile` alone is taken over with `force`; any other manager is reported.
 */
const serverSideApply = async (
  ref: ObjectRef,
  intent: ServerSideApplyIntent,
  children: ClusterWriter,
): Promise<E.Either<ClusterError, Resource>> => {
  const apply = (force: boolean) =>
    children.patch(
      ref,
      {
        type: 'apply',
        body: intent.body,
        fieldManager: FIELD_MANAGER,
        ...(force ? { force } : {}),
      },
      STRICT,
    )();
  if (intent.beforeApply.length > 0) {
    // Against the object the plan saw (its guards hold there), before the apply moves list elements.
    const removed = await children.patch(ref, { type: 'json', operations: intent.beforeApply }, STRICT)();
    if (E.isLeft(removed)) return removed;
  }
  const first = await apply(intent.force);
  const managers = E.isLeft(first) ? conflictingManagers(first.left) : [];
  return managers.length > 0 && managers.every((manager) => manager === FIELD_MANAGER) ? apply(true) : first;
};

const deleteOptions = (ref: ObjectRef, guards: ReadonlyMap<string, string> | undefined): DeleteOptions => {
  const resourceVersion = guards?.get(refKey(ref));
  return {
    propagationPolicy: 'Background',
    ...(resourceVersion === undefined ? {} : { preconditions: { resourceVersion } }),
  };
};

/**
 * Recreation: delete, then create once the object is gone. An object kept by finalizers is left
 * terminating: the next plan waits for it to go and then creates it.
 */
const recreate = async (action: RecreateAction, scope: Scope): Promise<Step> => {
  const removal = await scope.children.delete(action.ref, deleteOptions(action.ref, scope.guards))();
  const gone = E.isRight(removal) ? O.isNone(removal.right) : removal.left._tag === 'NotFound';
  if (E.isLeft(removal) && !gone) return E.left(removal.left);
  if (!gone && E.isRight(removal) && O.isSome(removal.right))
    return E.right({ status: scope.status, response: removal.right.value });
  return learnFrom(await scope.children.create(action.body, STRICT)(), scope);
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
        lastAppliedManifest: updateLastAppliedManifestFromResponse({
          lastAppliedManifest: scope.status.lastAppliedManifest ?? [],
          mangledObserverSchema: mangled,
          response,
          namespace,
        }),
        lastObservedManifest: updateLastObservedManifestFromResponse({
          lastObservedManifest: scope.status.lastObservedManifest ?? [],
          mangledObserverSchema: mangled,
          response,
          namespace,
        }),
      },
    };
  })(result);

/** 404 on delete counts as done; an object kept by finalizers stays observed until it is gone. */
const deleted = (action: Action, result: E.Either<ClusterError, O.Option<Resource>>, scope: Scope): Step => {
  const gone = E.isRight(result) ? O.isNone(result.right) : result.left._tag === 'NotFound';
  if (E.isLeft(result) && !gone) return E.left(result.left);
  const lastObserved = scope.status.lastObservedManifest ?? [];
  const reference = {
    apiVersion: action.ref.apiVersion,
    kind: action.ref.kind,
    metadata: { name: action.ref.name, ...(action.ref.namespace ? { namespace: action.ref.namespace } : {}) },
  };
  if (gone)
    return E.right({
      status: {
        ...scope.status,
        lastObservedManifest: removeFromLastObservedManifest(lastObserved, reference, namespaceOf(scope)),
      },
    });
  const pending = E.isRight(result) && O.isSome(result.right) ? result.right.value : undefined;
  return E.right({ status: scope.status, ...defined({ response: pending }) });
};

/**
 * Finalizer edits are guarded by a `test` of the list we saw, so a concurrent edit is not lost.
 * Adding it may set annotations too (`finalizerAnnotations`), merged into those the object has:
 * with no finalizer yet, one merge patch (the list set as `add` would, the annotations merged key by
 * key); with others' finalizers, the guarded JSON Patch with an `add` per key, or, when the object
 * has no annotations, an `add` of the map guarded by a `test` of the resourceVersion read (the `add`
 * would replace annotations someone added meanwhile).
 */
const writeFinalizer = (type: 'addFinalizer' | 'removeFinalizer', scope: Scope) =>
  scope.cluster.patch(
    {
      apiVersion: scope.application.apiVersion,
      kind: scope.application.kind,
      name: scope.application.metadata.name,
      namespace: namespaceOf(scope),
    },
    finalizerPatch(type, scope),
  );

const finalizerPatch = (type: 'addFinalizer' | 'removeFinalizer', scope: Scope): Patch => {
  const current = scope.application.metadata.finalizers;
  const next =
    type === 'addFinalizer' ? [...(current ?? []), FINALIZER] : (current ?? []).filter((f) => f !== FINALIZER);
  const annotations = type === 'addFinalizer' ? scope.finalizerAnnotations : undefined;
  const annotating = annotations !== undefined && ownKeyCount(annotations) > 0;
  if (current === undefined)
    return annotating
      ? { type: 'merge', body: { metadata: { finalizers: next, annotations: { ...annotations } } } }
      : { type: 'json', operations: [{ op: 'add', path: '/metadata/finalizers', value: next }] };
  const finalizers: ReadonlyArray<JsonPatchOperation> = [
    { op: 'test', path: '/metadata/finalizers', value: current },
    { op: 'replace', path: '/metadata/finalizers', value: next },
  ];
  return {
    type: 'json',
    operations: annotating ? [...finalizers, ...annotationOperations(scope.application, annotations)] : finalizers,
  };
};

const annotationOperations = (
  application: Application,
  annotations: Readonly<Record<string, string>>,
): ReadonlyArray<JsonPatchOperation> => {
  if (isJsonObject(application.metadata.annotations))
    return Object.entries(annotations).map(([key, value]) => ({
      op: 'add',
      path: `/metadata/annotations/${escapePointerToken(key)}`,
      value,
    }));
  const resourceVersion = application.metadata.resourceVersion;
  return [
    ...(resourceVersion === undefined
      ? []
      : [{ op: 'test' as const, path: '/metadata/resourceVersion', value: resourceVersion }]),
    { op: 'add', path: '/metadata/annotations', value: { ...annotations } },
  ];
};

const finalizerWritten = (result: E.Either<ClusterError, Resource>, scope: Scope): Step =>
  E.map((response: Resource) => ({
    status: scope.status,
    application: { ...scope.application, metadata: response.metadata },
  }))(result);
