/**
 * The Cluster port on a real Kubernetes API server through @kubernetes/client-node: any kind
 * (core, other groups, custom resources) through one REST path, found by discovery.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { Cluster } from '../../core/ports/cluster.js';
import { createKindResolver } from './discovery.js';
import { loadKubeConfig, type KubeConfigSource } from './kube-config.js';
import type { OperationContext } from './operation-context.js';
import { createReader } from './read-operations.js';
import { createRestClient } from './rest-client.js';
import { createWatchSource, type WatchOptions } from './watch-source.js';
import { createWriter, patchObject, putObject } from './write-operations.js';

export type KubernetesClusterOptions = {
  /** Bound on every non-watch request (default 30 s). */
  readonly requestTimeoutMs?: number;
  readonly watch?: WatchOptions;
};

/** A Cluster plus what only a real cluster has. */
export type KubernetesCluster = Cluster & {
  /** The API server URL of the current context. */
  readonly server: string;
  readonly kubeConfig: KubeConfig;
};

/**
 * Builds the adapter.
 * Errors: throws when the kubeconfig cannot be loaded — a startup misconfiguration, reported
 * once by the composition root (use {@link loadKubeConfig} to get it as a value instead).
 */
export const createKubernetesCluster = (source: KubeConfigSource, options: KubernetesClusterOptions = {}): KubernetesCluster => {
  const kubeConfig = pipe(loadKubeConfig(source), E.getOrElseW((message) => {
    throw new Error(message);
  }));
  const rest = createRestClient(kubeConfig, options.requestTimeoutMs ?? 30_000);
  const kinds = createKindResolver(rest);
  const context: OperationContext = { rest, kinds };
  return {
    server: kubeConfig.getCurrentCluster()?.server ?? '',
    kubeConfig,
    ...createReader(context),
    ...createWriter(context),
    updateStatus: (object) => putObject(context, 'status')(object),
    patchStatus: (ref, patch) => patchObject(context, 'status')(ref, patch),
    watch: createWatchSource({ kubeConfig, kinds }, options.watch),
    scopeOf: (apiVersion, kind) => pipe(kinds.resolve(apiVersion, kind), TE.map((info) => (info.namespaced ? 'Namespaced' : 'Cluster'))),
  };
};
