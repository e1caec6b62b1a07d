/**
 * The end-to-end scenario shared by the real-API-server e2e suites: one Application whose
 * manifest mixes built-in kinds (ConfigMaps, Deployment, Service) and a custom resource (Widget),
 * plus what those suites need to drive it and to read the world back.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { expect } from 'vitest';
import {
  reconcileApplication,
  type ReconcileDeps,
  type ReconcileResult,
} from '../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  FINALIZER,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  OWNER_ANNOTATION,
  showClusterError,
  type Action,
  type Application,
  type Cluster,
  type Condition,
  type ConditionType,
  type JsonObject,
  type JsonValue,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import { eventually } from './eventually.js';
import { widgetGroup } from './test-crds.js';
import { withReadableStatus } from '../../app/status/stored-status.js';

export const WIDGET_API = `${widgetGroup}/v1`;

/** What the scenario's manifest can vary. */
export type ShopSpec = {
  readonly replicas?: number;
  /** Include the `extra` ConfigMap (removed from the spec later to see it deleted). */
  readonly extra?: boolean;
  readonly color?: string;
};

/** The children of the scenario's Application, by role. */
export const children = (namespace: string) =>
  ({
    config: { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web-config' },
    extra: { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'web-extra' },
    deployment: { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' },
    service: { apiVersion: 'v1', kind: 'Service', namespace, name: 'web' },
    widget: { apiVersion: WIDGET_API, kind: 'Widget', namespace, name: 'web-widget' },
  }) satisfies Record<string, ObjectRef>;

/** The manifest: namespaces left out on purpose (namespaced children default to the Application's). */
export const shopManifest = (spec: ShopSpec = {}): ReadonlyArray<Resource> => {
  const labels = { 'app.kubernetes.io/name': 'web' };
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', labels }, data: { LOG_LEVEL: 'info' } },
    ...(spec.extra === false
      ? []
      : [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-extra' }, data: { FEATURE: 'on' } }]),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels },
      spec: {
        replicas: spec.replicas ?? 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginxinc/nginx-unprivileged:1.27-alpine',
                ports: [{ name: 'http', containerPort: 8080 }],
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', labels },
      spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
    // `size` is left to the CRD's default: a server-defaulted, unobserved field.
    {
      apiVersion: WIDGET_API,
      kind: 'Widget',
      metadata: { name: 'web-widget' },
      spec: { color: spec.color ?? 'red', tags: ['a', 'b'] },
    },
  ] as ReadonlyArray<Resource>;
};

export const applicationRef = (namespace: string, name: string): ObjectRef => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace,
  name,
});

export const applicationObject = (namespace: string, name: string, manifest: ReadonlyArray<Resource>): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name, namespace },
  spec: { manifest },
});

/** The object as stored now, or undefined when it does not exist. */
export const readObject = async (cluster: Cluster, ref: ObjectRef): Promise<Resource | undefined> => {
  const got = await cluster.get(ref)();
  if (E.isLeft(got))
    throw new Error(`reading ${ref.kind} ${ref.namespace ?? ''}/${ref.name}: ${showClusterError(got.left)}`);
  return O.isSome(got.right) ? got.right.value : undefined;
};

/** The object as stored now; fails the test when it does not exist. */
export const readExisting = async (cluster: Cluster, ref: ObjectRef): Promise<Resource> => {
  const object = await readObject(cluster, ref);
  if (object === undefined) throw new Error(`${ref.kind} ${ref.namespace ?? ''}/${ref.name} does not exist`);
  return object;
};

/**
 * The Application with its stored status read back (app/status/stored-status.ts): the lists as the operator computed
 * them.
 */
export const readApplication = async (cluster: Cluster, ref: ObjectRef): Promise<Application> =>
  withReadableStatus(await readExisting(cluster, ref)) as unknown as Application;

/**
 * Replace an Application's spec the way a user's client does it against a live operator: read, change, update, and
 * on 409 Conflict (the operator wrote the status in between) read again and retry, as client-go's RetryOnConflict.
 */
export const updateApplicationSpec = async (cluster: Cluster, ref: ObjectRef, spec: JsonObject): Promise<void> => {
  for (let attempt = 1; ; attempt += 1) {
    const current = await readExisting(cluster, ref);
    const updated = await cluster.update({ ...current, spec })();
    if (E.isRight(updated)) return;
    if (updated.left._tag !== 'Conflict' || attempt === 10) throw new Error(showClusterError(updated.left));
  }
};

export const conditionOf = (application: Application, type: ConditionType): Condition | undefined =>
  application.status?.conditions?.find((condition) => condition.type === type);

/**
 * Waits (on a real server) until the Application's condition `type` matches `expected`; resolves with the Application.
 */
export const waitForCondition = (
  cluster: Cluster,
  ref: ObjectRef,
  type: ConditionType,
  expected: Partial<Condition>,
  timeoutMs = 30_000,
): Promise<Application> =>
  eventually(async () => {
    const application = await readApplication(cluster, ref);
    expect(conditionOf(application, type)).toMatchObject(expected);
    return application;
  }, timeoutMs);

/** `Ready=True`, not reconciling, not stalled, for the current generation. */
export const expectReady = (application: Application): void => {
  const generation = application.metadata.generation;
  expect(application.status?.observedGeneration).toBe(generation);
  expect(conditionOf(application, 'Ready')).toMatchObject({
    status: 'True',
    reason: 'Reconciled',
    observedGeneration: generation,
  });
  expect(conditionOf(application, 'Reconciling')).toMatchObject({ status: 'False', observedGeneration: generation });
  expect(conditionOf(application, 'Stalled')).toMatchObject({ status: 'False', observedGeneration: generation });
};

