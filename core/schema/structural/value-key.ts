/**
 * A key that compares decoded JSON values as Go's reflect.DeepEqual does (object key order
 * ignored): JSON with keys sorted, as Go's encoding/json writes a map.
 */
import { getOwn, isJsonObject, type JsonValue } from '../../json/json.js';

export const valueKey = (value: JsonValue): string => {
  if (!isJsonObject(value)) return Array.isArray(value) ? `[${value.map(valueKey).join(',')}]` : JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${valueKey(getOwn(value, key) ?? null)}`).join(',')}}`;
};
