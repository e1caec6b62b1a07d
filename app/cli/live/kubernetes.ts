/**
 * Connects to a live cluster through the Kubernetes adapter, loaded only when a command asks for
 * a cluster: offline commands never load @kubernetes/client-node (which needs Node >= 22.19).
 */
import type { ClusterReader, ClusterWriter, Discovery } from '../../../core/index.js';
import type { ClusterTarget } from '../io.js';

const MINIMUM_NODE: readonly [number, number] = [22, 19];

/**
 * Whether this Node can run the client library (undici 8 needs Node >= 22.19). Checked before
 * loading it: on older Node its import fails asynchronously, past any catch.
 */
export const supportsLiveClusters = (nodeVersion: string): boolean => {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
};

export const unsupportedNode = (nodeVersion: string): Error =>
  new Error(
    `live cluster support needs Node >= ${MINIMUM_NODE.join('.')}, this is Node ${nodeVersion}: run kreconcile through npm or npx (they use the project's Node), or plan offline with --snapshot`,
  );

const loadAdapter = async (): Promise<typeof import('../../../adapters/kubernetes/index.js')> => {
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
  return { get: cluster.get, list: cluster.list };
};

/**
 * The cluster named by `target`, readable and writable: for `apply` of a saved plan only.
 * Errors (rejections): as `connectKubernetes`.
 */
export const connectWritable = async (target: ClusterTarget): Promise<ClusterReader & ClusterWriter & Discovery> => {
  const { createKubernetesCluster } = await loadAdapter();
  const cluster = createKubernetesCluster({
    ...(target.kubeconfigPath === undefined ? {} : { kubeconfigPath: target.kubeconfigPath }),
    ...(target.context === undefined ? {} : { context: target.context }),
  });
  return {
    get: cluster.get,
    list: cluster.list,
    create: cluster.create,
    update: cluster.update,
    patch: cluster.patch,
    delete: cluster.delete,
    scopeOf: cluster.scopeOf,
  };
};
