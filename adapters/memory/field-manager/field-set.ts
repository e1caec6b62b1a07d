/**
 * Sets of field paths, as structured-merge-diff's fieldpath.Set holds them: a tree whose nodes
 * say which elements below them are members (a path in the set) and which have children (paths
 * below). An element can be both: `metadata.labels` applied as a whole and its keys. Elements are
 * keyed by their FieldsV1 serialization (path-element.ts), which is their identity.
 */
import { compareElements, serializeElement, type Path, type PathElement } from './path-element.js';

export type FieldSet = {
  readonly members: ReadonlyMap<string, PathElement>;
  readonly children: ReadonlyMap<string, FieldChild>;
};

export type FieldChild = { readonly element: PathElement; readonly set: FieldSet };

/** A set under construction (only the function building it holds it). */
export type FieldSetBuilder = {
  readonly members: Map<string, PathElement>;
  readonly children: Map<string, { readonly element: PathElement; readonly set: FieldSetBuilder }>;
};

export const newFieldSet = (): FieldSetBuilder => ({ members: new Map(), children: new Map() });

export const EMPTY_FIELD_SET: FieldSet = newFieldSet();

/** Adds `path` to the set being built. */
export const insertPath = (builder: FieldSetBuilder, path: Path): void => {
  let node = builder;
  for (let i = 0; i < path.length - 1; i++) {
    const element = path[i];
    if (element === undefined) return;
    const key = serializeElement(element);
    let child = node.children.get(key);
    if (child === undefined) {
      child = { element, set: newFieldSet() };
      node.children.set(key, child);
    }
    node = child.set;
  }
  const last = path[path.length - 1];
  if (last !== undefined) node.members.set(serializeElement(last), last);
};

export const fieldSetOfPaths = (paths: ReadonlyArray<Path>): FieldSet => {
  const builder = newFieldSet();
  for (const path of paths) insertPath(builder, path);
  return builder;
};

export const isEmptySet = (set: FieldSet): boolean => {
  if (set.members.size > 0) return false;
  for (const child of set.children.values()) if (!isEmptySet(child.set)) return false;
  return true;
};

export const hasPath = (set: FieldSet, path: Path): boolean => {
  let node: FieldSet | undefined = set;
  for (let i = 0; i < path.length - 1 && node !== undefined; i++) {
    const element = path[i];
    node = element === undefined ? undefined : node.children.get(serializeElement(element))?.set;
  }
  const last = path[path.length - 1];
  return node !== undefined && last !== undefined && node.members.has(serializeElement(last));
};

/** The paths below `element` (relative to it). */
export const withPrefix = (set: FieldSet, element: PathElement): FieldSet =>
  set.children.get(serializeElement(element))?.set ?? EMPTY_FIELD_SET;

/** The result of a set operation while it is computed (finished sets are shared, never changed). */
type Result = { readonly members: Map<string, PathElement>; readonly children: Map<string, FieldChild> };

const newResult = (): Result => ({ members: new Map(), children: new Map() });

const withChild = (out: Result, key: string, element: PathElement, set: FieldSet): void => {
  if (!isEmptySet(set)) out.children.set(key, { element, set });
};

export const union = (a: FieldSet, b: FieldSet): FieldSet => {
  if (isEmptySet(b)) return a;
  if (isEmptySet(a)) return b;
  const out = newResult();
  for (const [key, element] of [...a.members, ...b.members]) out.members.set(key, element);
  for (const [key, child] of a.children) {
    const other = b.children.get(key);
    withChild(out, key, child.element, other === undefined ? child.set : union(child.set, other.set));
  }
  for (const [key, child] of b.children) if (!a.children.has(key)) withChild(out, key, child.element, child.set);
  return out;
};

export const intersection = (a: FieldSet, b: FieldSet): FieldSet => {
  const out = newResult();
  for (const [key, element] of a.members) if (b.members.has(key)) out.members.set(key, element);
  for (const [key, child] of a.children) {
    const other = b.children.get(key);
    if (other !== undefined) withChild(out, key, child.element, intersection(child.set, other.set));
  }
  return out;
};

/** The paths of `a` not in `b` (a member of `b` does not take away what is below it: see recursiveDifference). */
export const difference = (a: FieldSet, b: FieldSet): FieldSet => {
  if (isEmptySet(b)) return a;
  const out = newResult();
  for (const [key, element] of a.members) if (!b.members.has(key)) out.members.set(key, element);
  for (const [key, child] of a.children) {
    const other = b.children.get(key);
    withChild(out, key, child.element, other === undefined ? child.set : difference(child.set, other.set));
  }
  return out;
};

/** The paths of `a` neither in `b` nor below a member of `b` (how reset fields are filtered out). */
export const recursiveDifference = (a: FieldSet, b: FieldSet): FieldSet => {
  if (isEmptySet(b)) return a;
  const out = newResult();
  for (const [key, element] of a.members) if (!b.members.has(key)) out.members.set(key, element);
  for (const [key, child] of a.children) {
    if (b.members.has(key)) continue;
    const other = b.children.get(key);
    withChild(out, key, child.element, other === undefined ? child.set : recursiveDifference(child.set, other.set));
  }
  return out;
};

/** Every member path in structured-merge-diff's order: a node's members, then each child's paths. */
export const pathsOf = (set: FieldSet, prefix: Path = []): ReadonlyArray<Path> => [
  ...[...set.members.values()].sort(compareElements).map((element) => [...prefix, element]),
  ...[...set.children.values()]
    .sort((a, b) => compareElements(a.element, b.element))
    .flatMap((child) => pathsOf(child.set, [...prefix, child.element])),
];
