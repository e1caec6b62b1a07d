/** Immutable edits of JSON documents along a path of keys and indexes (inputs are never mutated). */
import { getOwn, isJsonArray, isJsonObject, withKey, type JsonValue } from '../json/json.js';
import type { Path } from '../json/path.js';

/**
 * `value` with the node at `path` replaced by `update(node)`. The path must exist (objects by
 * key, lists by index); when it does not, `value` is returned unchanged.
 */
export const updateAt = (value: JsonValue, path: Path, update: (node: JsonValue) => JsonValue): JsonValue => {
  if (path.length === 0) return update(value);
  const [step, ...rest] = path as [string | number, ...Path];
  if (typeof step === 'number') {
    if (!isJsonArray(value) || step < 0 || step >= value.length) return value;
    const child = value[step] as JsonValue;
    const next = updateAt(child, rest, update);
    return next === child ? value : value.map((item, i) => (i === step ? next : item));
  }
  if (!isJsonObject(value)) return value;
  const child = getOwn(value, step);
  if (child === undefined) return value;
  const next = updateAt(child, rest, update);
  return next === child ? value : withKey(value, step, next);
};
