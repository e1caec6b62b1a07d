/** The server's defaults (what kube-apiserver fills in on a write) and the small JSON edits the hooks default with. */
export { isUnset, mapIn, objectAt, withDefaults } from './json-edit.js';
export { applyServerDefaults } from './server-defaults.js';
