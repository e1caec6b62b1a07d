/**
 * A custom resource pruned and defaulted by its structural schema, as apiextensions-apiserver
 * stores it: unknown fields are dropped (not under `x-kubernetes-preserve-unknown-fields`, not an
 * embedded resource's `apiVersion`, `kind`, `metadata`); a `null` where the schema is not
 * `nullable` is dropped, or replaced by the `default` when there is one; an absent member with a
 * `default` gets it (a copy, itself pruned and defaulted), in objects, list items and maps alike,
 * also under preserve-unknown-fields. The server does this on every write and every read.
 * docs/decisions/0024-custom-resource-schema.md.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../json/json.js';

const EMBEDDED_KEYS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

type Member = readonly [string, JsonValue];

const nullable = (schema: JsonObject): boolean => getOwn(schema, 'nullable') === true;

/** The stored form of a value under its schema. */
export const pruneAndDefault = (value: JsonValue, schema: JsonValue | undefined, defaults: boolean): JsonValue => {
  if (!isJsonObject(schema)) return value;
  if (isJsonArray(value)) {
    const items = getOwn(schema, 'items');
    return value.map((item) => pruneAndDefault(item, items, defaults));
  }
  return isJsonObject(value) ? objectMembers(value, schema, defaults) : value;
};

/** One member of an object: kept pruned, dropped (unknown, or a null the schema does not allow), or defaulted. */
const member = (value: JsonObject, schema: JsonObject, key: string, defaults: boolean): ReadonlyArray<Member> => {
  const properties = getOwn(schema, 'properties');
  const property = isJsonObject(properties) ? getOwn(properties, key) : undefined;
  const additional = getOwn(schema, 'additionalProperties');
  const known = isJsonObject(property) ? property : isJsonObject(additional) ? additional : undefined;
  const item = getOwn(value, key) ?? null;
  if (known === undefined) {
    const kept =
      additional === true ||
      getOwn(schema, 'x-kubernetes-preserve-unknown-fields') === true ||
      (getOwn(schema, 'x-kubernetes-embedded-resource') === true && EMBEDDED_KEYS.has(key));
    return kept ? [[key, item]] : [];
  }
  if (item === null && !nullable(known)) {
    const fallback = defaults ? getOwn(known, 'default') : undefined;
    return fallback === undefined ? [] : [[key, pruneAndDefault(fallback, known, defaults)]];
  }
  return [[key, pruneAndDefault(item, known, defaults)]];
};

const objectMembers = (value: JsonObject, schema: JsonObject, defaults: boolean): JsonObject => {
  const kept = Object.keys(value).flatMap((key) => member(value, schema, key, defaults));
  const properties = getOwn(schema, 'properties');
  if (!defaults || !isJsonObject(properties)) return objectFromEntries(kept);
  const filled = Object.keys(properties).flatMap((key): ReadonlyArray<Member> => {
    const property = getOwn(properties, key);
    const fallback = isJsonObject(property) ? getOwn(property, 'default') : undefined;
    return hasOwn(value, key) || fallback === undefined ? [] : [[key, pruneAndDefault(fallback, property, defaults)]];
  });
  return objectFromEntries([...kept, ...filled]);
};

/**
 * A whole custom resource: the body pruned and defaulted; `apiVersion`, `kind` and `metadata`
 * are the server's (ObjectMeta is checked by its own rules), never pruned here.
 */
export const pruneAndDefaultResource = (
  object: JsonObject,
  schema: JsonValue | undefined,
  defaults: boolean,
): JsonObject => {
  if (!isJsonObject(schema)) return object;
  const { apiVersion, kind, metadata, ...rest } = object;
  const body = pruneAndDefault(rest, schema, defaults);
  return {
    apiVersion: apiVersion ?? null,
    kind: kind ?? null,
    metadata: metadata ?? null,
    ...(isJsonObject(body) ? withoutServerKeys(body) : {}),
  };
};

const withoutServerKeys = (body: JsonObject): JsonObject => {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = body;
  return rest;
};
