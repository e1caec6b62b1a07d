/** The desired state (`lastAppliedManifest`): the spec, plus observed values learned from the cluster. */
import { getOwn, hasOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { listElements, type ObserverSchema, type SchemaNode } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import { indexSchemas, schemaFor } from '../schema/lookup.js';
import { resourceFinder, sameResource } from './identity.js';
import { projectKnown } from './project.js';

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
}): ReadonlyArray<Resource> => {
  const schemas = indexSchemas(args.mangledObserverSchema);
  const findEarlier = resourceFinder(args.lastAppliedManifest ?? [], args.namespace);
  return args.manifest.map((resource) => {
    const earlier = findEarlier(resource);
    const schema = schemaFor(schemas, resource);
    return (earlier === undefined || schema === undefined ? resource : keepLearned(resource, earlier, schema)) as Resource;
  });
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
  const learned = learn(args.lastAppliedManifest[index], args.response, schema) as Resource;
  return args.lastAppliedManifest.map((desired, i) => (i === index ? learned : desired));
};

/** Merges the spec value with earlier learned observed values (spec wins). */
const keepLearned = (spec: JsonValue, earlier: JsonValue | undefined, schema: SchemaNode): JsonValue => {
  if (schema === null || earlier === undefined) return spec;
  if (isJsonArray(schema)) return isJsonArray(spec) && isJsonArray(earlier) ? keepLearnedList(spec, earlier, listElements(schema)) : spec;
  if (!isJsonObject(schema) || !isJsonObject(spec) || !isJsonObject(earlier)) return spec;
  const fromSpec = Object.entries(spec).map(([key, value]) =>
    [key, hasOwn(schema, key) ? keepLearned(value, getOwn(earlier, key), schema[key] ?? null) : value] as const);
  const learnedOnly = Object.entries(schema).flatMap(([key, child]) => {
    if (hasOwn(spec, key)) return [];
    const known = projectKnown(getOwn(earlier, key), child);
    return known === undefined ? [] : [[key, known] as const];
  });
  return objectFromEntries([...fromSpec, ...learnedOnly]);
};

const keepLearnedList = (spec: ReadonlyArray<JsonValue>, earlier: ReadonlyArray<JsonValue>, elements: ReadonlyArray<SchemaNode>): JsonValue => {
  const merged = spec.map((item, i) => (i < elements.length ? keepLearned(item, earlier[i], elements[i] ?? null) : item));
  for (let i = spec.length; i < elements.length; i++) {
    const known = projectKnown(earlier[i], elements[i] ?? null);
    if (known === undefined) break;
    merged.push(known);
  }
  return merged;
};

/** Fills unknown observed values of `desired` from `live`; known values are kept. */
export const learn = (desired: JsonValue | undefined, live: JsonValue | undefined, schema: SchemaNode): JsonValue | undefined => {
  if (desired === undefined || desired === null) return projectKnown(live, schema) ?? desired;
  if (schema === null || live === undefined || live === null) return desired;
  if (isJsonArray(schema)) return isJsonArray(desired) && isJsonArray(live) ? learnList(desired, live, listElements(schema)) : desired;
  if (!isJsonObject(schema) || !isJsonObject(desired) || !isJsonObject(live)) return desired;
  const updated = Object.entries(desired).map(([key, value]) =>
    [key, hasOwn(schema, key) ? (learn(value, getOwn(live, key), schema[key] ?? null) ?? value) : value] as const);
  const added = Object.entries(schema).flatMap(([key, child]) => {
    if (hasOwn(desired, key)) return [];
    const known = projectKnown(getOwn(live, key), child);
    return known === undefined ? [] : [[key, known] as const];
  });
  return added.length === 0 && updated.every(([key, value]) => value === desired[key]) ? desired : objectFromEntries([...updated, ...added]);
};

const learnList = (desired: ReadonlyArray<JsonValue>, live: ReadonlyArray<JsonValue>, elements: ReadonlyArray<SchemaNode>): JsonValue => {
  const updated = desired.map((item, i) => (i < elements.length ? (learn(item, live[i], elements[i] ?? null) ?? item) : item));
  for (let i = desired.length; i < Math.min(elements.length, live.length); i++) {
    const known = projectKnown(live[i], elements[i] ?? null);
    if (known === undefined) break;
    updated.push(known);
  }
  return updated.length === desired.length && updated.every((item, i) => item === desired[i]) ? desired : updated;
};

/** Learns one resource's unknown observed values from its live object (the per-resource step 7). */
export const learnFromLive = (desired: Resource, live: JsonObject, schema: SchemaNode): Resource =>
  (learn(desired, live, schema) ?? desired) as Resource;
