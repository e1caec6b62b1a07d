/** Which kinds are namespaced, from what an offline plan can know (SPEC section 1: data, never guessed). */
import { builtinScopes, withCrdScopes, withLiveScopes, type Resource, type ScopeTable } from '../../../core/index.js';

/**
 * Built-in kinds, the kinds declared by CustomResourceDefinitions (from `-f` and the snapshot),
 * and the kinds of live objects (an object read back with a namespace is of a namespaced kind).
 * CRDs inside a manifest are added by the planner itself.
 */
export const scopesFor = (crds: ReadonlyArray<Resource>, live: ReadonlyArray<Resource>): ScopeTable =>
  withLiveScopes(withCrdScopes(builtinScopes, [...crds, ...live]), live);
