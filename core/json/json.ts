/** JSON values as the core sees them: plain data, never mutated, hostile keys kept inert. */

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;
export type JsonArray = ReadonlyArray<JsonValue>;
export type JsonObject = { readonly [key: string]: JsonValue };

/** True for a plain JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isJsonArray = (value: unknown): value is JsonArray => Array.isArray(value);

// Taken unbound on purpose and only ever called as `ownProperty.call(object, key)` (below).
// eslint-disable-next-line @typescript-eslint/unbound-method
const ownProperty = Object.prototype.hasOwnProperty;

/**
 * Whether `key` is an own property of `object`. `hasOwnProperty` taken once, at load: code that
 * later replaces it (or `Object.hasOwn`) on the shared prototypes changes nothing here. And V8
 * reduces this very call, inside a `for…in` over the same object, to a check of its shape.
 */
export const hasOwn = (object: object, key: string): boolean => ownProperty.call(object, key);

/** Own-property read; `__proto__` and friends never reach the prototype chain. */
export const getOwn = (object: JsonObject, key: string): JsonValue | undefined => {
  const value = object[key];
  // A missing key reads `undefined` without the own-property check; anything else is checked, so
  // that a value planted on Object.prototype (by any code in the process) is never read as data.
  return value !== undefined && hasOwn(object, key) ? value : undefined;
};

/**
 * Sets an own property on an object being built (never on a shared one): plain assignment,
 * except for `__proto__`, which assignment would turn into a prototype change.
 */
export const setOwn = (target: Record<string, JsonValue>, key: string, value: JsonValue): void => {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
};

/**
 * Builds an object from entries with own-property semantics, so a key such as `__proto__`
 * becomes data instead of rewiring the prototype (plain assignment would).
 */
export const objectFromEntries = (entries: Iterable<readonly [string, JsonValue]>): JsonObject => {
  const result: Record<string, JsonValue> = {};
  for (const [key, value] of entries) setOwn(result, key, value);
  return result;
};

/** The keys an object type names (not its index signature): `metadata` of a `Resource`, not `string`. */
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** The named keys an object type requires (`apiVersion`, `kind`, `metadata` of a `Resource`). */
export type RequiredKeys<T> = { [K in NamedKeys<T>]-?: object extends Pick<T, K> ? never : K }[NamedKeys<T>];

/**
 * A copy of `object` with `key` set to `value` (own property, insertion order kept). The value must fit
 * the key's type in `T` (an `ObjectMeta` for a `Resource`'s `metadata`), so the copy is a `T` again.
 */
export const withKey = <T extends JsonObject, K extends string>(object: T, key: K, value: T[K]): T => {
  const result: Record<string, JsonValue> = {};
  // Own keys in `Object.keys` order, without building that list (this copies every resource a plan namespaces or
  // marks).
  for (const k in object) {
    const name: string = k;
    const own = name === key ? value : object[k];
    if (own !== undefined && hasOwn(object, k)) setOwn(result, k, own);
  }
  if (!hasOwn(object, key)) setOwn(result, key, value);
  // Every key of `object` with its value, and `key` with a value its type in `T` allows: still a `T`.
  return result as T;
};

/** A copy of `object` without `key`; a key `T` requires cannot be dropped, so the copy is a `T` again. */
export const withoutKey = <T extends JsonObject, K extends string>(
  object: T,
  key: K & (K extends RequiredKeys<T> ? never : K),
): T =>
  // Every key of `object` but one that `T` does not require: still a `T`.
  objectFromEntries(Object.entries(object).filter(([k]) => k !== key)) as T;

/** How many own enumerable keys an object has, without building the key list. */
export const ownKeyCount = (object: object): number => {
  let count = 0;
  for (const key in object) if (hasOwn(object, key)) count++;
  return count;
};

/** Structural equality of two JSON values (key order ignored). */
export const jsonEqual = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (isJsonArray(a)) {
    if (!isJsonArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    let count = 0;
    for (const k in a) {
      if (!hasOwn(a, k)) continue;
      count++;
      if (!hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
    }
    return count === ownKeyCount(b);
  }
  return false;
};

/** Reads a value by a path of keys and indexes; undefined when any step is missing. */
export const getIn = (value: JsonValue | undefined, path: ReadonlyArray<string | number>): JsonValue | undefined => {
  let current = value;
  for (const step of path) {
    if (typeof step === 'number') current = isJsonArray(current) ? current[step] : undefined;
    else current = isJsonObject(current) ? getOwn(current, step) : undefined;
    if (current === undefined) return undefined;
  }
  return current;
};

/**
 * Whether `actual` holds everything `wanted` says: equal scalars; lists of the same length whose
 * elements cover each other; objects where every key `wanted` knows (non-null) is covered. Keys
 * only in `actual` (server defaults, other actors) do not count, as docs/behaviour.md §4.5 says of keys
 * present in the cluster but not known in desired.
 */
export const jsonCovers = (wanted: JsonValue | undefined, actual: JsonValue | undefined): boolean => {
  if (wanted === actual) return true;
  if (wanted === undefined || actual === undefined || wanted === null || actual === null) return false;
  if (isJsonArray(wanted)) {
    if (!isJsonArray(actual) || wanted.length !== actual.length) return false;
    for (let i = 0; i < wanted.length; i++) if (!jsonCovers(wanted[i], actual[i])) return false;
    return true;
  }
  if (isJsonObject(wanted)) {
    if (!isJsonObject(actual)) return false;
    for (const key in wanted) {
      if (!hasOwn(wanted, key)) continue;
      const value = wanted[key];
      if (value !== null && value !== undefined && !jsonCovers(value, getOwn(actual, key))) return false;
    }
    return true;
  }
  return false;
};

/**
 * `JSON.parse` with its true type: JSON text denotes only null, booleans, numbers, strings, arrays
 * and objects, so the result is a JsonValue (no reviver can make it anything else). Throws on bad
 * JSON, as `JSON.parse` does; bounds (depth, size) are `withinBounds`'s job.
 */
export const parseJsonText = (text: string): JsonValue =>
  // The one place JSON text becomes a typed value: JSON.parse is typed `any`, its result is JSON.
  JSON.parse(text) as JsonValue;
