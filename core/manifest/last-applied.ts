/** The desired state (`lastAppliedManifest`): the spec, plus observed values learned from the cluster. */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  setOwn,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { listElements, type ObserverSchema, type SchemaNode } from '../model/observer-schema.js';
import { isResource, type Resource } from '../model/resource.js';
import { indexSchemas, schemaFor } from '../schema/lookup.js';
import { resourceFinder, sameResource } from './identity.js';
import { projectKnown } from './project.js';
import type { ByPosition } from '../schema/default.js';
import { findByPosition } from './by-position.js';
import type { Memo } from '../memo/memo.js';

/**
 * Step 3: desired = a copy of the spec; for observed keys the spec does not set, the value
 * learned earlier is kept (dicts by key, lists by position). Spec values always win; resources
 * and non-observed fields removed from the spec disappear.
 */
export const updateLastAppliedManifestFromSpec = (args: {
  readonly manifest: ReadonlyArray<Resource>;
  readonly mangledObserverSchema: ReadonlyArray<ObserverSchema>;
  readonly lastAppliedManifest: ReadonlyArray<Resource> | undefined;
  /** The Application's namespace: resources written without one live there. */
  readonly namespace?: string;
  /** The caller's caches (core/memo/memo.ts); without one, nothing is kept. */
  readonly memo?: Memo;
}): ReadonlyArray<Resource> => lastAppliedFromSpec(args);

/** `updateLastAppliedManifestFromSpec`, with what the plan knows of the manifest by position. */
export const lastAppliedFromSpec = (
  args: Parameters<typeof updateLastAppliedManifestFromSpec>[0] & {
    /**
     * What generating the schemas learned of the resources `manifest` was made from, by position
     * (core/schema/default.ts): each resource of `manifest` is the one there, its namespace set (`inNamespace`) or not.
     */
    readonly byPosition?: ByPosition;
  },
): ReadonlyArray<Resource> => {
  const earlierAt = earlierFinder(args);
  const schemaAt = schemaFinder(args);
  const own = args.byPosition?.ownSchema;
  return args.manifest.map((resource, index) => {
    const schema = schemaAt(index);
    if (schema === undefined || (own?.[index] === true && keepsKeysOf(resource, schema))) return resource;
    const earlier = earlierAt(index);
    if (earlier === undefined) return resource;
    // Spec values win and identification is spec: the merge is still a Resource (checked, not assumed).
    const kept = keepLearned(resource, earlier, schema);
    return isResource(kept) ? kept : resource;
  });
};

/**
 * Whether a resource still has every key its own schema was generated from (`ByPosition.ownSchema`): the schema then
 * observes no key the resource does not write, and `keepLearned` returns the resource whatever was learned. Setting
 * its namespace (`inNamespace`) shares every other value and only ever adds `metadata.namespace`, or drops it from a
 * cluster-scoped resource: then the schema observes a key the resource lacks.
 */
const keepsKeysOf = (resource: Resource, schema: ObserverSchema): boolean => {
  const metadata = getOwn(schema, 'metadata');
  return (
    !isJsonObject(metadata) ||
    getOwn(metadata, 'namespace') === undefined ||
    getOwn(resource.metadata, 'namespace') !== undefined
  );
};

type Inputs = Parameters<typeof lastAppliedFromSpec>[0];

/** The earlier entry of `manifest[index]`: by position where the manifest's identities are distinct. */
const earlierFinder = ({ manifest, lastAppliedManifest = [], namespace, memo, byPosition }: Inputs) => {
  if (byPosition?.distinct === true)
    return findByPosition(lastAppliedManifest, { distinct: manifest }, namespace, memo);
  const find = resourceFinder(lastAppliedManifest, namespace, memo);
  return (index: number) => {
    const resource = manifest[index];
    return resource === undefined ? undefined : find(resource);
  };
};

/** The schema of `manifest[index]`. */
const schemaFinder = ({ manifest, mangledObserverSchema, memo, byPosition }: Inputs) => {
  if (byPosition !== undefined) return (index: number) => byPosition.perResource[index];
  const schemas = indexSchemas(mangledObserverSchema, memo);
  return (index: number) => {
    const resource = manifest[index];
    return resource === undefined ? undefined : schemaFor(schemas, resource);
  };
};

/**
 * Step 7: after a create or patch (and from the live object at each reconcile), observed keys
 * whose value is not yet known in desired are filled from `response`. Known values are never
 * overwritten: the user's input prevails. A learned `null` stays unknown; keys are looked up
 * exactly as written (camelCase).
 */
export const updateLastAppliedManifestFromResponse = (args: {
  readonly lastAppliedManifest: ReadonlyArray<Resource>;
  readonly mangledObserverSchema: ReadonlyArray<ObserverSchema>;
  readonly response: JsonObject;
  readonly namespace?: string;
}): ReadonlyArray<Resource> => {
  const schema = schemaFor(indexSchemas(args.mangledObserverSchema), args.response);
  if (schema === undefined) return args.lastAppliedManifest;
  const index = args.lastAppliedManifest.findIndex((desired) => sameResource(desired, args.response, args.namespace));
  if (index < 0) return args.lastAppliedManifest;
  const learned = learn(args.lastAppliedManifest[index], args.response, schema);
  if (!isResource(learned)) return args.lastAppliedManifest;
  return args.lastAppliedManifest.map((desired, i) => (i === index ? learned : desired));
};

