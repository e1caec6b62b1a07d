/**
 * JSON as the server stores and serves it: private copies, JSON Patch, merge patch, objects at the asked
 * apiVersion.
 */
export { deepCopy, deepFreeze, frozenCopy, orderedCopy, type KeyOrder, type KeyPlaces } from './json-copy.js';
export { applyJsonPatch } from './json-patch.js';
export { mergePatch } from './merge-patch.js';
export { servedAs } from './served-object.js';
