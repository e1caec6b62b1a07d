/**
 * A value seen through its schema (schema-types.ts): the element naming each list item, the set
 * of fields the value holds (structured-merge-diff's ToFieldSet), the value without some fields
 * (RemoveItems), and the check a value must pass to be typed at all (keyed items have their keys,
 * an applied configuration has no duplicate items).
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../../../core/json/json.js';
import {
  hasPath,
  isEmptySet,
  newFieldSet,
  withPrefix,
  type FieldChild,
  type FieldSet,
  type FieldSetBuilder,
} from './field-set.js';
import { compareText, fieldElement, pathText, serializeElement, type Path, type PathElement } from './path-element.js';
import { atomOf, deducedType, entryType, keyDefault, type ListAtom, type TypeRef } from './schema-types.js';

/** The element an item of an associative list is named by: its key fields, or itself in a set. */
export const itemElement = (atom: ListAtom, item: JsonValue): E.Either<string, PathElement> => {
  if (atom.keys.length === 0) {
    if (isJsonObject(item)) return E.left("associative list without keys has an element that's a map type");
    if (isJsonArray(item)) return E.left('not supported: associative list with lists as elements');
    if (item === null) return E.left("associative list without keys has an element that's an explicit null");
    return E.right({ kind: 'value', value: item });
  }
  if (item === null) return E.left('associative list with keys may not have a null element');
  if (!isJsonObject(item)) return E.left('associative list with keys may not have non-map elements');
  const fields = atom.keys.flatMap((key) => {
    const value = getOwn(item, key) ?? keyDefault(atom.element, key);
    return value === undefined ? [] : [[key, value] as const];
  });
  if (fields.length === 0)
    return E.left(
      `associative list with keys has an element that omits all key fields ${JSON.stringify(atom.keys)} (and doesn't have default values for any key fields)`,
    );
  return E.right({ kind: 'key', fields: [...fields].sort(([a], [b]) => compareText(a, b)) });
};

/**
 * Items of an associative list with their elements (items that cannot be named are left out, as SMD does once typed).
 */
export const namedItems = (
  atom: ListAtom,
  list: ReadonlyArray<JsonValue>,
): ReadonlyArray<{ readonly element: PathElement; readonly key: string; readonly item: JsonValue }> =>
  list.flatMap((item) => {
    const element = itemElement(atom, item);
    return E.isRight(element) ? [{ element: element.right, key: serializeElement(element.right), item }] : [];
  });

