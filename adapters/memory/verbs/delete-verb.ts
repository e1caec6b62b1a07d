/**
 * delete: objects without finalizers leave storage at once; otherwise the server marks them
 * (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`, generation bumped once) and they stay
 * until the last finalizer is removed. Propagation policies become the garbage collector's
 * `orphan` / `foregroundDeletion` finalizers; Namespaces and CRDs carry their own.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { pipe } from 'fp-ts/lib/function.js';
import { jsonEqual } from '../../../core/json/json.js';
import { refOf, type ObjectRef, type Resource } from '../../../core/model/resource.js';
import type { DeleteOptions, DeletePreconditions, PropagationPolicy } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { commitPut } from './commit.js';
import { objectAt } from '../defaulting/index.js';
import { CRD_CLEANUP_FINALIZER, terminatingStatus } from '../hooks/index.js';
import type { KindInfo } from '../kinds/index.js';
import { timestamp } from '../typing/index.js';
import { storedObject, type ServerState } from '../server-state.js';
import { servedAs } from '../json/index.js';
import { notFound } from './update-verb.js';
import { isDeleting, isFinalized, removeStored } from './write-common.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

const isCrd = (info: KindInfo): boolean =>
  info.group === 'apiextensions.k8s.io' && info.kind === 'CustomResourceDefinition';
const isNamespace = (info: KindInfo): boolean => info.group === '' && info.kind === 'Namespace';

/**
 * The finalizers after a delete request: the policy's garbage-collection finalizer replaces the
 * other one; without a policy, the ones already there stay (deletionFinalizersForGarbageCollection).
 */
const finalizersFor = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
  policy: PropagationPolicy | undefined,
): ReadonlyArray<string> => {
  const current = object.metadata.finalizers ?? [];
  const ownFinalizer = isCrd(info) && !current.includes(CRD_CLEANUP_FINALIZER) ? [CRD_CLEANUP_FINALIZER] : [];
  if (!state.gc || policy === undefined) return [...current, ...ownFinalizer];
  const kept = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  const gcFinalizer = policy === 'Orphan' ? [ORPHAN_FINALIZER] : policy === 'Foreground' ? [FOREGROUND_FINALIZER] : [];
  return [...kept, ...ownFinalizer, ...gcFinalizer];
};

/** The object marked for deletion (idempotent once marked). */
const marked = (state: ServerState, info: KindInfo, object: Resource, finalizers: ReadonlyArray<string>): Resource => {
  const now = state.clock.now();
  const first = !isDeleting(object);
  const generation = object.metadata.generation;
  const { finalizers: _previous, ...rest } = object.metadata;
  const meta = {
    ...rest,
    ...(finalizers.length > 0 ? { finalizers } : {}),
    deletionTimestamp: object.metadata.deletionTimestamp ?? timestamp(now),
    // A Namespace's own delete path sets no grace period.
    ...(isNamespace(info) ? {} : { deletionGracePeriodSeconds: 0 }),
    ...(first && typeof generation === 'number' ? { generation: generation + 1 } : {}),
  };
  const withMeta: Resource = { ...object, metadata: meta };
  if (isNamespace(info)) return { ...withMeta, status: { ...objectAt(object, 'status'), phase: 'Terminating' } };
  return isCrd(info) && first ? { ...withMeta, status: terminatingStatus(object, now) } : withMeta;
};

/**
 * Deletes a stored object: `none` once it left storage, `some(object)` while finalizers hold it.
 * Used by the delete verb and by the background controllers.
 */
export const deleteStored = (
  state: ServerState,
  info: KindInfo,
  stored: Resource,
  policy?: PropagationPolicy,
): O.Option<Resource> => {
  const finalizers = finalizersFor(state, info, stored, policy);
  const pending: Resource = { ...stored, metadata: { ...stored.metadata, finalizers } };
  if (isFinalized(pending)) {
    removeStored(state, info, stored);
    return O.none;
  }
  const next = marked(state, info, stored, finalizers);
  return O.some(jsonEqual(next, stored) ? stored : commitPut(state, info, next, stored));
};

/** The NamespaceLifecycle admission plugin's immortal namespaces. */
const immortalNamespaces = ['default', 'kube-system', 'kube-public'];

const deletable = (info: KindInfo, ref: ObjectRef): E.Either<ClusterError, KindInfo> =>
  isNamespace(info) && immortalNamespaces.includes(ref.name)
    ? E.left(
        clusterError('Forbidden', `namespaces "${ref.name}" is forbidden: this namespace may not be deleted`, { ref }),
      )
    : E.right(info);

/**
 * DeleteOptions.preconditions (rest.BeforeDelete): uid first, then resourceVersion; 409 naming the kind when either
 * differs.
 */
const preconditionsHold = (
  info: KindInfo,
  stored: Resource,
  preconditions: DeletePreconditions | undefined,
): E.Either<ClusterError, Resource> => {
  const failed = (what: 'UID' | 'ResourceVersion', wanted: string, actual: string | undefined): ClusterError =>
    clusterError(
      'Conflict',
      `Operation cannot be fulfilled on ${info.kind}${info.group === '' ? '' : `.${info.group}`} "${stored.metadata.name}": the ${what} in the precondition (${wanted}) does not match the ${what} in record (${actual ?? ''}). The object might have been ${what === 'UID' ? 'deleted and then recreated' : 'modified'}`,
      { ref: refOf(stored) },
    );
  const { uid, resourceVersion } = preconditions ?? {};
  if (uid !== undefined && uid !== stored.metadata.uid) return E.left(failed('UID', uid, stored.metadata.uid));
  if (resourceVersion !== undefined && resourceVersion !== stored.metadata.resourceVersion)
    return E.left(failed('ResourceVersion', resourceVersion, stored.metadata.resourceVersion));
  return E.right(stored);
};

export const deleteObject = (
  state: ServerState,
  ref: ObjectRef,
  options?: DeleteOptions,
): E.Either<ClusterError, O.Option<Resource>> =>
  pipe(
    state.registry.resolve(ref.apiVersion, ref.kind),
    E.chain((info) => deletable(info, ref)),
    E.chain((info) =>
      pipe(
        storedObject(state, info, ref.namespace, ref.name),
        E.fromNullable(notFound(info, ref)),
        E.chain((stored) => preconditionsHold(info, stored, options?.preconditions)),
        E.map((stored) =>
          pipe(
            deleteStored(state, info, stored, options?.propagationPolicy),
            O.map((object) => servedAs(object, ref.apiVersion)),
          ),
        ),
      ),
    ),
  );