/** `Reconciling=True` (and not Ready) for the current generation: actions are outstanding. */
export const expectReconciling = (application: Application): void => {
  const generation = application.metadata.generation;
  expect(application.status?.observedGeneration).toBe(generation);
  expect(conditionOf(application, 'Reconciling')).toMatchObject({ status: 'True', observedGeneration: generation });
  expect(conditionOf(application, 'Ready')).toMatchObject({ status: 'False', observedGeneration: generation });
};

/** The ownership marks every child must carry: label, owner annotation, controller ownerReference. */
export const expectOwnedBy = (object: Resource, application: Application): void => {
  const where = `${object.kind} ${object.metadata.name}`;
  expect(object.metadata.labels?.[MANAGED_BY_LABEL], where).toBe(MANAGED_BY_VALUE);
  expect(object.metadata.annotations?.[OWNER_ANNOTATION], where).toBe(
    `${application.metadata.namespace}/${application.metadata.name}`,
  );
  expect(object.metadata.ownerReferences, where).toEqual([
    {
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      name: application.metadata.name,
      uid: application.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
};

export const hasFinalizer = (application: Application): boolean =>
  application.metadata.finalizers?.includes(FINALIZER) ?? false;

/** An action as comparable data: type, resource identity, and what it writes (body, patch, reason). */
export type ActionSummary = {
  readonly type: Action['type'];
  readonly resource: string;
  readonly body?: JsonValue;
  readonly patch?: JsonValue;
  readonly reason?: string;
};

export const resourceName = (ref: {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}): string => `${ref.apiVersion} ${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`;

export const summarizeAction = (action: Action): ActionSummary => ({
  type: action.type,
  resource: resourceName(action.ref),
  ...(action.type === 'create' ? { body: action.body } : {}),
  ...(action.type === 'patch' ? { patch: action.patch } : {}),
  ...(action.type === 'delete' || action.type === 'conflict' ? { reason: action.reason } : {}),
});

/** Just type and resource, e.g. `create v1 ConfigMap ns/web-config`. */
export const actionLine = (action: Action): string => `${action.type} ${resourceName(action.ref)}`;

/** The actions a reconcile carried out (every action of its plan: a Done reconcile stops at no failure). */
export const executedActions = (result: ReconcileResult): ReadonlyArray<Action> =>
  result._tag === 'Gone' ? [] : (result.execution?.done ?? []).map((done) => done.action);

export type Round = Extract<ReconcileResult, { _tag: 'Done' }> & {
  /** The Application as stored right after this reconcile (undefined once it is gone). */
  readonly after: Application | undefined;
};

/**
 * Calls `reconcileApplication` until a reconcile plans nothing (or the Application is gone), at
 * most `maxRounds` times. Every reconcile must succeed: nothing else acts meanwhile, so a
 * failure is a bug. Returns the reconciles that ran, each with the Application read back after it.
 */
export const reconcileUntilQuiet = async (
  ref: ObjectRef,
  deps: ReconcileDeps,
  maxRounds = 8,
): Promise<ReadonlyArray<Round>> => {
  const rounds: Round[] = [];
  for (let round = 1; round <= maxRounds; round++) {
    const result = await reconcileApplication(ref, deps);
    if (result._tag === 'Gone') return rounds;
    if (result._tag === 'Failed') {
      const action = result.execution?.failure?.action;
      throw new Error(
        `reconcile ${round} failed${action ? ` at ${actionLine(action)}` : ''}: ${showClusterError(result.error)}`,
      );
    }
    const after = (await readObject(deps.cluster, ref)) as Application | undefined;
    rounds.push({ ...result, after });
    if (result.plan.actions.length === 0 || after === undefined) return rounds;
  }
  throw new Error(
    `still acting after ${maxRounds} reconciles: last plan ${rounds.at(-1)?.plan.actions.map(actionLine).join(', ')}`,
  );
};

/** Every action executed across reconciles, in order. */
export const allActions = (rounds: ReadonlyArray<Round>): ReadonlyArray<Action> => rounds.flatMap(executedActions);

/** A JSON Patch op list without the `test` guards (what it changes). */
export const writesOf = (patch: JsonValue | undefined): ReadonlyArray<JsonObject> =>
  (Array.isArray(patch) ? patch : []).filter(
    (op): op is JsonObject =>
      typeof op === 'object' && op !== null && !Array.isArray(op) && (op as JsonObject).op !== 'test',
  );

/** Every reconcile an operator reports through `onReconciled`, for assertions on what it did. */
export type ReconcileLog = {
  readonly onReconciled: (key: string, result: ReconcileResult) => void;
  readonly entries: Array<{ readonly key: string; readonly result: ReconcileResult }>;
  /** Results for one Application key (`namespace/name`), in order. */
  resultsFor(key: string): ReadonlyArray<ReconcileResult>;
  /** Actions executed for one key, in order, across its reconciles. */
  actionsFor(key: string): ReadonlyArray<Action>;
  /** Failed reconciles for one key, rendered (the runtime retries them; tests report them). */
  failuresFor(key: string): ReadonlyArray<string>;
};

export const reconcileLog = (): ReconcileLog => {
  const entries: Array<{ key: string; result: ReconcileResult }> = [];
  const resultsFor = (key: string): ReadonlyArray<ReconcileResult> =>
    entries.filter((entry) => entry.key === key).map((entry) => entry.result);
  return {
    entries,
    onReconciled: (key, result) => {
      entries.push({ key, result });
    },
    resultsFor,
    actionsFor: (key) => resultsFor(key).flatMap(executedActions),
    failuresFor: (key) =>
      resultsFor(key).flatMap((result) =>
        result._tag === 'Failed'
          ? [
              `${result.execution?.failure ? `${actionLine(result.execution.failure.action)}: ` : ''}${showClusterError(result.error)}`,
            ]
          : [],
      ),
  };
};
