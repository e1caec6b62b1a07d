/**
 * Reading `metadata.managedFields[].fieldsV1`, the API server's record of which field manager owns
 * which field (structured-merge-diff's FieldsV1 encoding, docs/field-owners.md):
 * - `f:<name>`: a field of an object (or a key of a map);
 * - `k:<json>`: the element of a list of type `map` whose keys have these values;
 * - `v:<json>`: the element of a list of type `set` equal to this value;
 * - `i:<n>`: the n-th element of an atomic-by-position list (rare);
 * - `.`: the node itself (a list element or map entry as a whole).
 * A node with no children is owned as a whole, its descendants included.
 * The record is written by other clients, so it is read defensively: what does not parse owns nothing.
 */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  jsonEqual,
  parseJsonText,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';

/**
 * How much of a field a manager's set covers: `field`, the field itself (its value, or its presence
 * for a list element or map, or an ancestor owned as a whole); `part`, only fields inside it.
 */
export type Extent = 'field' | 'part';

/** A pointer is refused beyond this depth: a real object is far shallower, a hostile one is not walked. */
const MAX_DEPTH = 64;

/**
 * How the set `fields` covers the field at `path` (pointer tokens) of the object `live`, or
 * `undefined` when it does not. `live` locates list elements: `k:` and `v:` keys name elements by
 * value, a pointer by position.
 */
export const coverage = (
  fields: JsonValue | undefined,
  live: JsonValue | undefined,
  path: ReadonlyArray<string>,
): Extent | undefined => {
  if (path.length > MAX_DEPTH) return undefined;
  let node = fields;
  let value = live;
  for (const token of path) {
    if (!isJsonObject(node)) return undefined;
    if (isEmpty(node)) return 'field';
    const step = childFor(node, value, token);
    if (step === undefined) return undefined;
    node = step.node;
    value = step.value;
  }
  return isJsonObject(node) && (isEmpty(node) || ownsItself(node)) ? 'field' : 'part';
};

/** A node without children (owned as a whole); read without listing the keys of every node on the way. */
const isEmpty = (node: JsonObject): boolean => {
  for (const key in node) if (Object.hasOwn(node, key)) return false;
  return true;
};

const ownsItself = (node: JsonObject): boolean => getOwn(node, '.') !== undefined;

type Step = { readonly node: JsonValue | undefined; readonly value: JsonValue | undefined };

/** The child node for one pointer token: a field by name, or a list element by its key, value or index. */
const childFor = (node: JsonObject, value: JsonValue | undefined, token: string): Step | undefined => {
  if (!isJsonArray(value)) {
    const child = getOwn(node, `f:${token}`);
    return child === undefined
      ? undefined
      : { node: child, value: isJsonObject(value) ? getOwn(value, token) : undefined };
  }
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const element = value[Number(token)];
  if (element === undefined) return undefined;
  const byIndex = getOwn(node, `i:${token}`);
  if (byIndex !== undefined) return { node: byIndex, value: element };
  const key = Object.keys(node).find((candidate) => namesElement(candidate, element));
  return key === undefined ? undefined : { node: getOwn(node, key), value: element };
};

/** Whether a `k:` or `v:` key names this list element. */
const namesElement = (key: string, element: JsonValue): boolean => {
  const kind = key.slice(0, 2);
  if (kind !== 'k:' && kind !== 'v:') return false;
  const named = parsed(key.slice(2));
  if (named === undefined) return false;
  if (kind === 'v:') return jsonEqual(named, element);
  return (
    isJsonObject(named) &&
    isJsonObject(element) &&
    Object.entries(named).every(([field, wanted]) => jsonEqual(getOwn(element, field), wanted))
  );
};

const parsed = (text: string): JsonValue | undefined => {
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
};
