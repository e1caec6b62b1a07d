/** Finding the schema of a resource: schemas are matched by (apiVersion, kind, metadata.name). */
import { getOwn, isJsonObject, type JsonObject } from '../json/json.js';
import type { ObserverSchema } from '../model/observer-schema.js';

/**
 * The key a schema and its resource share. Schemas carry no namespace value (SPEC section 2:
 * `metadata.namespace` may only be null), so the namespace cannot take part in matching.
 */
export const schemaKeyOf = (object: JsonObject): string => {
  let key = keyCache.get(object);
  if (key === undefined) {
    const metadata = getOwn(object, 'metadata');
    const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
    key = `${String(getOwn(object, 'apiVersion'))}|${String(getOwn(object, 'kind'))}|${String(name)}`;
    keyCache.set(object, key);
  }
  return key;
};

// Objects are immutable by contract: a key computed once stays true for the object's life.
const keyCache = new WeakMap<object, string>();

export type SchemaIndex = ReadonlyMap<string, ObserverSchema>;

// Schema lists are immutable by contract, so their index stays true for the list's life.
const indexCache = new WeakMap<ReadonlyArray<ObserverSchema>, SchemaIndex>();

/** Index of schemas by key; the first schema for a key wins (custom schemas come first). */
export const indexSchemas = (schemas: ReadonlyArray<ObserverSchema>): SchemaIndex => {
  // One plan indexes the same schema list several times (desired state, delta, patches).
  const cached = indexCache.get(schemas);
  if (cached !== undefined) return cached;
  const index = new Map<string, ObserverSchema>();
  indexCache.set(schemas, index);
  for (const schema of schemas) if (!index.has(schemaKeyOf(schema))) index.set(schemaKeyOf(schema), schema);
  return index;
};

export const schemaFor = (index: SchemaIndex, object: JsonObject): ObserverSchema | undefined => index.get(schemaKeyOf(object));
