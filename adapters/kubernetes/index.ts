/** The Kubernetes adapter: the Cluster port on a real API server (the runtime's informer does list + watch on top). */
export {
  createKubernetesCluster,
  type KubernetesCluster,
  type KubernetesClusterOptions,
} from './kubernetes-cluster.js';
export type { ServiceAccountIdentity } from './impersonation.js';
export type { KubeConfigSource } from './kube-config.js';
export type { WatchOptions } from './watch-source.js';
export type { BackoffOptions } from './backoff.js';
export type { FlowControlOptions, FlowControlSettings } from './flow-control.js';
