/** Small immutable editors for defaulting: fill unset members, map nested objects and lists of objects. */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  withKey,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';

/** Go defaulting treats absent, `null` and the empty string alike: unset (a non-pointer field). */
export const isUnset = (value: JsonValue | undefined): boolean => value === undefined || value === null || value === '';

/** A pointer field is unset only when nil: a pointer to `""` is set (StorageClass `reclaimPolicy: ""` stays). */
const isNilPointer = (value: JsonValue | undefined): boolean => value === undefined || value === null;

type Defaults = Readonly<Record<string, JsonValue | ((o: JsonObject) => JsonValue | undefined)>>;

const defaultsWhere =
  (unset: (value: JsonValue | undefined) => boolean) =>
  (object: JsonObject, defaults: Defaults): JsonObject =>
    Object.entries(defaults).reduce<JsonObject>((result, [key, value]) => {
      if (!unset(getOwn(result, key))) return result;
      const resolved = typeof value === 'function' ? value(result) : value;
      return resolved === undefined ? result : withKey(result, key, resolved);
    }, object);

/** Sets each default whose member is unset (lazily computed defaults see the object so far). */
export const withDefaults: (object: JsonObject, defaults: Defaults) => JsonObject = defaultsWhere(isUnset);

/** `withDefaults` for pointer fields (Go's `if x == nil`): an empty string is a value. */
export const withPointerDefaults: (object: JsonObject, defaults: Defaults) => JsonObject = defaultsWhere(isNilPointer);

/** Applies `edit` to the object at `path`, when there is one. */
export const mapIn = (
  object: JsonObject,
  path: ReadonlyArray<string>,
  edit: (inner: JsonObject) => JsonObject,
): JsonObject => {
  const [head, ...rest] = path;
  if (head === undefined) return edit(object);
  const inner = getOwn(object, head);
  return isJsonObject(inner) ? withKey(object, head, mapIn(inner, rest, edit)) : object;
};

/** Applies `edit` to every object in the list at `key`, when there is one. */
export const mapItems = (object: JsonObject, key: string, edit: (item: JsonObject) => JsonObject): JsonObject => {
  const list = getOwn(object, key);
  return isJsonArray(list)
    ? withKey(
        object,
        key,
        list.map((item) => (isJsonObject(item) ? edit(item) : item)),
      )
    : object;
};

/** The object at `key`, or an empty one. */
export const objectAt = (object: JsonObject, key: string): JsonObject => {
  const inner = getOwn(object, key);
  return isJsonObject(inner) ? inner : {};
};
