/** The Kubernetes adapter: the Cluster port on a real API server (the runtime's informer does list + watch on top). */
export {
  createKubernetesCluster,
  type KubernetesCluster,
  type KubernetesClusterOptions,
} from './kubernetes-cluster.js';
export { serviceAccountUsername, type ServiceAccountIdentity } from './impersonation.js';
export { loadKubeConfig, type KubeConfigSource } from './kube-config.js';
export { toClusterError, statusError } from './api-errors.js';
export type { WatchOptions } from './watch-source.js';
export type { BackoffOptions } from './backoff.js';
export {
  DEFAULT_FLOW_CONTROL,
  flowControlProblems,
  type FlowControlOptions,
  type FlowControlSettings,
  type FlowControlStats,
} from './flow-control.js';
