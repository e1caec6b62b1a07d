/** Deep copies and freezing of JSON values with own-property semantics, so hostile keys stay plain data. */
import { isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../../../core/json/json.js';

/**
 * Which objects of a value a copy writes with their keys sorted: `sorted`, every object at every
 * depth; or a tree of places, each saying whether the object there is sorted and where to go next
 * (a named field, every item of a list, every value of a map).
 */
export type KeyOrder = 'sorted' | KeyPlaces;

export type KeyPlaces = {
  readonly sorted: boolean;
  readonly fields: ReadonlyMap<string, KeyPlaces>;
  readonly items?: KeyPlaces;
  readonly values?: KeyPlaces;
};

/**
 * Go's order of map keys (`strings.Compare`: the bytes of their UTF-8). UTF-16 code units order
 * the same way except surrogates, which stand for code points above every other unit's: they are
 * moved past U+E000–U+FFFF before comparing.
 */
export const byteOrder = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
};

const utf8Rank = (unit: number): number => {
  if (unit < 0xd800) return unit;
  return unit <= 0xdfff ? unit + 0x2000 : unit - 0x800;
};

/**
 * A deep copy that shares nothing with its input. Keys such as `__proto__` become own data
 * properties; `undefined` members are dropped as JSON serialisation would.
 */
export const deepCopy = <T extends JsonValue>(value: T): T => orderedCopy(value, undefined);

/** {@link deepCopy} with the keys of the objects `order` names sorted ({@link byteOrder}); the rest keep theirs. */
export const orderedCopy = <T extends JsonValue>(value: T, order: KeyOrder | undefined): T =>
  // The same members with the same values (only the key order may differ): still a T.
  copyValue(value, order) as T;

const copyValue = (value: JsonValue, order: KeyOrder | undefined): JsonValue => {
  if (isJsonArray(value)) {
    const items = order === 'sorted' ? order : order?.items;
    return value.map((item) => copyValue(item ?? null, items));
  }
  if (isJsonObject(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined);
    if (order === 'sorted' || order?.sorted === true) keys.sort(byteOrder);
    const below = (key: string): KeyOrder | undefined =>
      order === 'sorted' || order === undefined ? order : (order.fields.get(key) ?? order.values);
    return objectFromEntries(
      // An own data property of a JSON object (read by descriptor, so a `__proto__` key is data): a JSON value.
      keys.map((key) => [key, copyValue(Object.getOwnPropertyDescriptor(value, key)?.value as JsonValue, below(key))]),
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
