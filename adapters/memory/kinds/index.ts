/** What the server knows of a kind (`KindInfo`) and the key it files kinds under. */
export { groupKindKey, type KindInfo } from './kind-info.js';
export { builtinKinds } from './builtin-kinds.js';
