/**
 * Custom resource cleanup (apiextensions-apiserver's finalizer controller): a CRD being deleted
 * has all its custom resources deleted, then its cleanup finalizer is removed and the kind
 * stops being served.
 */
import type { Resource } from '../../../core/model/resource.js';
import { deleteStored, isDeleting, systemWrite, withoutFinalizer } from '../verbs/index.js';
import { CRD_CLEANUP_FINALIZER, kindFromCrd } from '../hooks/index.js';
import { objectsOfKind, type ServerState } from '../server-state.js';

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
