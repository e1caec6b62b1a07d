/**
 * Structural-schema handling of custom resources, as apiextensions-apiserver does it: unknown
 * fields are pruned (unless `x-kubernetes-preserve-unknown-fields`), `default`s fill absent
 * members of objects that exist. Validation (types, required, CEL) is not modelled.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import { deepCopy } from '../json/index.js';

const preserves = (schema: JsonObject): boolean => getOwn(schema, 'x-kubernetes-preserve-unknown-fields') === true;

/** Prunes and defaults a whole custom resource; `apiVersion`, `kind`, `metadata` are never pruned here. */
export const pruneAndDefaultResource = (
  object: JsonObject,
  schema: JsonValue | undefined,
  defaults: boolean,
): JsonObject => {
  if (!isJsonObject(schema)) return object;
  const { apiVersion, kind, metadata, ...rest } = object;
  const body = prune(rest, schema, defaults);
  return {
    apiVersion: apiVersion ?? null,
    kind: kind ?? null,
    metadata: metadata ?? null,
    ...(isJsonObject(body) ? body : {}),
  };
};

const prune = (value: JsonValue, schema: JsonValue | undefined, defaults: boolean): JsonValue => {
  if (!isJsonObject(schema)) return value;
  if (isJsonArray(value)) return value.map((item) => prune(item, getOwn(schema, 'items'), defaults));
  return isJsonObject(value) ? pruneObject(value, schema, defaults) : value;
};

const pruneObject = (value: JsonObject, schema: JsonObject, defaults: boolean): JsonObject => {
  const properties = getOwn(schema, 'properties');
  const known = isJsonObject(properties) ? properties : {};
  const additional = getOwn(schema, 'additionalProperties');
  const embedded = getOwn(schema, 'x-kubernetes-embedded-resource') === true;
  const kept = Object.keys(value).flatMap((key): Array<readonly [string, JsonValue]> => {
    const member = getOwn(value, key) ?? null;
    if (hasOwn(known, key)) return [[key, prune(member, getOwn(known, key), defaults)]];
    if (isJsonObject(additional)) return [[key, prune(member, additional, defaults)]];
    const keep =
      additional === true || preserves(schema) || (embedded && ['apiVersion', 'kind', 'metadata'].includes(key));
    return keep ? [[key, member]] : [];
  });
  const filled = defaults ? defaultsFor(known, value, defaults) : [];
  return objectFromEntries([...kept, ...filled]);
};

const defaultsFor = (known: JsonObject, value: JsonObject, defaults: boolean): Array<readonly [string, JsonValue]> =>
  Object.keys(known).flatMap((key): Array<readonly [string, JsonValue]> => {
    const property = getOwn(known, key);
    const fallback = isJsonObject(property) ? getOwn(property, 'default') : undefined;
    return hasOwn(value, key) || fallback === undefined ? [] : [[key, prune(deepCopy(fallback), property, defaults)]];
  });
