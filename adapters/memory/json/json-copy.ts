/** Deep copies and freezing of JSON values with own-property semantics, so hostile keys stay plain data. */
import { isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../../../core/json/json.js';

/**
 * A deep copy that shares nothing with its input. Keys such as `__proto__` become own data
 * properties; `undefined` members are dropped as JSON serialisation would.
 */
export const deepCopy = <T extends JsonValue>(value: T): T => copyValue(value) as T;

const copyValue = (value: JsonValue): JsonValue => {
  if (isJsonArray(value)) return value.map((item) => copyValue(item ?? null));
  if (isJsonObject(value)) {
    return objectFromEntries(
      Object.keys(value)
        .filter((key) => value[key] !== undefined)
        // An own data property of a JSON object (read by descriptor, so a `__proto__` key is data): a JSON value.
        .map((key) => [key, copyValue(Object.getOwnPropertyDescriptor(value, key)?.value as JsonValue)] as const),
    );
  }
  return value;
};

/** Freezes a value in place, recursively (stored objects are immutable by construction). */
export const deepFreeze = <T extends JsonValue>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value))
      // An own data property of a JSON object (read by descriptor, so a `__proto__` key is data): a JSON value.
      deepFreeze((Object.getOwnPropertyDescriptor(value, key)?.value ?? null) as JsonValue);
  }
  return value;
};

/** A frozen deep copy: how the store keeps objects. */
export const frozenCopy = <T extends JsonValue>(value: T): T => deepFreeze(deepCopy(value));
