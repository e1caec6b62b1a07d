/**
 * One cheap read before the operator starts, proving that the cluster answers, accepts the
 * credentials and serves Applications: otherwise `run` would start, then log the same failure
 * forever while retrying.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  type ClusterError,
  type ClusterReader,
} from '../../../core/internal.js';

/** What the failure of the startup read means, and what to do (one line). */
export const startupProblem = (error: ClusterError): string => {
  switch (error._tag) {
    case 'UnknownKind':
    case 'NotFound':
      return `the cluster does not serve ${APPLICATION_API_VERSION} ${APPLICATION_KIND}: install the CRD first (kreconcile crd | kubectl apply -f -)`;
    case 'Unauthorized':
      return `the cluster rejected the credentials (401 ${error.message}): check the kubeconfig user, token or certificate`;
    case 'Forbidden':
      return `the account may not read Applications (403 ${error.message}): apply the operator's RBAC (kreconcile rbac | kubectl apply -f -)`;
    default:
      return `cannot reach the cluster (${error.message}): check --kubeconfig/--context and that the API server is up`;
  }
};

/**
 * Reads one (absent) Application in `namespace`.
 * Errors: the reason the operator could not work against this cluster, as one line.
 */
export const checkCluster = async (cluster: ClusterReader, namespace: string): Promise<E.Either<string, void>> => {
  const read = await cluster.get({
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    namespace,
    name: 'kreconcile-startup-check',
  })();
  return E.isLeft(read) ? E.left(startupProblem(read.left)) : E.right(undefined);
};
