/**
 * The establishing controllers of apiextensions-apiserver: a stored definition gets its names
 * accepted and becomes Established, and only then is its kind served (a client that creates an
 * instance in the same breath gets UnknownKind, as on a real server).
 */
import type { Resource } from '../../../core/model/resource.js';
import { establishedStatus, isEstablished, serveKind } from '../hooks/index.js';
import { storageKey, type ServerState } from '../server-state.js';
import { isDeleting, systemWrite } from '../verbs/index.js';

const establish = (state: ServerState, crd: Resource): boolean => {
  const info = state.registry.byGroupKind('apiextensions.k8s.io', 'CustomResourceDefinition');
  if (info === undefined) return false;
  const wrote = systemWrite(state, info, crd, (object) => ({
    ...object,
    status: establishedStatus(object, state.clock.now()),
  }));
  const stored = state.objects.get(storageKey(info, undefined, crd.metadata.name));
  if (stored !== undefined) serveKind(state, stored);
  return wrote;
};

/** One pass over definitions not yet established; returns whether it changed anything. */
export const establishCustomResources = (state: ServerState): boolean =>
  [...state.objects.values()]
    .filter(
      (object) =>
        object.kind === 'CustomResourceDefinition' &&
        object.apiVersion.startsWith('apiextensions.k8s.io/') &&
        !isDeleting(object) &&
        !isEstablished(object),
    )
    .map((crd) => establish(state, crd))
    .some(Boolean);
