/** Loading a KubeConfig from what the composition root passes in (the adapter reads no environment itself). */
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import * as E from 'fp-ts/lib/Either.js';

export type KubeConfigSource =
  | KubeConfig
  | {
      /** A kubeconfig file. */
      readonly kubeconfigPath?: string;
      /** Kubeconfig text (YAML or JSON). */
      readonly kubeconfigYaml?: string;
      /** Context to use instead of the file's current-context. */
      readonly context?: string;
      /** The pod's service account (token + CA mounted by the kubelet). */
      readonly inCluster?: boolean;
    };

/**
 * A KubeConfig for the source. With none of path, text or inCluster it falls back to the
 * client's default lookup ($KUBECONFIG, ~/.kube/config, in-cluster) — that reading is the
 * library's, and only happens when the caller asked for nothing specific.
 * Errors: a message naming what could not be loaded (missing file, bad YAML, unknown context, no cluster).
 */
export const loadKubeConfig = (source: KubeConfigSource): E.Either<string, KubeConfig> => {
  if (source instanceof KubeConfig) return E.right(source);
  return E.tryCatch(
    () => {
      const kubeConfig = new KubeConfig();
      if (source.inCluster) kubeConfig.loadFromCluster();
      else if (source.kubeconfigYaml !== undefined) kubeConfig.loadFromString(source.kubeconfigYaml);
      else if (source.kubeconfigPath !== undefined) kubeConfig.loadFromFile(source.kubeconfigPath);
      else kubeConfig.loadFromDefault();
      if (source.context !== undefined) {
        if (kubeConfig.getContextObject(source.context) === null) throw new Error(`no context named ${source.context}`);
        kubeConfig.setCurrentContext(source.context);
      }
      if (kubeConfig.getCurrentCluster() === null)
        throw new Error('the kubeconfig names no cluster for its current context');
      return kubeConfig;
    },
    (error) =>
      `cannot load kubeconfig${'kubeconfigPath' in source && source.kubeconfigPath ? ` ${source.kubeconfigPath}` : ''}: ${error instanceof Error ? error.message : String(error)}`,
  );
};
