/** The resource delta (docs/behaviour.md §4.5): which resources to create, update and delete. */
import type { JsonObject } from '../json/json.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import { resourceFinder } from '../manifest/identity.js';
import { indexSchemas, schemaFor } from '../schema/lookup.js';
import { hasDrift } from './drift.js';
import type { Memo } from '../memo/memo.js';

export type ResourceDelta = {
  /** Desired, not in the current state: to create. */
  readonly new: ReadonlyArray<Resource>;
  /** In both, differing on observed fields: to patch. */
  readonly modified: ReadonlyArray<Resource>;
  /** Current, no longer desired: to delete. */
  readonly deleted: ReadonlyArray<JsonObject>;
};

/**
 * Compares desired (`lastAppliedManifest`) and current (`lastObservedManifest`) on observed
 * fields only, resources matched by (apiVersion, kind, namespace, name).
 */
export const calculateResourceDelta = (args: {
  readonly lastAppliedManifest: ReadonlyArray<Resource>;
  readonly lastObservedManifest: ReadonlyArray<JsonObject>;
  readonly mangledObserverSchema: ReadonlyArray<ObserverSchema>;
  readonly namespace?: string;
  /** The caller's caches (core/memo/memo.ts); without one, nothing is kept. */
  readonly memo?: Memo;
}): ResourceDelta => {
  const { memo, namespace } = args;
  const schemas = indexSchemas(args.mangledObserverSchema, memo);
  // Nothing desired left to compare (a plan in sync passes none): no index of the current state is built.
  const findCurrent =
    args.lastAppliedManifest.length === 0 ? undefined : resourceFinder(args.lastObservedManifest, namespace, memo);
  const findDesired =
    args.lastAppliedManifest.length === 0 ? () => undefined : resourceFinder(args.lastAppliedManifest, namespace, memo);
  const matched = args.lastAppliedManifest.map((desired) => [desired, findCurrent?.(desired)] as const);
  return {
    new: matched.filter(([, observed]) => observed === undefined).map(([desired]) => desired),
    modified: matched
      .filter(
        ([desired, observed]) =>
          observed !== undefined && hasDrift(desired, observed, schemaFor(schemas, desired) ?? {}),
      )
      .map(([desired]) => desired),
    deleted: args.lastObservedManifest.filter((entry) => findDesired(entry) === undefined),
  };
};
