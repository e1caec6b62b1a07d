/** Finding the schema of a resource: schemas are matched by (apiVersion, kind, metadata.name). */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import { remember, memoTable, type Memo } from '../memo/memo.js';
import { jsonText } from '../json/text.js';

/**
 * The key a schema and its resource share. Schemas carry no namespace value (docs/behaviour.md §2:
 * `metadata.namespace` may only be null), so the namespace cannot take part in matching.
 */
export const schemaKeyOf = (object: JsonObject): string => {
  const metadata = getOwn(object, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  return `${jsonText(getOwn(object, 'apiVersion'))}|${jsonText(getOwn(object, 'kind'))}|${jsonText(name)}`;
};

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
const SCHEMA_INDEXES = memoTable<ReadonlyArray<ObserverSchema>, SchemaIndex>('schema index per schema list');

/** An object's `metadata.name`, as schemas are matched by it (any value, as written). */
export const nameOf = (object: JsonObject): JsonValue | undefined => {
  const metadata = getOwn(object, 'metadata');
  return isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
};

/**
 * Index of schemas; the first schema for a resource wins (custom schemas come first). One plan
 * indexes the same schema list several times (desired state, delta, patches): with a memo, once.
 */
export const indexSchemas = (schemas: ReadonlyArray<ObserverSchema>, memo?: Memo): SchemaIndex =>
  remember(memo, SCHEMA_INDEXES, schemas, buildSchemaIndex);

const buildSchemaIndex = (schemas: ReadonlyArray<ObserverSchema>): SchemaIndex => {
  const byName = new Map<
    JsonValue | undefined,
    Map<JsonValue | undefined, Map<JsonValue | undefined, ObserverSchema>>
  >();
  // An indexed loop: an array iterator's results are allocated until the loop is optimized (once per plan).
  for (let i = 0; i < schemas.length; i++) {
    const schema = schemas[i];
    if (schema === undefined) continue;
    const byKind = childMap(byName, getOwn(schema, 'apiVersion'));
    const named = childMap(byKind, getOwn(schema, 'kind'));
    const name = nameOf(schema);
    if (!named.has(name)) named.set(name, schema);
  }
  return { byName };
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

/** `schemaFor` in `schemas`, indexed on the first lookup: a plan that writes nothing may look nothing up. */
export const schemaLookup = (
  schemas: ReadonlyArray<ObserverSchema>,
  memo?: Memo,
): ((object: JsonObject) => ObserverSchema | undefined) => {
  let index: SchemaIndex | undefined;
  return (object) => schemaFor((index ??= indexSchemas(schemas, memo)), object);
};

/** The schemas by `schemaKeyOf`, the first one per key (for code that edits them by key). */
export const schemasByKey = (schemas: ReadonlyArray<ObserverSchema>): Map<string, ObserverSchema> => {
  const byKey = new Map<string, ObserverSchema>();
  for (const schema of schemas) {
    const key = schemaKeyOf(schema);
    if (!byKey.has(key)) byKey.set(key, schema);
  }
  return byKey;
};
