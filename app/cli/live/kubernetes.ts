/**
 * Connects to a live cluster through the Kubernetes adapter, loaded only when a command asks for
 * a cluster: offline commands never load @kubernetes/client-node (which needs Node >= 22.19).
 */
import type { ClusterReader, ClusterWriter, Discovery } from '../../../core/internal.js';
// Type only, erased: the adapter itself is loaded lazily (loadAdapter), after the Node version check.
import type * as KubernetesAdapter from '../../../adapters/kubernetes/index.js';
import type { ClusterTarget } from '../io.js';
import { MINIMUM_NODE, nodeVersionProblem, supportedNode } from '../node-version.js';
import { defined } from '../../../core/json/defined.js';

/**
 * Whether this Node can run the client library (undici 8 needs Node >= 22.19). Checked before
 * loading it: on older Node its import fails asynchronously, past any catch. The executable checks
 * the same at start-up (node-version.ts); this guards callers of `run(argv, io)` that did not.
 */
export const supportsLiveClusters = supportedNode;

export const unsupportedNode = (nodeVersion: string): Error =>
  new Error(nodeVersionProblem(nodeVersion) ?? `live cluster support needs Node >= ${MINIMUM_NODE.join('.')}`);

const loadAdapter = async (): Promise<typeof KubernetesAdapter> => {
  try {
    return await import('../../../adapters/kubernetes/index.js');
  } catch (error) {
    throw new Error(
      `live cluster support failed to load (${error instanceof Error ? error.message : String(error)}); it needs Node >= 22.19`,
    );
  }
};

/**
 * A read-only view of the cluster named by `target` (kubeconfig path and/or context; the default
 * kubeconfig lookup otherwise). Only `get` and `list` of the returned reader are ever used.
 * Errors (rejections): the adapter cannot load; the kubeconfig is missing, malformed or lacks the context.
 */
export const connectKubernetes = async (target: ClusterTarget): Promise<ClusterReader> => {
  const cluster = await connectWritable(target);
  // Narrowed on purpose: plan and snapshot must not be able to write.
  return { get: (ref) => cluster.get(ref), list: (query) => cluster.list(query) };
};

/**
 * The cluster named by `target`, readable and writable: for `apply` of a saved plan only.
 * Errors (rejections): as `connectKubernetes`.
 */
export const connectWritable = async (target: ClusterTarget): Promise<ClusterReader & ClusterWriter & Discovery> => {
  const { createKubernetesCluster } = await loadAdapter();
  const cluster = createKubernetesCluster({
    ...defined({ kubeconfigPath: target.kubeconfigPath, context: target.context }),
  });
  return {
    get: (ref) => cluster.get(ref),
    list: (query) => cluster.list(query),
    create: (object, options) => cluster.create(object, options),
    update: (object, options) => cluster.update(object, options),
    patch: (ref, patch, options) => cluster.patch(ref, patch, options),
    delete: (ref, options) => cluster.delete(ref, options),
    scopeOf: (apiVersion, kind) => cluster.scopeOf(apiVersion, kind),
  };
};
