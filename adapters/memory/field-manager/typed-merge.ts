/**
 * An applied configuration merged over the live object (structured-merge-diff's Merge): the
 * configuration's value wins at every leaf (scalars, atomic lists and maps); granular maps take
 * the union of their entries; associative lists merge item by item, the items both hold placed
 * in the configuration's order and the live object's other items kept where they were.
 */
import { isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../../../core/json/json.js';
import { atomOf, entryType, type ListAtom, type MapAtom, type TypeRef } from './schema-types.js';
import { namedItems } from './typed-fields.js';

type Side = JsonValue | undefined;

const isEmptyContainer = (value: Side): boolean =>
  value === undefined ||
  value === null ||
  (isJsonArray(value) && value.length === 0) ||
  (isJsonObject(value) && Object.keys(value).length === 0);

const fitsShape = (kind: 'list' | 'map', value: JsonValue): boolean =>
  value === null || (kind === 'list' ? isJsonArray(value) : isJsonObject(value));

/** `rhs` merged over `lhs` at `type`; undefined when neither side holds anything. */
export const mergeValues = (lhs: Side, rhs: Side, type: TypeRef): Side => {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const atom = atomOf(type, rhs);
  if (atom.kind !== atomOf(type, lhs).kind || atom.kind === 'scalar' || atom.atomic) return rhs;
  if (isEmptyContainer(lhs) && isEmptyContainer(rhs)) return rhs;
  // A value of the wrong shape for its schema (the server refuses it before merging): taken as it is.
  if (!fitsShape(atom.kind, lhs) || !fitsShape(atom.kind, rhs)) return rhs;
  return atom.kind === 'list'
    ? mergeLists(atom, isJsonArray(lhs) ? lhs : [], isJsonArray(rhs) ? rhs : [])
    : mergeMaps(atom, lhs, rhs);
};

const mergeMaps = (atom: MapAtom, lhs: JsonValue, rhs: JsonValue): Side => {
  const left = isJsonObject(lhs) ? lhs : {};
  const right = isJsonObject(rhs) ? rhs : {};
  const names = [...Object.keys(left), ...Object.keys(right).filter((name) => !Object.hasOwn(left, name))];
  const entries = names.flatMap((name) => {
    const merged = mergeValues(
      Object.hasOwn(left, name) ? left[name] : undefined,
      Object.hasOwn(right, name) ? right[name] : undefined,
      entryType(atom, name).type,
    );
    return merged === undefined ? [] : [[name, merged] as const];
  });
  return objectFromEntries(entries);
};

type Named = { readonly key: string; readonly item: JsonValue };

/** Items by key; a key held twice maps to null (a duplicate of the live object, merged as nothing). */
const indexed = (items: ReadonlyArray<Named>): Map<string, JsonValue> => {
  const byKey = new Map<string, JsonValue>();
  for (const { key, item } of items) byKey.set(key, byKey.has(key) ? null : item);
  return byKey;
};

const mergeLists = (atom: ListAtom, lhs: ReadonlyArray<JsonValue>, rhs: ReadonlyArray<JsonValue>): Side => {
  const left = namedItems(atom, lhs);
  const right = namedItems(atom, rhs);
  // An item that cannot be named, or named twice (the server refuses such a configuration): the list taken as it is.
  if (left.length < lhs.length || right.length < rhs.length) return rhs;
  if (new Set(right.map(({ key }) => key)).size < right.length) return rhs;
  const leftByKey = indexed(left);
  const rightByKey = indexed(right);
  const shared = right.filter(({ key }) => leftByKey.has(key)).map(({ key }) => key);
  const out: JsonValue[] = [];
  const done = new Set<string>();
  const emit = (key: string): void => {
    done.add(key);
    const merged = mergeValues(leftByKey.get(key) ?? undefined, rightByKey.get(key) ?? undefined, atom.element);
    if (merged !== undefined) out.push(merged);
  };
  let li = 0;
  let ri = 0;
  let next = 0;
  while (li < left.length || ri < right.length) {
    const l = left[li];
    const r = right[ri];
    if (l !== undefined && r !== undefined && l.key === r.key) {
      emit(r.key);
      li++;
      ri++;
      next++;
      continue;
    }
    if (l !== undefined && r !== undefined && rightByKey.has(l.key) && next < shared.length && shared[next] !== l.key) {
      li++;
      continue;
    }
    if (l !== undefined) {
      if (!rightByKey.has(l.key)) {
        out.push(l.item);
        li++;
        continue;
      }
      if (done.has(l.key)) li++;
    }
    if (r !== undefined) {
      emit(r.key);
      ri++;
      if (shared[next] === r.key) next++;
    }
  }
  return out.length === 0 ? undefined : out;
};
