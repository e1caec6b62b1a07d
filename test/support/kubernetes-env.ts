/**
 * How integration suites reach the real API server: the global setup provides a kubeconfig
 * (or the reason there is none), and suites skip with that reason unless a server is required.
 */
import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, inject, it } from 'vitest';
import { createKubernetesCluster, type KubernetesCluster } from '../../adapters/kubernetes/index.js';
import type { Cluster } from '../../core/ports/cluster.js';
import { showClusterError, type ClusterError } from '../../core/ports/errors.js';

/** What the global setup hands to test files (must be serializable). */
export type KubernetesTestEnv =
  | {
      readonly available: true;
      readonly kubeconfigPath: string;
      readonly existingCluster: boolean;
      readonly controllerManager: boolean;
    }
  | { readonly available: false; readonly reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    kubernetes: KubernetesTestEnv;
  }
}

export const kubernetesEnv = (): KubernetesTestEnv =>
  inject('kubernetes') ?? { available: false, reason: 'the kubernetes global setup did not run' };

/** `describe` that skips, naming why, when no API server is available. */
export const describeWithApiServer = (
  name: string,
  body: (env: Extract<KubernetesTestEnv, { available: true }>) => void,
): void => {
  const env = kubernetesEnv();
  if (env.available) describe(name, () => body(env));
  // A visible skipped test, so reporters show why instead of an empty file.
  else describe(name, () => it.skip(`SKIPPED: ${env.reason}`, () => undefined));
};

export const connect = (env: Extract<KubernetesTestEnv, { available: true }>): KubernetesCluster =>
  createKubernetesCluster({ kubeconfigPath: env.kubeconfigPath });

export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`;

/** Creates a fresh namespace; `cleanup` deletes it (the namespace controller empties it when running). */
export const freshNamespace = async (
  cluster: Cluster,
  prefix = 'kr-test',
): Promise<{ readonly namespace: string; cleanup(): Promise<void> }> => {
  const namespace = uniqueName(prefix);
  const created = await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
  if (E.isLeft(created)) throw new Error(`creating namespace ${namespace}: ${showClusterError(created.left)}`);
  return {
    namespace,
    cleanup: async () => {
      await cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace })();
    },
  };
};

/** Fresh namespaces, one per prefix, in order; `cleanup` deletes them all. */
export const freshNamespaces = async (
  cluster: Cluster,
  prefixes: ReadonlyArray<string>,
): Promise<{ readonly namespaces: ReadonlyArray<string>; cleanup(): Promise<void> }> => {
  const made = await Promise.all(prefixes.map((prefix) => freshNamespace(cluster, prefix)));
  return {
    namespaces: made.map((m) => m.namespace),
    cleanup: async () => {
      for (const m of made) await m.cleanup();
    },
  };
};

/** Unwraps a TaskEither result in a test, failing with the rendered ClusterError. */
export const must = async <A>(task: () => Promise<E.Either<ClusterError, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(showClusterError(result.left));
  return result.right;
};
