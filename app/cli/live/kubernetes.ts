/**
 * Connects to a live cluster through the Kubernetes adapter (adapters/kubernetes), loaded only
 * when a command asks for a cluster: offline commands never load @kubernetes/client-node (which
 * also needs Node >= 22.19).
 */
import type { ClusterReader } from '../../../core/index.js';
import type { ClusterTarget } from '../io.js';

// A computed specifier: the adapter is optional at build time and loaded on demand.
const ADAPTER = new URL('../../../adapters/kubernetes/index.js', import.meta.url).href;

export const MISSING_ADAPTER = 'live cluster support requires adapters/kubernetes';

type Adapter = { readonly createKubernetesCluster?: (options: { readonly kubeconfigPath?: string; readonly context?: string }) => ClusterReader | Promise<ClusterReader> };

const isMissing = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_MODULE_NOT_FOUND' &&
  error instanceof Error && error.message.includes('adapters/kubernetes/index');

/**
 * A read-only view of the cluster named by `target` (kubeconfig path and/or context; the
 * default kubeconfig otherwise).
 * Errors (rejections): the adapter is missing or cannot load, the kubeconfig is unusable.
 */
export const connectKubernetes = async (target: ClusterTarget): Promise<ClusterReader> => {
  let adapter: Adapter;
  try {
    adapter = (await import(ADAPTER)) as Adapter;
  } catch (error) {
    if (isMissing(error)) throw new Error(`${MISSING_ADAPTER}, which is not installed in this build: plan offline with --snapshot`);
    throw new Error(`live cluster support failed to load (${error instanceof Error ? error.message : String(error)}); it needs Node >= 22.19`);
  }
  if (typeof adapter.createKubernetesCluster !== 'function') throw new Error(`${MISSING_ADAPTER} to export createKubernetesCluster`);
  return adapter.createKubernetesCluster({
    ...(target.kubeconfigPath === undefined ? {} : { kubeconfigPath: target.kubeconfigPath }),
    ...(target.context === undefined ? {} : { context: target.context }),
  });
};
