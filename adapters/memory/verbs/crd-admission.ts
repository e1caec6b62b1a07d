/**
 * The create path's admission for custom resources whose CRD is being deleted (moved here from
 * controllers/crd-cleanup.ts: the create verb asks it, the cleanup controller does not).
 */
import * as E from 'fp-ts/lib/Either.js';
import { refOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { KindInfo } from '../kinds/index.js';
import { storedObject, type ServerState } from '../server-state.js';
import { isDeleting } from './write-common.js';

/**
 * Creates of a kind whose CRD is being deleted are refused (apiextensions-apiserver's
 * `forbidCreateAdmission`, customresource_handler.go), with kube-apiserver 1.36's words:
 * `403 Forbidden` `widgets.example.io "w" is forbidden: create not allowed while custom resource definition is
 * terminating`.
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
