/** Finding the schema of a resource: schemas are matched by (apiVersion, kind, metadata.name). */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import type { ObserverSchema } from '../model/observer-schema.js';

/**
 * The key a schema and its resource share. Schemas carry no namespace value (SPEC section 2:
 * `metadata.namespace` may only be null), so the namespace cannot take part in matching.
 */
export const schemaKeyOf = (object: JsonObject): string => {
  let key = keyCache.get(object);
  if (key === undefined) {
    key = uncachedSchemaKeyOf(object);
    keyCache.set(object, key);
  }
  return key;
};

/** `schemaKeyOf` without keeping the key: for objects asked once (a fresh spec's resources). */
export const uncachedSchemaKeyOf = (object: JsonObject): string => {
  const metadata = getOwn(object, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  return `${String(getOwn(object, 'apiVersion'))}|${String(getOwn(object, 'kind'))}|${String(name)}`;
};

// Objects are immutable by contract: a key computed once stays true for the object's life.
const keyCache = new WeakMap<object, string>();

/**
 * Schemas by (apiVersion, kind, metadata.name) in nested maps keyed by the values themselves: a
 * lookup builds no key string and caches nothing per object (what costs on fresh objects).
 * Matches as `schemaKeyOf` does for the string values of validated schemas and resources.
 */
export type SchemaIndex = {
  readonly byName: ReadonlyMap<
    JsonValue | undefined,
    ReadonlyMap<JsonValue | undefined, ReadonlyMap<JsonValue | undefined, ObserverSchema>>
  >;
};

// Schema lists are immutable by contract, so their index stays true for the list's life.
const indexCache = new WeakMap<ReadonlyArray<ObserverSchema>, SchemaIndex>();

const nameOf = (object: JsonObject): JsonValue | undefined => {
  const metadata = getOwn(object, 'metadata');
  return isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
};

/** Index of schemas; the first schema for a resource wins (custom schemas come first). */
export const indexSchemas = (schemas: ReadonlyArray<ObserverSchema>): SchemaIndex => {
  // One plan indexes the same schema list several times (desired state, delta, patches).
  const cached = indexCache.get(schemas);
  if (cached !== undefined) return cached;
  const byName = new Map<
    JsonValue | undefined,
    Map<JsonValue | undefined, Map<JsonValue | undefined, ObserverSchema>>
  >();
  for (const schema of schemas) {
    const byKind = childMap(byName, getOwn(schema, 'apiVersion'));
    const named = childMap(byKind, getOwn(schema, 'kind'));
    const name = nameOf(schema);
    if (!named.has(name)) named.set(name, schema);
  }
  const index = { byName };
  indexCache.set(schemas, index);
  return index;
};

const childMap = <K, V>(parent: Map<K, Map<JsonValue | undefined, V>>, key: K): Map<JsonValue | undefined, V> => {
  let child = parent.get(key);
  if (child === undefined) {
    child = new Map();
    parent.set(key, child);
  }
  return child;
};

export const schemaFor = (index: SchemaIndex, object: JsonObject): ObserverSchema | undefined =>
  index.byName.get(getOwn(object, 'apiVersion'))?.get(getOwn(object, 'kind'))?.get(nameOf(object));

/** The schemas by `schemaKeyOf`, the first one per key (for code that edits them by key). */
export const schemasByKey = (schemas: ReadonlyArray<ObserverSchema>): Map<string, ObserverSchema> => {
  const byKey = new Map<string, ObserverSchema>();
  for (const schema of schemas) {
    const key = schemaKeyOf(schema);
    if (!byKey.has(key)) byKey.set(key, schema);
  }
  return byKey;
};
