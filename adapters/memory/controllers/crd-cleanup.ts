/**
 * Custom resource cleanup (apiextensions-apiserver's finalizer controller): a CRD being deleted
 * has all its custom resources deleted, then its cleanup finalizer is removed and the kind
 * stops being served.
 */
import * as E from 'fp-ts/lib/Either.js';
import { refOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { KindInfo } from '../kinds/index.js';
import { deleteStored, isDeleting, systemWrite, withoutFinalizer } from '../verbs/index.js';
import { CRD_CLEANUP_FINALIZER, kindFromCrd } from '../hooks/index.js';
import { objectsOfKind, storedObject, type ServerState } from '../server-state.js';

const cleanUp = (state: ServerState, crd: Resource): boolean => {
  const defined = kindFromCrd(crd);
  const kind = state.registry.byGroupKind(defined.group, defined.kind);
  const instances = kind === undefined ? [] : objectsOfKind(state, kind);
  if (kind !== undefined && instances.length > 0) {
    return (
      instances.filter((object) => !isDeleting(object)).map((object) => deleteStored(state, kind, object, 'Background'))
        .length > 0
    );
  }
  const crdInfo = state.registry.byGroupKind('apiextensions.k8s.io', 'CustomResourceDefinition');
  return crdInfo !== undefined && systemWrite(state, crdInfo, crd, withoutFinalizer(CRD_CLEANUP_FINALIZER));
};

/** One pass over terminating CRDs; returns whether it changed anything. */
export const cleanUpCustomResources = (state: ServerState): boolean =>
  [...state.objects.values()]
    .filter(
      (object) =>
        object.kind === 'CustomResourceDefinition' &&
        object.apiVersion.startsWith('apiextensions.k8s.io/') &&
        isDeleting(object) &&
        (object.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER),
    )
    .map((crd) => cleanUp(state, crd))
    .some(Boolean);

/**
 * Creates of a kind whose CRD is being deleted are refused (apiextensions-apiserver's
 * `forbidCreateAdmission`, customresource_handler.go), with kube-apiserver 1.36's words:
 * `403 Forbidden` `widgets.example.io "w" is forbidden: create not allowed while custom resource definition is terminating`.
 */
export const admitWhileCrdTerminating = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
): E.Either<ClusterError, Resource> => {
  if (info.crdName === undefined) return E.right(object);
  const crdInfo = state.registry.byGroupKind('apiextensions.k8s.io', 'CustomResourceDefinition');
  const crd = crdInfo === undefined ? undefined : storedObject(state, crdInfo, undefined, info.crdName);
  if (crd === undefined || !isDeleting(crd)) return E.right(object);
  const resource = `${info.plural}${info.group === '' ? '' : `.${info.group}`}`;
  const name = object.metadata.name === '' ? '' : ` "${object.metadata.name}"`;
  return E.left(
    clusterError(
      'Forbidden',
      `${resource}${name} is forbidden: create not allowed while custom resource definition is terminating`,
      { ref: refOf(object) },
    ),
  );
};
