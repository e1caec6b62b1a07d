/**
 * `x-kubernetes-list-type: set` and `map` as the server checks them after the schema validators:
 * a set's items are unique, a map's items unique by their `x-kubernetes-list-map-keys`; each
 * repeat is `Duplicate value` at its index.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import type { ErrorCause } from '../../ports/errors.js';
import { duplicate } from './go-text.js';
import { forEachNode, indexPath } from './walk.js';
import { valueKey } from './value-key.js';

const mapKeysOf = (item: JsonValue, keys: ReadonlyArray<string>): JsonObject | undefined => {
  if (!isJsonObject(item)) return undefined;
  const entries = keys.flatMap((key) => {
    const value = getOwn(item, key);
    return value === undefined ? [] : [[key, value] as const];
  });
  return Object.fromEntries(entries);
};

const duplicatesIn = (list: ReadonlyArray<JsonValue>, schema: JsonObject, path: string): ReadonlyArray<ErrorCause> => {
  const type = getOwn(schema, 'x-kubernetes-list-type');
  const mapKeys = getOwn(schema, 'x-kubernetes-list-map-keys');
  const keys = isJsonArray(mapKeys) ? mapKeys.filter((key): key is string => typeof key === 'string') : [];
  if (type !== 'set' && type !== 'map') return [];
  const seen = new Set<string>();
  return list.flatMap((item, index) => {
    const identity = type === 'set' ? item : mapKeysOf(item, keys);
    if (identity === undefined) return [];
    const key = valueKey(identity);
    if (!seen.has(key)) return (seen.add(key), []);
    return [duplicate(indexPath(path, index), identity)];
  });
};

export const listTypeCauses = (value: JsonValue, schema: JsonObject): ReadonlyArray<ErrorCause> => {
  const causes: ErrorCause[] = [];
  forEachNode(value, schema, '', (node, nodeSchema, path) => {
    if (isJsonArray(node)) causes.push(...duplicatesIn(node, nodeSchema, path));
  });
  return causes;
};
