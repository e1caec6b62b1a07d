/** Which kinds are namespaced, from what an offline plan can know (docs/behaviour.md §1: data, never guessed). */
import {
  builtinScopes,
  withCrdScopes,
  withLiveScopes,
  withTrustedCrdScopes,
  type Resource,
  type ScopeTable,
} from '../../../core/internal.js';

/**
 * Built-in kinds, the kinds declared by CustomResourceDefinitions the admin gave (`trusted`,
 * e.g. `--crd`), then those of the snapshot and of `-f` (tenant input: they only add kinds nobody
 * knows, never change a known scope, issue 19), and the kinds of live objects (an object read
 * back with a namespace is of a namespaced kind). CRDs inside a manifest are added by the planner itself.
 */
export const scopesFor = (
  crds: ReadonlyArray<Resource>,
  live: ReadonlyArray<Resource>,
  trusted: ReadonlyArray<Resource> = [],
): ScopeTable => withLiveScopes(withCrdScopes(withTrustedCrdScopes(builtinScopes, trusted), [...live, ...crds]), live);
