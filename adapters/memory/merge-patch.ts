/** RFC 7386 JSON Merge Patch, immutable, with own-property semantics (a `__proto__` member is data). */
import { getOwn, isJsonObject, objectFromEntries, type JsonValue } from '../../core/json/json.js';

/** Merges `patch` into `target`: objects merge recursively, `null` removes, anything else replaces. */
export const mergePatch = (target: JsonValue | undefined, patch: JsonValue): JsonValue => {
  if (!isJsonObject(patch)) return patch;
  const base = isJsonObject(target) ? target : {};
  const patchKeys = new Set(Object.keys(patch));
  const kept = Object.keys(base).filter((key) => !patchKeys.has(key)).map((key) => [key, getOwn(base, key) ?? null] as const);
  const merged = Object.keys(patch)
    .filter((key) => getOwn(patch, key) !== null)
    .map((key) => [key, mergePatch(getOwn(base, key), getOwn(patch, key) ?? null)] as const);
  const order = Object.keys(base);
  // Keep the target's key order, new keys last: the stored object reads like the one patched.
  return objectFromEntries([...kept, ...merged].sort(([a], [b]) => rank(order, a) - rank(order, b)));
};

const rank = (order: ReadonlyArray<string>, key: string): number => {
  const index = order.indexOf(key);
  return index < 0 ? order.length : index;
};
