/**
 * The namespace controller (kube-controller-manager's): a terminating namespace is emptied —
 * every object in it deleted — and once nothing is left its `kubernetes` finalizer is removed,
 * so it leaves storage.
 */
import { getIn, isJsonArray } from '../../../core/json/json.js';
import { groupOf, type Resource } from '../../../core/model/resource.js';
import { deleteStored, isDeleting, systemWrite } from '../verbs/index.js';
import { NAMESPACE_FINALIZER } from '../hooks/index.js';
import type { ServerState } from '../server-state.js';

const contents = (state: ServerState, namespace: string): ReadonlyArray<Resource> =>
  [...state.objects.values()].filter(
    (object) => object.metadata.namespace === namespace && object.kind !== 'Namespace',
  );

const withoutSpecFinalizer = (namespace: Resource): Resource => {
  const finalizers = getIn(namespace, ['spec', 'finalizers']);
  return {
    ...namespace,
    spec: { finalizers: (isJsonArray(finalizers) ? finalizers : []).filter((f) => f !== NAMESPACE_FINALIZER) },
  };
};

const finalize = (state: ServerState, namespace: Resource): boolean => {
  const objects = contents(state, namespace.metadata.name);
  const started = objects
    .filter((object) => !isDeleting(object))
    .map((object) => {
      const info = state.registry.byGroupKind(groupOf(object.apiVersion), object.kind);
      if (info !== undefined) deleteStored(state, info, object, 'Background');
      return info !== undefined;
    });
  if (objects.length > 0) return started.some(Boolean);
  const info = state.registry.byGroupKind('', 'Namespace');
  return info !== undefined && systemWrite(state, info, namespace, withoutSpecFinalizer);
};

/** One pass over terminating namespaces; returns whether it changed anything. */
export const finalizeNamespaces = (state: ServerState): boolean =>
  [...state.objects.values()]
    .filter((object) => object.kind === 'Namespace' && object.apiVersion === 'v1' && isDeleting(object))
    .map((namespace) => finalize(state, namespace))
    .some(Boolean);
