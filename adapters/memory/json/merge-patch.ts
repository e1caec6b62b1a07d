/**
 * JSON Merge Patch (RFC 7386) as the Kubernetes API server applies it (evanphx/json-patch v4's
 * `MergePatch`), immutable, with own-property semantics (a `__proto__` member is data).
 */
import { getOwn, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../../../core/json/json.js';

/**
 * Merges `patch` into `target`: objects merge recursively, `null` removes, anything else replaces.
 * Like the server, a value that lands where there was no object has its `null` members pruned at
 * every depth, inside lists too (a list element that is itself `null` stays); a list or scalar
 * that replaces an object is taken as sent.
 */
export const mergePatch = (target: JsonValue | undefined, patch: JsonValue): JsonValue => {
  if (!isJsonObject(target)) return withoutNullMembers(patch);
  if (!isJsonObject(patch)) return patch;
  return mergeObjects(target, patch);
};

const mergeObjects = (base: JsonObject, patch: JsonObject): JsonObject => {
  const patchKeys = new Set(Object.keys(patch));
  const kept = Object.keys(base)
    .filter((key) => !patchKeys.has(key))
    .map((key) => [key, getOwn(base, key) ?? null] as const);
  const merged = Object.keys(patch)
    .filter((key) => getOwn(patch, key) !== null)
    .map((key) => [key, mergePatch(getOwn(base, key), getOwn(patch, key) ?? null)] as const);
  const order = Object.keys(base);
  // Keep the target's key order, new keys last: a built-in kind's struct fields read as before the patch
  // (its map fields, and every key of a custom resource, are put in the server's order when stored:
  // typing/key-order.ts).
  return objectFromEntries([...kept, ...merged].sort(([a], [b]) => rank(order, a) - rank(order, b)));
};

/** `value` with every `null` object member removed, at every depth (list elements that are `null` stay). */
const withoutNullMembers = (value: JsonValue): JsonValue => {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (!isJsonObject(value)) return value;
  return objectFromEntries(
    Object.keys(value).flatMap((key) => {
      const member = getOwn(value, key) ?? null;
      return member === null ? [] : [[key, withoutNullMembers(member)] as const];
    }),
  );
};

const rank = (order: ReadonlyArray<string>, key: string): number => {
  const index = order.indexOf(key);
  return index < 0 ? order.length : index;
};
