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

type DeltaArgs = {
  readonly lastAppliedManifest: ReadonlyArray<Resource>;
  readonly lastObservedManifest: ReadonlyArray<JsonObject>;
  readonly mangledObserverSchema: ReadonlyArray<ObserverSchema>;
  readonly namespace?: string;
  /** The caller's caches (core/memo/memo.ts); without one, nothing is kept. */
  readonly memo?: Memo;
};

/**
 * Compares desired (`lastAppliedManifest`) and current (`lastObservedManifest`) on observed
 * fields only, resources matched by (apiVersion, kind, namespace, name).
 */
export const calculateResourceDelta = (args: DeltaArgs): ResourceDelta => {
  const findDesired =
    args.lastAppliedManifest.length === 0
      ? () => undefined
      : resourceFinder(args.lastAppliedManifest, args.namespace, args.memo);
  return {
    ...changedResources(args),
    deleted: args.lastObservedManifest.filter((entry) => findDesired(entry) === undefined),
  };
};

/**
 * The `new` and `modified` parts of `calculateResourceDelta`, for a caller that knows what is no
 * longer desired another way (the planner, from its pairing of desired and live objects).
 */
export const changedResources = (args: DeltaArgs): Omit<ResourceDelta, 'deleted'> => {
  const { memo, namespace } = args;
  if (args.lastAppliedManifest.length === 0) return NOTHING_CHANGED;
  const schemas = indexSchemas(args.mangledObserverSchema, memo);
  const findCurrent = resourceFinder(args.lastObservedManifest, namespace, memo);
  const matched = args.lastAppliedManifest.map((desired) => [desired, findCurrent(desired)] as const);
  return {
    new: matched.filter(([, observed]) => observed === undefined).map(([desired]) => desired),
    modified: matched
      .filter(
        ([desired, observed]) =>
          observed !== undefined && hasDrift(desired, observed, schemaFor(schemas, desired) ?? {}),
      )
      .map(([desired]) => desired),
  };
};

/** Nothing desired left to compare (a plan in sync passes none): no index of the current state is built. */
const NOTHING_CHANGED: Omit<ResourceDelta, 'deleted'> = { new: [], modified: [] };
