/**
 * What a kind-specific hook of the in-memory server may do (types only, shared by kind-hooks.ts and the hooks
 * beside it).
 */
import type * as E from 'fp-ts/lib/Either.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import type { ServerState } from '../server-state.js';

export type HookContext = { readonly state: ServerState; readonly dryRun: boolean };

export type KindHooks = {
  /** After defaulting, before validation and commit. */
  readonly prepareCreate?: (object: Resource, context: HookContext) => E.Either<ClusterError, Resource>;
  readonly prepareUpdate?: (stored: Resource, next: Resource, context: HookContext) => E.Either<ClusterError, Resource>;
  /** After the object was stored (created or updated). */
  readonly committed?: (object: Resource, context: HookContext) => void;
  /** After the object left storage. */
  readonly removed?: (object: Resource, context: HookContext) => void;
};
