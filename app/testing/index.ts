/**
 * `kreconcile/testing`: the test kit for operator authors — the in-memory API server with fault
 * injection and a manual clock (in process, with a Promise facade, or served over HTTP on
 * loopback for any Kubernetes client), arbitraries, and the `checkConvergence` property runner.
 * Guide: docs/testing.md.
 */
export { createMemoryCluster, ManualClock, systemClock, faultProfiles } from '../../adapters/memory/index.js';
export type {
  MemoryCluster,
  MemoryClusterOptions,
  FaultProfile,
  ErrorFault,
  LatencyFault,
  ConflictFault,
  WatchFault,
  FaultMatch,
  Verb,
  KindRegistration,
  MutatingAdmission,
  AdmissionOperation,
} from '../../adapters/memory/index.js';
export type { KubernetesObject, KubernetesObjectMeta, ManifestObject } from '../runtime/kubernetes-object.js';
export { promiseCluster, ClusterCallError, isClusterCallError, type PromiseCluster } from './promise-cluster.js';
export {
  checkConvergence,
  ConvergenceFailure,
  type ConvergenceContext,
  type ConvergenceOptions,
  type HttpEndpoint,
  type PassContext,
} from './check-convergence.js';
export { checkController } from './check-controller.js';
export type { ControllerCheckOptions, ControllerModule, InProcessRun } from './controller-check-options.js';
export type { ControllerHost } from './in-process-effects.js';
export type { ControllerCommand } from './controller-process.js';
export { serveMemoryCluster, type ServeOptions, type ServedCluster } from '../../adapters/memory/http/index.js';
export { reconcileAllApplications } from './reconcile-all.js';
export { drive } from './drive.js';
export type { ShrinkBudget } from './shrink-budget.js';
export { applicationArbitrary } from './arbitraries.js';
export {
  manifestArbitrary,
  resourceArbitrary,
  liveEditArbitrary,
  liveEditsArbitrary,
  livePerturbationArbitrary,
  applyLiveEdit,
  applyLiveEdits,
  serverDefaultsArbitrary,
  foreignOwnerArbitrary,
  arbitraryKinds,
  arbitraryScopes,
  type LiveEdit,
} from '../../core/model/resource.arbitrary.js';
export {
  observerSchemaArbitrary,
  customSchemasArbitrary,
  listControlArbitrary,
} from '../../core/model/observer-schema.arbitrary.js';
