/** Shared steps of the write paths: input checks, namespace admission, defaulting, validation, removal. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { getIn, getOwn, isJsonArray, isJsonObject, withKey } from '../../../core/json/json.js';
import { refOf, versionOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError, type ErrorCause } from '../../../core/ports/errors.js';
import { commitRemove } from './commit.js';
import { applyServerDefaults } from '../defaulting/index.js';
import { deepCopy } from '../json/index.js';
import { groupKindKey, type KindInfo } from '../kinds/index.js';
import { hooksFor } from '../hooks/index.js';
import { decodeObject, kindCauses, metaCauses, pruneAndDefaultResource } from '../typing/index.js';
import { storedObject, type ServerState } from '../server-state.js';
import { structuralCauses } from '../../../core/schema/structural/validate.js';
import { defined } from '../../../core/json/defined.js';

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value !== '';

/** A private copy of a client's object when it is shaped like one (apiVersion, kind, metadata), else BadRequest. */
const shaped = (object: unknown): E.Either<ClusterError, Resource> => {
  const copy = isJsonObject(object) ? deepCopy(object) : undefined;
  const metadata = copy === undefined ? undefined : getOwn(copy, 'metadata');
  return copy === undefined ||
    !nonEmpty(getOwn(copy, 'apiVersion')) ||
    !nonEmpty(getOwn(copy, 'kind')) ||
    !isJsonObject(metadata)
    ? E.left(clusterError('BadRequest', "Object 'Kind' is missing or the object has no metadata"))
    : // Checked just above: kind, apiVersion and metadata are there; the name is checked by admission next (as the real
      // server does).
      E.right(copy as Resource);
};

/** A name that is not a string is an empty one (Invalid later, or `generateName`, as the server gives). */
const withStringName = (object: Resource): Resource =>
  typeof getOwn(object.metadata, 'name') === 'string'
    ? object
    : withKey(object, 'metadata', withKey(object.metadata, 'name', ''));

/**
 * A client's object as it enters the server (create, update): a private copy of a served kind,
 * decoded into its Go type (BadRequest when it is not shaped like an object
 * or a field has the wrong type; UnknownKind when the kind is not served).
 */
export const decodeInput = (
  state: ServerState,
  input: unknown,
): E.Either<ClusterError, { readonly object: Resource; readonly info: KindInfo }> =>
  pipe(
    shaped(input),
    E.chain((raw) =>
      pipe(
        state.registry.resolve(raw.apiVersion, raw.kind),
        E.chain((info) =>
          pipe(
            decodeObject(info, raw),
            E.map((object) => ({ object: withStringName(object), info })),
          ),
        ),
      ),
    ),
  );

export const isDeleting = (object: Resource): boolean => typeof object.metadata.deletionTimestamp === 'string';

/** No finalizer left: metadata ones, and for a Namespace its `spec.finalizers`. */
export const isFinalized = (object: Resource): boolean => {
  const specFinalizers = object.kind === 'Namespace' ? getIn(object, ['spec', 'finalizers']) : undefined;
  return (object.metadata.finalizers ?? []).length === 0 && !(isJsonArray(specFinalizers) && specFinalizers.length > 0);
};

/** Namespaced writes need an existing namespace that is not terminating (NamespaceLifecycle admission). */
export const admitNamespace = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
): E.Either<ClusterError, Resource> => {
  const namespace = object.metadata.namespace;
  if (info.scope === 'Cluster' || namespace === undefined) return E.right(object);
  const nsInfo = state.registry.byGroupKind('', 'Namespace');
  const owner = nsInfo === undefined ? undefined : storedObject(state, nsInfo, undefined, namespace);
  const ref = refOf(object);
  if (owner === undefined) return E.left(clusterError('NotFound', `namespaces "${namespace}" not found`, { ref }));
  return isDeleting(owner)
    ? E.left(
        clusterError(
          'Forbidden',
          `${info.plural} "${object.metadata.name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
          { ref },
        ),
      )
    : E.right(object);
};

/** Server defaulting (when enabled) and, for custom resources, structural pruning and schema defaults. */
export const defaulted = (state: ServerState, info: KindInfo, object: Resource): Resource => {
  const builtin = state.defaulting ? applyServerDefaults(groupKindKey(info.group, info.kind), object) : object;
  const schema = info.schemas?.get(versionOf(object.apiVersion));
  return info.custom && schema !== undefined
    ? // Pruning keeps apiVersion, kind and metadata (the structural schema always allows them): still a Resource.
      (pruneAndDefaultResource(builtin, schema, state.defaulting) as Resource)
    : builtin;
};

/** A 422 as the server words it: `Deployment.apps "web" is invalid: <cause>`, several causes in brackets. */
export const invalid = (info: KindInfo, object: Resource, causes: ReadonlyArray<ErrorCause>): ClusterError => {
  const listed = causes.map((c) => `${c.field ?? ''}: ${c.message}`);
  const kind = info.group === '' ? info.kind : `${info.kind}.${info.group}`;
  return clusterError(
    'Invalid',
    `${kind} "${object.metadata.name}" is invalid: ${listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`}`,
    { ref: refOf(object), causes },
  );
};

/** A custom resource under its CRD's structural schema and CEL rules (`old`: the stored object, on an update). */
const schemaCauses = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
  old: Resource | undefined,
): ReadonlyArray<ErrorCause> => {
  const schema = info.custom ? info.schemas?.get(versionOf(object.apiVersion)) : undefined;
  return isJsonObject(schema) ? structuralCauses({ object, schema, rules: state.rules, ...defined({ old }) }) : [];
};

/** Metadata, kind and (custom resources) schema validation; `old` is the stored object on an update. */
export const validated = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
  old?: Resource,
): E.Either<ClusterError, Resource> => {
  const causes = [
    ...metaCauses(object.metadata),
    ...kindCauses(groupKindKey(info.group, info.kind), object),
    ...schemaCauses(state, info, object, old),
  ];
  return causes.length === 0 ? E.right(object) : E.left(invalid(info, object, causes));
};

/** Takes an object out of storage and lets its kind release what it held. */
export const removeStored = (state: ServerState, info: KindInfo, object: Resource): Resource => {
  const removed = commitRemove(state, info, object);
  hooksFor(groupKindKey(info.group, info.kind)).removed?.(removed, { state, dryRun: false });
  return removed;
};
