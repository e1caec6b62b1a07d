/**
 * The Cluster port on a real Kubernetes API server through @kubernetes/client-node: any kind
 * (core, other groups, custom resources) through one REST path, found by discovery.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { Cluster } from '../../core/ports/cluster.js';
import { createKindResolver, type KindResolver } from './discovery.js';
import { createFlowControl, type FlowControl, type FlowControlOptions } from './flow-control.js';
import {
  boundedMemo,
  impersonatingKubeConfig,
  serviceAccountUsername,
  type ServiceAccountIdentity,
} from './impersonation.js';
import { loadKubeConfig, type KubeConfigSource } from './kube-config.js';
import type { OperationContext } from './operation-context.js';
import { createReader } from './read-operations.js';
import { createRestClient, type RestClient } from './rest-client.js';
import { createWatchSource, type WatchOptions } from './watch-source.js';
import { createWriter, patchObject, putObject } from './write-operations.js';

export type KubernetesClusterOptions = {
  /** Bound on every non-watch request (default 30 s). */
  readonly requestTimeoutMs?: number;
  readonly watch?: WatchOptions;
  /** How many impersonating clients to keep (least recently used dropped first; default 256). */
  readonly impersonationCacheSize?: number;
  /**
   * Client QPS, burst and requests in flight, shared by every client of this cluster, impersonating
   * ones included (defaults: {@link DEFAULT_FLOW_CONTROL}). Errors: throws on a non-positive setting.
   */
  readonly flowControl?: FlowControlOptions;
};

/** A Cluster plus what only a real cluster has. */
export type KubernetesCluster = Cluster & {
  /** The API server URL of the current context. */
  readonly server: string;
  readonly kubeConfig: KubeConfig;
  /**
   * The same cluster with every request (reads, writes, watches, status) authorized as the
   * ServiceAccount: `Impersonate-User: system:serviceaccount:<ns>:<name>`. One client per
   * identity, cached and bounded; discovery is shared (kinds and scopes do not depend on who asks).
   * The operator's own credentials need `impersonate` on that `serviceaccounts` object.
   */
  readonly impersonate: (account: ServiceAccountIdentity) => Cluster;
  /** The shared limiter: its settings, and requests queued and in flight now (for metrics). */
  readonly flowControl: Pick<FlowControl, 'settings' | 'stats'>;
  /**
   * The same cluster (the operator's identity, the same limiter and connections) with every request
   * at low priority: sent only with slots and tokens no normal request waits for, and refused at once,
   * unsent, when `maxLowPriorityQueued` already wait (`TooManyRequests`, code 0). For what is
   * best-effort and must not hold a reconcile back: Events (the operator's `eventCluster`).
   */
  readonly lowPriority: Cluster;
};

/**
 * Builds the adapter.
 * Errors: throws when the kubeconfig cannot be loaded — a startup misconfiguration, reported
 * once by the composition root (use {@link loadKubeConfig} to get it as a value instead).
 */
export const createKubernetesCluster = (
  source: KubeConfigSource,
  options: KubernetesClusterOptions = {},
): KubernetesCluster => {
  const kubeConfig = pipe(
    loadKubeConfig(source),
    E.getOrElseW((message) => {
      throw new Error(message);
    }),
  );
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const flow = createFlowControl(options.flowControl);
  const rest = createRestClient(kubeConfig, timeoutMs, flow);
  const kinds = createKindResolver(rest);
  const impersonated = boundedMemo(options.impersonationCacheSize ?? 256, (username) => {
    const impersonating = impersonatingKubeConfig(kubeConfig, username);
    return clusterOn(impersonating, createRestClient(impersonating, timeoutMs, flow), kinds, flow, options.watch);
  });
  return {
    server: kubeConfig.getCurrentCluster()?.server ?? '',
    kubeConfig,
    ...clusterOn(kubeConfig, rest, kinds, flow, options.watch),
    impersonate: (account) => impersonated(serviceAccountUsername(account)),
    flowControl: { settings: flow.settings, stats: flow.stats },
    lowPriority: clusterOn(kubeConfig, atLowPriority(rest), kinds, flow, options.watch),
  };
};

/** `rest` (its connections too) sending every request at low priority; discovery stays on `rest`. */
const atLowPriority = (rest: RestClient): RestClient => ({ send: (request) => rest.send(request, 'low') });

/** The Cluster port for one identity (the kubeconfig's current user) over a shared kind resolver. */
const clusterOn = (
  kubeConfig: KubeConfig,
  rest: RestClient,
  kinds: KindResolver,
  flow: FlowControl,
  watch: WatchOptions | undefined,
): Cluster => {
  const context: OperationContext = { rest, kinds };
  return {
    ...createReader(context),
    ...createWriter(context),
    updateStatus: (object, options) => putObject(context, 'status')(object, options),
    patchStatus: (ref, patch, options) => patchObject(context, 'status')(ref, patch, options),
    watch: createWatchSource({ kubeConfig, kinds, flow }, watch),
    scopeOf: (apiVersion, kind) =>
      pipe(
        kinds.resolve(apiVersion, kind),
        TE.map((info) => (info.namespaced ? 'Namespaced' : 'Cluster')),
      ),
  };
};
