/**
 * The FieldsV1 encoding of a field set, as `metadata.managedFields[].fieldsV1` holds it: one
 * JSON object per node, keyed by serialized elements (`f:`, `k:`, `v:`, `i:`) in structured-merge-diff's
 * order; `{}` for a member without children; `".": {}` inside a node that is both a member and
 * the parent of members.
 */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import { newFieldSet, type FieldSet, type FieldSetBuilder } from './field-set.js';
import { compareElements, parseElement, serializeElement, type PathElement } from './path-element.js';

type Entry = { readonly element: PathElement; readonly member: boolean; readonly children?: FieldSet };

const entriesOf = (set: FieldSet): ReadonlyArray<Entry> => {
  const byKey = new Map<string, Entry>();
  for (const [key, element] of set.members) byKey.set(key, { element, member: true });
  for (const [key, child] of set.children)
    byKey.set(key, { element: child.element, member: set.members.has(key), children: child.set });
  return [...byKey.values()].sort((a, b) => compareElements(a.element, b.element));
};

const encodeNode = (set: FieldSet, includeSelf: boolean): JsonObject => {
  const entries = entriesOf(set);
  const own: ReadonlyArray<readonly [string, JsonValue]> = includeSelf && entries.length > 0 ? [['.', {}]] : [];
  return objectFromEntries([
    ...own,
    ...entries.map(
      (entry) =>
        [
          serializeElement(entry.element),
          entry.children === undefined ? {} : encodeNode(entry.children, entry.member),
        ] as const,
    ),
  ]);
};

export const encodeFieldsV1 = (set: FieldSet): JsonObject => encodeNode(set, false);

const MAX_DEPTH = 100;

/** Reads one node into `builder`; answers whether the node itself is a member (`"."`). */
const decodeNode = (node: JsonObject, builder: FieldSetBuilder, depth: number): E.Either<string, boolean> => {
  if (depth > MAX_DEPTH) return E.left('fieldsV1 is nested too deep');
  let self = false;
  for (const [key, value] of Object.entries(node)) {
    if (key === '.') {
      self = true;
      continue;
    }
    const element = parseElement(key);
    if (element === 'malformed') return E.left(`parsing key as path element: ${JSON.stringify(key)}`);
    if (element === undefined) continue;
    if (!isJsonObject(value)) return E.left(`expected an object at ${JSON.stringify(key)}`);
    const decoded = decodeChild(element, value, builder, depth);
    if (E.isLeft(decoded)) return decoded;
  }
  return E.right(self);
};

const decodeChild = (
  element: PathElement,
  value: JsonObject,
  builder: FieldSetBuilder,
  depth: number,
): E.Either<string, void> => {
  const key = serializeElement(element);
  if (Object.keys(value).length === 0) {
    builder.members.set(key, element);
    return E.right(undefined);
  }
  const child = newFieldSet();
  const self = decodeNode(value, child, depth + 1);
  if (E.isLeft(self)) return self;
  if (self.right) builder.members.set(key, element);
  if (child.members.size > 0 || child.children.size > 0) builder.children.set(key, { element, set: child });
  return E.right(undefined);
};

/** A `fieldsV1` value back to its set (Left: why it is not one). */
export const decodeFieldsV1 = (value: JsonValue | undefined): E.Either<string, FieldSet> => {
  if (value === undefined || value === null) return E.right(newFieldSet());
  if (!isJsonObject(value)) return E.left('fieldsV1 must be an object');
  const builder = newFieldSet();
  return E.map(() => builder)(decodeNode(value, builder, 0));
};
