/**
 * The in-memory Kubernetes API server: a `Cluster` with API-server semantics, seeded fault
 * injection and a manual clock — the embedded default cluster and the test kit's world.
 */
export {
  createMemoryCluster,
  type KindRegistration,
  type MemoryCluster,
  type MemoryClusterOptions,
  type ServedKind,
} from './memory-cluster.js';
export type { AdmissionOperation, MutatingAdmission } from './admission/index.js';
export { ManualClock, flushMicrotasks } from './clock/manual-clock.js';
export { systemClock } from './clock/system-clock.js';
export {
  allVerbs,
  faultProfiles,
  writeVerbs,
  type ConflictFault,
  type ErrorFault,
  type FaultMatch,
  type FaultProfile,
  type LatencyFault,
  type Verb,
  type WatchFault,
} from './faults/faults.js';
export { JSON_PATCH_APPLY_FAILURE } from './json/json-patch.js';
