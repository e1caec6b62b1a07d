/**
 * Reads the cluster's OpenAPI v3 documents (`/openapi/v3`, then one document per group-version)
 * for `kreconcile validate --kubeconfig`. The adapter is loaded only when asked for, like
 * `connectKubernetes` (offline commands never load @kubernetes/client-node).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  getOwn,
  isJsonObject,
  openApiPathOf,
  showClusterError,
  type JsonObject,
  type JsonValue,
} from '../../../core/internal.js';
import type { ClusterTarget } from '../io.js';
import { defined } from '../../../core/json/defined.js';

/**
 * The documents of the given apiVersions that the cluster serves, by apiVersion (a group-version
 * it does not serve is left out: its kinds are unknown there, which `plan` reports).
 * Errors (rejections): the kubeconfig cannot be loaded; the server cannot be read.
 */
export const fetchOpenApiDocuments = async (
  target: ClusterTarget,
  apiVersions: ReadonlyArray<string>,
): Promise<ReadonlyMap<string, JsonObject>> => {
  const [{ createKubernetesCluster }, { createRestClient }] = await Promise.all([
    import('../../../adapters/kubernetes/index.js'),
    import('../../../adapters/kubernetes/rest-client.js'),
  ]);
  const cluster = createKubernetesCluster({
    ...defined({ kubeconfigPath: target.kubeconfigPath, context: target.context }),
  });
  const rest = createRestClient(cluster.kubeConfig, 30_000);
  const get = async (path: string, query: Readonly<Record<string, string>> = {}): Promise<JsonValue> => {
    const answer = await rest.send({ method: 'GET', path, query })();
    if (E.isLeft(answer))
      throw new Error(`reading the cluster's OpenAPI schemas (${path}): ${showClusterError(answer.left)}`);
    return answer.right;
  };
  const root = await get('/openapi/v3');
  const paths = isJsonObject(root) ? getOwn(root, 'paths') : undefined;
  const documents = await Promise.all(
    [...new Set(apiVersions)].map(async (apiVersion) => {
      const entry = isJsonObject(paths) ? getOwn(paths, openApiPathOf(apiVersion)) : undefined;
      const url = isJsonObject(entry) ? getOwn(entry, 'serverRelativeURL') : undefined;
      if (typeof url !== 'string') return [];
      const [path = '', query = ''] = url.split('?');
      const document = await get(path, Object.fromEntries(new URLSearchParams(query)));
      return isJsonObject(document) ? [[apiVersion, document] as const] : [];
    }),
  );
  return new Map(documents.flat());
};
