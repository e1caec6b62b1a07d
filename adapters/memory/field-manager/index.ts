/**
 * Server-side apply and managedFields, as structured-merge-diff and k8s.io/apiserver's field manager keep them
 * (docs/decisions/0027).
 */
export { conflictError } from './conflict-error.js';
export { trackApply, trackUpdate, withoutManagedFields, type WriteScope } from './field-manager.js';
export { forcedApply, untypable, writeScope } from './kind-scope.js';
export { managerOrUserAgent } from './user-agent.js';
export { typingProblem } from './typed-fields.js';
