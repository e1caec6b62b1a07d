/**
 * What server-side apply needs from a schema, per position: is the value a scalar, a list (atomic,
 * or associative: a set, or a map keyed by `x-kubernetes-list-map-keys`) or a map (a struct's
 * declared fields and a map's values; granular, or atomic by `x-kubernetes-map-type`). Built-in
 * kinds read the committed OpenAPI (schemas/kubernetes-1.36.json), custom resources their CRD's
 * structural schema with ObjectMeta for `metadata`. Where no schema speaks (no kind schema,
 * preserve-unknown-fields) the type is deduced from the value as the real server does: maps are
 * granular, lists atomic.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';

/** A position in a schema: `deduced` (no schema: maps granular, lists atomic) or `untyped` (everything atomic). */
export type TypeRef =
  | { readonly mode: 'typed'; readonly node: JsonObject; readonly defs: JsonObject }
  | { readonly mode: 'deduced' | 'untyped'; readonly defs: JsonObject };

export type ListAtom = {
  readonly kind: 'list';
  readonly atomic: boolean;
  /** Associative lists keyed by fields (`listType: map`); none for a set of scalars. */
  readonly keys: ReadonlyArray<string>;
  readonly element: TypeRef;
};

export type MapAtom = {
  readonly kind: 'map';
  readonly atomic: boolean;
  /** A struct's declared fields (an element of a map, such as a label, is not one). */
  readonly fields: JsonObject | undefined;
  readonly element: TypeRef;
  readonly defs: JsonObject;
};

export type Atom = { readonly kind: 'scalar' } | ListAtom | MapAtom;

const SCALAR: Atom = { kind: 'scalar' };

export const deducedType = (defs: JsonObject): TypeRef => ({ mode: 'deduced', defs });

const untyped = (defs: JsonObject): TypeRef => ({ mode: 'untyped', defs });

const typed = (node: JsonValue | undefined, defs: JsonObject, fallback: TypeRef): TypeRef =>
  isJsonObject(node) ? { mode: 'typed', node, defs } : fallback;

/** The node a `$ref` chain ends at. */
const resolved = (node: JsonObject, defs: JsonObject): JsonObject | undefined => {
  let current: JsonObject | undefined = node;
  for (let depth = 0; depth < 8 && current !== undefined; depth++) {
    const ref = getOwn(current, '$ref');
    if (typeof ref !== 'string') return current;
    const target = getOwn(defs, ref);
    current = isJsonObject(target) ? target : undefined;
  }
  return current;
};

/** A value's shape when no schema says it. */
const byValue = (value: JsonValue | undefined, type: TypeRef, granular: boolean): Atom => {
  if (isJsonObject(value)) return { kind: 'map', atomic: !granular, fields: undefined, element: type, defs: type.defs };
  if (isJsonArray(value)) return { kind: 'list', atomic: true, keys: [], element: untyped(type.defs) };
  return SCALAR;
};

const listAtom = (node: JsonObject, defs: JsonObject): ListAtom => {
  const listType = getOwn(node, 'x-kubernetes-list-type');
  const keys = getOwn(node, 'x-kubernetes-list-map-keys');
  return {
    kind: 'list',
    atomic: listType !== 'map' && listType !== 'set',
    keys: listType === 'map' && isJsonArray(keys) ? keys.filter((key) => typeof key === 'string') : [],
    element: typed(getOwn(node, 'items'), defs, untyped(defs)),
  };
};

const mapAtom = (node: JsonObject, defs: JsonObject): MapAtom => {
  const properties = getOwn(node, 'properties');
  const additional = getOwn(node, 'additionalProperties');
  const unknown = getOwn(node, 'x-kubernetes-preserve-unknown-fields') === true || additional === true;
  return {
    kind: 'map',
    atomic: getOwn(node, 'x-kubernetes-map-type') === 'atomic',
    fields: isJsonObject(properties) ? properties : undefined,
    element: typed(additional, defs, unknown ? deducedType(defs) : untyped(defs)),
    defs,
  };
};

/** The atom at `type` for `value` (the value decides only where the schema does not). */
export const atomOf = (type: TypeRef, value: JsonValue | undefined): Atom => {
  if (type.mode !== 'typed') return byValue(value, type, type.mode === 'deduced');
  const node = resolved(type.node, type.defs);
  if (node === undefined) return byValue(value, deducedType(type.defs), true);
  if (getOwn(node, 'x-kubernetes-int-or-string') === true || getOwn(node, 'format') === 'int-or-string') return SCALAR;
  const kind = getOwn(node, 'type');
  if (kind === 'array' || (kind === undefined && isJsonObject(getOwn(node, 'items')))) return listAtom(node, type.defs);
  if (
    kind === 'object' ||
    getOwn(node, 'properties') !== undefined ||
    getOwn(node, 'additionalProperties') !== undefined
  )
    return mapAtom(node, type.defs);
  if (kind === undefined && getOwn(node, 'x-kubernetes-preserve-unknown-fields') === true)
    return byValue(value, deducedType(type.defs), true);
  return kind === undefined ? byValue(value, untyped(type.defs), false) : SCALAR;
};

/** The type of a map's entry `name`, and whether it is a declared field of a struct. */
export const entryType = (atom: MapAtom, name: string): { readonly type: TypeRef; readonly declared: boolean } => {
  const field = atom.fields === undefined ? undefined : getOwn(atom.fields, name);
  return isJsonObject(field)
    ? { type: { mode: 'typed', node: field, defs: atom.defs }, declared: true }
    : { type: atom.element, declared: false };
};

/** The schema default of a list item's key field (a port's `protocol: TCP`), keying items that omit it. */
export const keyDefault = (element: TypeRef, key: string): JsonValue | undefined => {
  if (element.mode !== 'typed') return undefined;
  const node = resolved(element.node, element.defs);
  const properties = node === undefined ? undefined : getOwn(node, 'properties');
  const field = isJsonObject(properties) ? getOwn(properties, key) : undefined;
  const fallback = isJsonObject(field) ? getOwn(field, 'default') : undefined;
  return fallback === undefined || isJsonObject(fallback) || isJsonArray(fallback) ? undefined : fallback;
};
