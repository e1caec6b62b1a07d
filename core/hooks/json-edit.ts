/** Immutable edits of JSON documents along a path of keys and indexes (inputs are never mutated). */
import { produce } from 'immer';
import { getOwn, isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import type { Path } from '../json/path.js';

/**
 * `value` with the node at `path` replaced by `update(node)`. The path must exist (objects by
 * key, lists by index); when it does not, `value` is returned unchanged. The copy along the path
 * is immer's (paths here are the fixed pod-spec paths of core/hooks/workloads.ts, never tenant keys).
 */
export const updateAt = (value: JsonValue, path: Path, update: (node: JsonValue) => JsonValue): JsonValue => {
  const node = nodeAt(value, path);
  if (node === undefined) return value;
  const next = update(node);
  const last = path[path.length - 1];
  if (next === node) return value;
  if (last === undefined) return next;
  // The path exists and is not empty, so `value` is an object or list (what produce takes); its result is JSON like
  // its input.
  return produce(value as object, (draft) => {
    // A draft reads as the JSON it drafts; the parent of an existing node is a container, writable in the draft.
    const parent = nodeAt(draft as JsonValue, path.slice(0, -1)) as Record<string | number, JsonValue>;
    parent[last] = next;
  }) as JsonValue;
};

/** The node at `path` (objects by own key, lists by index in range), or `undefined`. */
const nodeAt = (value: JsonValue, path: Path): JsonValue | undefined => {
  let node: JsonValue | undefined = value;
  for (const step of path) {
    if (typeof step === 'number') node = isJsonArray(node) && step >= 0 && step < node.length ? node[step] : undefined;
    else node = isJsonObject(node) ? getOwn(node, step) : undefined;
    if (node === undefined) return undefined;
  }
  return node;
};