/** Merges the spec value with earlier learned observed values (spec wins); shares unchanged subtrees. */
const keepLearned = (spec: JsonValue, earlier: JsonValue | undefined, schema: SchemaNode): JsonValue => {
  if (schema === null || earlier === undefined) return spec;
  if (isJsonArray(schema))
    return isJsonArray(spec) && isJsonArray(earlier) ? keepLearnedList(spec, earlier, schema) : spec;
  if (!isJsonObject(schema) || !isJsonObject(spec) || !isJsonObject(earlier)) return spec;
  // Copied only once something differs: a spec with nothing learned is returned as it is.
  let merged: Record<string, JsonValue> | undefined;
  for (const key in spec) {
    const value = spec[key];
    if (value === undefined || !hasOwn(spec, key)) continue;
    const next = hasOwn(schema, key) ? keepLearned(value, getOwn(earlier, key), schema[key] ?? null) : value;
    if (next !== value && merged === undefined) merged = copyBefore(spec, key);
    if (merged !== undefined) setOwn(merged, key, next);
  }
  for (const key in schema) {
    if (!hasOwn(schema, key) || hasOwn(spec, key)) continue;
    const known = projectKnown(getOwn(earlier, key), schema[key] ?? null);
    if (known === undefined) continue;
    merged ??= copyBefore(spec, undefined);
    setOwn(merged, key, known);
  }
  return merged ?? spec;
};

/** A new object with the keys of `object` that come before `stop` (all of them without one). */
const copyBefore = (object: JsonObject, stop: string | undefined): Record<string, JsonValue> => {
  const copy: Record<string, JsonValue> = {};
  for (const key in object) {
    if (key === stop) break;
    const value = object[key];
    if (value !== undefined && hasOwn(object, key)) setOwn(copy, key, value);
  }
  return copy;
};

/** `schema` is a list schema: element schemas, then the list control (never used as an element). */
const keepLearnedList = (
  spec: ReadonlyArray<JsonValue>,
  earlier: ReadonlyArray<JsonValue>,
  schema: ReadonlyArray<SchemaNode>,
): JsonValue => {
  const elementCount = schema.length - 1;
  let merged: JsonValue[] | undefined;
  for (let i = 0; i < spec.length; i++) {
    const item = spec[i] ?? null;
    const next = i < elementCount ? keepLearned(item, earlier[i], schema[i] ?? null) : item;
    if (next !== item && merged === undefined) merged = spec.slice(0, i);
    merged?.push(next);
  }
  for (let i = spec.length; i < elementCount; i++) {
    const known = projectKnown(earlier[i], schema[i] ?? null);
    if (known === undefined) break;
    merged ??= spec.slice();
    merged.push(known);
  }
  return merged ?? spec;
};

/** Fills unknown observed values of `desired` from `live`; known values are kept; shares unchanged subtrees. */
export const learn = (
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  schema: SchemaNode,
): JsonValue | undefined => {
  if (desired === undefined || desired === null) return projectKnown(live, schema) ?? desired;
  if (schema === null || live === undefined || live === null) return desired;
  if (isJsonArray(schema))
    return isJsonArray(desired) && isJsonArray(live) ? learnList(desired, live, listElements(schema)) : desired;
  if (!isJsonObject(schema) || !isJsonObject(desired) || !isJsonObject(live)) return desired;
  let updated: Array<readonly [string, JsonValue]> | undefined;
  const keys = Object.keys(desired);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? '';
    const value = desired[key] ?? null;
    const next = hasOwn(schema, key) ? (learn(value, getOwn(live, key), schema[key] ?? null) ?? value) : value;
    if (next !== value && updated === undefined)
      updated = keys.slice(0, i).map((k) => [k, desired[k] ?? null] as const);
    updated?.push([key, next]);
  }
  for (const key in schema) {
    if (!hasOwn(schema, key) || hasOwn(desired, key)) continue;
    const known = projectKnown(getOwn(live, key), schema[key] ?? null);
    if (known === undefined) continue;
    updated ??= keys.map((k) => [k, desired[k] ?? null] as const);
    updated.push([key, known]);
  }
  return updated === undefined ? desired : objectFromEntries(updated);
};

const learnList = (
  desired: ReadonlyArray<JsonValue>,
  live: ReadonlyArray<JsonValue>,
  elements: ReadonlyArray<SchemaNode>,
): JsonValue => {
  const updated = desired.map((item, i) =>
    i < elements.length ? (learn(item, live[i], elements[i] ?? null) ?? item) : item,
  );
  for (let i = desired.length; i < Math.min(elements.length, live.length); i++) {
    const known = projectKnown(live[i], elements[i] ?? null);
    if (known === undefined) break;
    updated.push(known);
  }
  return updated.length === desired.length && updated.every((item, i) => item === desired[i]) ? desired : updated;
};

/** Learns one resource's unknown observed values from its live object (the per-resource step 7). */
export const learnFromLive = (desired: Resource, live: JsonObject, schema: SchemaNode): Resource => {
  // Known values are never overwritten, identification among them: still a Resource (checked, not assumed).
  const learned = learn(desired, live, schema);
  return isResource(learned) ? learned : desired;
};
