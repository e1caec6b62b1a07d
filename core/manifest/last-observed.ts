/** The current state (`lastObservedManifest`): observed fields of the live objects, with list lengths. */
import type { JsonObject } from '../json/json.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import { indexSchemas, schemaFor } from '../schema/lookup.js';
import { sameResource } from './identity.js';
import { observeResource } from './project.js';

/**
 * Step 8: replaces the response's entry in `lastObservedManifest` by the projection of the
 * response on its schema (appended when new). A key missing from the response is left out.
 */
export const updateLastObservedManifestFromResponse = (args: {
  readonly lastObservedManifest: ReadonlyArray<JsonObject>;
  readonly mangledObserverSchema: ReadonlyArray<ObserverSchema>;
  readonly response: JsonObject;
  readonly namespace?: string;
}): ReadonlyArray<JsonObject> => {
  const schema = schemaFor(indexSchemas(args.mangledObserverSchema), args.response);
  const observed = observeResource(args.response, schema ?? {});
  const index = args.lastObservedManifest.findIndex((entry) => sameResource(entry, args.response, args.namespace));
  return index < 0
    ? [...args.lastObservedManifest, observed]
    : args.lastObservedManifest.map((entry, i) => (i === index ? observed : entry));
};

/** Removes the entry of a deleted resource. */
export const removeFromLastObservedManifest = (
  lastObservedManifest: ReadonlyArray<JsonObject>,
  gone: JsonObject,
  namespace?: string,
): ReadonlyArray<JsonObject> => lastObservedManifest.filter((entry) => !sameResource(entry, gone, namespace));
