/**
 * The fields two values of one type differ in (structured-merge-diff's Compare): added, removed
 * and modified paths. A scalar, an atomic list or map, and a list or map empty on both sides are
 * leaves; granular maps and associative lists are compared entry by entry, and a new or removed
 * entry is itself a path of the comparison (so an added `labels` map is a member besides its keys).
 */
import { isJsonArray, isJsonObject, jsonEqual, type JsonValue } from '../../../core/json/json.js';
import { insertPath, newFieldSet, type FieldSetBuilder } from './field-set.js';
import { fieldElement, type Path } from './path-element.js';
import { atomOf, entryType, type Atom, type ListAtom, type MapAtom, type TypeRef } from './schema-types.js';
import { namedItems } from './typed-fields.js';

export type Comparison = {
  readonly added: FieldSetBuilder;
  readonly removed: FieldSetBuilder;
  readonly modified: FieldSetBuilder;
};

type Side = JsonValue | undefined;

const leaf = (lhs: Side, rhs: Side, path: Path, out: Comparison): void => {
  if (lhs === undefined) insertPath(out.added, path);
  else if (rhs === undefined) insertPath(out.removed, path);
  else if (!jsonEqual(lhs, rhs)) insertPath(out.modified, path);
};

const isEmptyContainer = (value: Side): boolean =>
  value === undefined ||
  value === null ||
  (isJsonArray(value) && value.length === 0) ||
  (isJsonObject(value) && Object.keys(value).length === 0);

/** Compares under one atom; answers whether the position was a leaf. */
const compareAtom = (atom: Atom, lhs: Side, rhs: Side, path: Path, out: Comparison): boolean => {
  if (atom.kind === 'scalar' || atom.atomic || (isEmptyContainer(lhs) && isEmptyContainer(rhs))) {
    leaf(lhs, rhs, path, out);
    return true;
  }
  if (atom.kind === 'list') compareLists(atom, isJsonArray(lhs) ? lhs : [], isJsonArray(rhs) ? rhs : [], path, out);
  else compareMaps(atom, lhs, rhs, path, out);
  return false;
};

const compareAt = (type: TypeRef, lhs: Side, rhs: Side, path: Path, out: Comparison): void => {
  // The same value on both sides (an unchanged subtree shared by the write): nothing differs below.
  if (lhs === rhs) return;
  const left = atomOf(type, lhs ?? rhs);
  const right = atomOf(type, rhs ?? lhs);
  if (left.kind !== right.kind) {
    // A value whose shape changed (untyped fields): the old entries go, the new come, the position changed.
    compareAtom(left, lhs, undefined, path, out);
    compareAtom(right, undefined, rhs, path, out);
    insertPath(out.modified, path);
    return;
  }
  const wasLeaf = compareAtom(right, lhs, rhs, path, out);
  if (!wasLeaf && lhs === undefined) insertPath(out.added, path);
  else if (!wasLeaf && rhs === undefined) insertPath(out.removed, path);
};

const compareMaps = (atom: MapAtom, lhs: Side, rhs: Side, path: Path, out: Comparison): void => {
  const left = isJsonObject(lhs) ? lhs : {};
  const right = isJsonObject(rhs) ? rhs : {};
  const names = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const name of names) {
    const l = Object.hasOwn(left, name) ? left[name] : undefined;
    const r = Object.hasOwn(right, name) ? right[name] : undefined;
    compareAt(entryType(atom, name).type, l, r, [...path, fieldElement(name)], out);
  }
};

const grouped = (atom: ListAtom, list: ReadonlyArray<JsonValue>) => {
  const groups = new Map<string, { readonly element: Path[number]; readonly items: JsonValue[] }>();
  for (const { element, key, item } of namedItems(atom, list)) {
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { element, items: [item] });
    else group.items.push(item);
  }
  return groups;
};

const compareLists = (
  atom: ListAtom,
  lhs: ReadonlyArray<JsonValue>,
  rhs: ReadonlyArray<JsonValue>,
  path: Path,
  out: Comparison,
): void => {
  const left = grouped(atom, lhs);
  const right = grouped(atom, rhs);
  for (const key of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(key);
    const r = right.get(key);
    const element = (l ?? r)?.element;
    if (element === undefined) continue;
    const itemPath = [...path, element];
    const ls = l?.items ?? [];
    const rs = r?.items ?? [];
    if (ls.length <= 1 && rs.length <= 1) compareAt(atom.element, ls[0], rs[0], itemPath, out);
    else if (ls.length >= 2 && rs.length >= 2) {
      if (!jsonEqual(ls, rs)) insertPath(out.modified, itemPath);
    } else if (ls.length >= 2) {
      if (rs[0] !== undefined) compareAt(atom.element, undefined, rs[0], itemPath, out);
      insertPath(out.removed, itemPath);
    } else {
      if (ls[0] !== undefined) compareAt(atom.element, ls[0], undefined, itemPath, out);
      insertPath(out.added, itemPath);
    }
  }
};

/** How `rhs` differs from `lhs`. */
export const compareValues = (lhs: JsonValue, rhs: JsonValue, type: TypeRef): Comparison => {
  const out = { added: newFieldSet(), removed: newFieldSet(), modified: newFieldSet() };
  compareAt(type, lhs, rhs, [], out);
  return out;
};