/** Why `value` cannot be typed by `type` (an applied configuration allows no duplicate items), else undefined. */
export const typingProblem = (
  value: JsonValue,
  type: TypeRef,
  allowDuplicates: boolean,
  path: Path = [],
): string | undefined => {
  const atom = atomOf(type, value);
  if (atom.kind === 'map' && !atom.atomic && isJsonObject(value)) {
    for (const [name, child] of Object.entries(value)) {
      const problem = typingProblem(child, entryType(atom, name).type, allowDuplicates, [...path, fieldElement(name)]);
      if (problem !== undefined) return problem;
    }
  }
  if (atom.kind !== 'list' || atom.atomic || !isJsonArray(value)) return undefined;
  const seen = new Set<string>();
  for (const [index, item] of value.entries()) {
    const element = itemElement(atom, item);
    if (E.isLeft(element)) return `${pathText(path)}: element ${index}: ${element.left}`;
    const key = serializeElement(element.right);
    if (seen.has(key) && !allowDuplicates)
      return `${pathText(path)}: duplicate entries for key ${pathText([element.right])}`;
    seen.add(key);
    const problem = typingProblem(item, atom.element, allowDuplicates, [...path, element.right]);
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/** The child node of `element` below `node` (made when missing). */
const childNode = (node: FieldSetBuilder, key: string, element: PathElement): FieldSetBuilder => {
  const child = node.children.get(key);
  if (child !== undefined) return child.set;
  const set = newFieldSet();
  node.children.set(key, { element, set });
  return set;
};

/** Adds the fields of `value` (at `key`/`element` below `node`) to `node`. */
const collectFields = (
  value: JsonValue,
  type: TypeRef,
  node: FieldSetBuilder,
  key: string,
  element: PathElement,
): void => {
  const atom = atomOf(type, value);
  if (atom.kind === 'scalar' || atom.atomic) {
    node.members.set(key, element);
    return;
  }
  if (atom.kind === 'list') {
    if (isJsonArray(value)) collectItems(atom, value, childNode(node, key, element));
    return;
  }
  if (!isJsonObject(value)) return;
  const below = childNode(node, key, element);
  for (const [name, child] of Object.entries(value)) {
    const entry = entryType(atom, name);
    const childElement = fieldElement(name);
    const childKey = serializeElement(childElement);
    collectFields(child, entry.type, below, childKey, childElement);
    if (child === null || !entry.declared || (isJsonObject(child) && Object.keys(child).length === 0))
      below.members.set(childKey, childElement);
  }
};

const collectItems = (atom: ListAtom, list: ReadonlyArray<JsonValue>, node: FieldSetBuilder): void => {
  const counts = new Map<string, number>();
  const items = namedItems(atom, list);
  for (const { key } of items) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const { element, key, item } of items) {
    // A duplicated item is owned as a whole: its fields cannot be told apart.
    if ((counts.get(key) ?? 0) === 1) collectFields(item, atom.element, node, key, element);
    node.members.set(key, element);
  }
};

/** The set of fields `value` holds (structured-merge-diff's ToFieldSet). */
export const fieldSetOf = (value: JsonValue, type: TypeRef): FieldSet => {
  const root = newFieldSet();
  const top = fieldElement('');
  collectFields(value, type, root, '', top);
  // The root is no path of its own: its fields are the set.
  return root.children.get('')?.set ?? root;
};

/** `value` without the fields of `remove` and what is below them; a map or list left empty goes too. */
export const removeFields = (value: JsonValue, remove: FieldSet, type: TypeRef): JsonValue | undefined => {
  if (isEmptySet(remove)) return value;
  const atom = atomOf(type, value);
  if (atom.kind === 'scalar') return value;
  if (atom.kind === 'list') {
    if (atom.atomic || !isJsonArray(value)) return undefined;
    const kept = value.flatMap((item) => {
      const element = itemElement(atom, item);
      if (E.isLeft(element)) return [item];
      if (hasPath(remove, [element.right])) return [];
      const left = removeFields(item, withPrefix(remove, element.right), atom.element);
      return left === undefined ? [] : [left];
    });
    return kept.length === 0 ? undefined : kept;
  }
  if (atom.atomic || !isJsonObject(value)) return undefined;
  const kept: Array<readonly [string, JsonValue]> = [];
  for (const [name, child] of Object.entries(value)) {
    const element = fieldElement(name);
    if (hasPath(remove, [element])) continue;
    const left = removeFields(child, withPrefix(remove, element), entryType(atom, name).type);
    if (left !== undefined) kept.push([name, left]);
  }
  return kept.length === 0 ? undefined : objectFromEntries(kept);
};

/** The set with every struct field that has members below it a member too (SMD's EnsureNamedFieldsAreMembers). */
export const namedFieldsAsMembers = (set: FieldSet, type: TypeRef): FieldSet => {
  const atom = atomOf(type, undefined);
  const members = new Map(set.members);
  const children = new Map<string, FieldChild>();
  for (const [key, child] of set.children) {
    const name = child.element.kind === 'field' ? child.element.name : undefined;
    const entry = atom.kind === 'map' && name !== undefined ? entryType(atom, name) : undefined;
    if (entry?.declared === true) members.set(key, child.element);
    const childType = entry?.type ?? (atom.kind === 'list' ? atom.element : deducedType(type.defs));
    children.set(key, { element: child.element, set: namedFieldsAsMembers(child.set, childType) });
  }
  return { members, children };
};
