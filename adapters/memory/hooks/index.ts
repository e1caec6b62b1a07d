/**
 * Per-kind steps of the write path (`hooksFor`) and the finalizers and CRD facts the verbs and controllers
 * share with them.
 */
export { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from './claim-hooks.js';
export {
  CRD_CLEANUP_FINALIZER,
  establishedStatus,
  isEstablished,
  kindFromCrd,
  serveKind,
  terminatingStatus,
} from './crd-hooks.js';
export { hooksFor } from './kind-hooks.js';
export { NAMESPACE_FINALIZER } from './namespace-hooks.js';
