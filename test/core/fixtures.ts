/** Shared fixtures of the core tests: an Application builder, scopes with custom kinds, a pure applier. */
import { applyPatch, type Operation } from 'fast-json-patch';
import { freeze } from 'immer';
import { forcedApply, withoutManagedFields } from '../../adapters/memory/field-manager/index.js';
import {
  builtinScopes,
  FINALIZER,
  refKey,
  refOf,
  type Action,
  type Application,
  type ApplicationSpec,
  type ApplicationStatus,
  type JsonObject,
  type JsonValue,
  type Plan,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../core/internal.js';

/**
 * A tenancy policy allowing every destination and cluster-scoped kind, explicitly: for tests of the
 * planner's laws that place children anywhere (tenancy itself is tested in tenancy.test.ts).
 */
export const OPEN_TENANCY: TenancyPolicy = {
  destinations: [{ from: '*', to: ['*'] }],
  clusterKinds: [{ from: '*', kinds: ['*'] }],
  adoption: 'destinations',
};

/** Built-in kinds plus the custom kinds of the worked example and of the arbitraries. */
export const scopes: ScopeTable = new Map([
  ...builtinScopes,
  ['music.example/Song', 'Namespaced'],
  ['music.example/Artist', 'Namespaced'],
  ['music.example/Label', 'Cluster'],
]);

export const APP_NAMESPACE = 'default';
export const APP_NAME = 'app';
export const APP_UID = 'app-uid';
export const OWNER_MARK = `${APP_NAMESPACE}/${APP_NAME}`;

export type AppOptions = {
  readonly finalizer?: boolean;
  readonly status?: ApplicationStatus;
  readonly generation?: number;
  readonly deleting?: boolean;
  readonly name?: string;
};

/** An Application in namespace `default` named `app`, with the finalizer unless told otherwise. */
export const application = (spec: ApplicationSpec, options: AppOptions = {}): Application => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: {
    name: options.name ?? APP_NAME,
    namespace: APP_NAMESPACE,
    uid: APP_UID,
    generation: options.generation ?? 1,
    ...(options.finalizer === false ? {} : { finalizers: [FINALIZER] }),
    ...(options.deleting === true ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
  },
  spec,
  ...(options.status === undefined ? {} : { status: options.status }),
});

/** The ownership marks `plan` puts on what it creates (label + annotation). */
export const marked = (resource: Resource, owner = OWNER_MARK): Resource => ({
  ...resource,
  metadata: {
    ...resource.metadata,
    labels: { ...resource.metadata.labels, 'app.kubernetes.io/managed-by': 'kreconcile' },
    annotations: { ...resource.metadata.annotations, 'kreconcile.io/owner': owner },
  },
});

/** What the API server adds to an object on create: uid, resourceVersion, managedFields, status. */
export const served = (body: Resource, index = 0): Resource => ({
  ...body,
  metadata: {
    ...body.metadata,
    uid: `uid-${index}`,
    resourceVersion: String(100 + index),
    creationTimestamp: '2024-01-01T00:00:00Z',
    managedFields: [{ manager: 'kreconcile', operation: 'Update' }],
  },
  status: { observedGeneration: 1, phase: 'Active' },
});

export const actionsOf = <T extends Action['type']>(
  result: Plan,
  type: T,
): ReadonlyArray<Extract<Action, { type: T }>> =>
  result.actions.filter((action): action is Extract<Action, { type: T }> => action.type === type);

export const writes = (result: Plan): ReadonlyArray<Action> =>
  result.actions.filter((action) => action.type === 'create' || action.type === 'patch' || action.type === 'delete');

/**
 * A pure stand-in for the API server executing a plan's writes on a snapshot: create inserts
 * the body (passed through `onCreate`, e.g. to add server defaults), patch applies the JSON
 * Patch (RFC 6902, with validation: a failed `test` or an unresolvable path throws), delete
 * removes. Throws on a create of an existing object or a patch of a missing one.
 */
export const execute = (
  live: ReadonlyArray<Resource>,
  actions: ReadonlyArray<Action>,
  onCreate: (body: Resource) => Resource = (body) => body,
): ReadonlyArray<Resource> =>
  actions.reduce<ReadonlyArray<Resource>>((objects, action) => {
    const key = refKey(action.ref);
    const index = objects.findIndex((object) => refKey(refOf(object)) === key);
    switch (action.type) {
      case 'create':
        if (index >= 0) throw new Error(`create of an existing object ${key}`);
        return [...objects, onCreate(structuredClone<Resource>(action.body))];
      case 'patch': {
        if (index < 0) throw new Error(`patch of a missing object ${key}`);
        const document = structuredClone(objects[index]) as Resource;
        // Server-side apply as the memory API server approximates it (merge, lists by name; no field ownership).
        const patched =
          action.serverSideApply === undefined
            ? applyPatch(document, structuredClone(action.patch) as Operation[], true, false).newDocument
            : (withoutManagedFields(
                forcedApply(
                  applyPatch(document, structuredClone(action.serverSideApply.beforeApply) as Operation[], true, false)
                    .newDocument,
                  structuredClone(action.serverSideApply.body),
                  'kreconcile',
                ),
              ) as Resource);
        return objects.map((object, i) => (i === index ? patched : object));
      }
      case 'delete':
        return objects.filter((_, i) => i !== index);
      default:
        return objects;
    }
  }, live);

/** The Application after its plan: finalizer actions applied, status replaced by the plan's. */
export const afterPlan = (app: Application, result: Plan): Application => {
  const finalizers = app.metadata.finalizers ?? [];
  const added = result.actions.some((action) => action.type === 'addFinalizer');
  const removed = result.actions.some((action) => action.type === 'removeFinalizer');
  const next = removed ? finalizers.filter((f) => f !== FINALIZER) : added ? [...finalizers, FINALIZER] : finalizers;
  return { ...app, metadata: { ...app.metadata, finalizers: next }, status: result.status };
};

/** Recursively freezes a value with immer's `freeze` (for "no input is mutated": a mutation throws). */
export const deepFreeze = <T>(value: T): T => freeze(value, true);

export type { JsonObject, JsonValue };
