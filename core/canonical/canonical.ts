/**
 * An object of a built-in kind in the form kube-apiserver stores it, derived from the Go types it
 * decodes the object into (core/canonical/go-types.ts, generated from k8s.io/api; see
 * docs/decisions/0021-storage-model-from-go-types.md):
 * - a field Go does not write at its zero value is left out: a non-pointer `omitempty` field at
 *   `false`, `0`, `""` or empty (`minReadySeconds: 0`, `paused: false`, `labels: {}`), at every
 *   depth, in list items and map values too; a pointer keeps its zero value (`replicas: 0`);
 * - `null` is the field's zero value (stored as Go writes it: left out, `null`, or `{}`), and a null
 *   item of a list or value of a map is its type's zero value (`"0"` for a quantity, `""`);
 * - every quantity canonical (`1000m` → `"1"`, `1024Mi` → `"1Gi"`, the number `2` → `"2"`), every
 *   `[]byte` field's base64 re-encoded, times in UTC.
 * The planner writes desired objects in this form, so a manifest written in any valid form compares
 * equal to what the server stored and converges (docs/application.md lists the forms); the
 * in-memory API server stores it, refusing the values the real server refuses. A custom resource's
 * metadata is an ObjectMeta like any other (the rest of it is left as written).
 * Pure; the object is returned as it is (same reference) when nothing changes.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  withKey,
  withoutKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { groupOf, type Resource } from '../model/resource.js';
import { decodeGoBase64 } from './go-base64.js';
import {
  groupKindStruct,
  kindStruct,
  OBJECT_META,
  zeroStruct,
  type FieldShape,
  type StructShape,
  type ValueShape,
} from './go-types.js';
import { canonicalQuantity } from './quantity.js';
import { canonicalMicroTime, canonicalTime } from './time.js';

/** A value the server would refuse: where it is and the server's words for it. */
export type CanonicalProblem = { readonly path: ReadonlyArray<string | number>; readonly message: string };

export type Canonicalized<T> = { readonly value: T; readonly problems: ReadonlyArray<CanonicalProblem> };

/** Stands for "not stored": the field is removed from its object. */
const OMITTED = Symbol('omitted');

/**
 * One object's walk. `at` is the path from the object to the value being rewritten, pushed and
 * popped as the walk descends (a path is copied only for a problem: most walks find none).
 * `roundedLists`: the kind's group defaults resource lists (core/v1 `SetDefaults_ResourceList`
 * rounds every value up to milli-units); node.k8s.io has no defaulting, and keeps finer values.
 */
type Walk = {
  /** Where problems go; `undefined` for a walk whose caller keeps only the value (no path is kept then). */
  readonly problems: CanonicalProblem[] | undefined;
  /** `undefined` with `problems`. */
  readonly at: Array<string | number> | undefined;
  readonly roundedLists: boolean;
};

const GROUPS_WITHOUT_DEFAULTING: ReadonlySet<string> = new Set(['node.k8s.io']);

const isEmpty = (value: JsonValue): boolean => {
  if (isJsonArray(value)) return value.length === 0;
  if (!isJsonObject(value)) return false;
  // The first own key answers: no key list is built for the many objects that are not empty.
  for (const key in value) if (hasOwn(value, key)) return false;
  return true;
};

/** Whether a stored value is its Go type's zero value (what `omitempty` and `omitzero` leave out). */
const isGoZero = (type: ValueShape, value: JsonValue): boolean => {
  switch (type.kind) {
    case 'string':
    case 'bytes':
      return value === '';
    case 'bool':
      return value === false;
    case 'int':
    case 'float':
    case 'intOrString':
      return value === 0;
    case 'quantity':
      return value === '0';
    case 'time':
    case 'microTime':
      return value === '0001-01-01T00:00:00Z' || value === '0001-01-01T00:00:00.000000Z';
    case 'list':
    case 'map':
    case 'resourceList':
    case 'struct':
      return isEmpty(value);
    case 'duration':
    case 'raw':
      return false;
  }
};

/** What Go decodes `null` into as a list item or map value, written back. */
const zeroOf = (type: ValueShape): JsonValue => {
  switch (type.kind) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'float':
    case 'intOrString':
      return 0;
    case 'quantity':
      return '0';
    case 'duration':
      return '0s';
    case 'struct':
      return zeroStruct(type.struct);
    case 'list':
    case 'map':
    case 'resourceList':
    case 'time':
    case 'microTime':
    case 'raw':
      return null;
  }
};

type Stored = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string };

/** A leaf rewritten by one of the canonical forms, or the value as written with a problem recorded. */
const leaf = (walk: Walk, value: JsonValue, stored: Stored) => {
  if (stored.ok) return stored.value;
  walk.problems?.push({ path: [...(walk.at ?? [])], message: stored.message });
  return value;
};

const base64 = (value: JsonValue): Stored => {
  if (typeof value !== 'string') return { ok: true, value };
  const decoded = decodeGoBase64(value);
  return decoded.ok ? { ok: true, value: decoded.canonical } : decoded;
};

/** A value (not null) of a type in its stored form. */
const storedValue = (walk: Walk, type: ValueShape, value: JsonValue): JsonValue => {
  switch (type.kind) {
    case 'struct':
      return isJsonObject(value) ? storedStruct(walk, type.struct, value) : value;
    case 'list':
      return isJsonArray(value) ? storedItems(walk, type.items, value) : value;
    case 'map':
      return isJsonObject(value) ? storedValues(walk, type.values, value, false) : value;
    case 'resourceList':
      return isJsonObject(value) ? storedValues(walk, QUANTITY, value, walk.roundedLists) : value;
    case 'quantity':
      return leaf(walk, value, canonicalQuantity(value, false));
    case 'bytes':
      return leaf(walk, value, base64(value));
    case 'time':
      return leaf(walk, value, canonicalTime(value));
    case 'microTime':
      return leaf(walk, value, canonicalMicroTime(value));
    default:
      return value;
  }
};

/** A struct field: null is its zero value; a zero value Go does not write is left out. */
const storedField = (walk: Walk, field: FieldShape, value: JsonValue): JsonValue | typeof OMITTED => {
  if (value === null) return field.dropped ? OMITTED : field.zero;
  const stored = storedValue(walk, field.type, value);
  return field.dropped && !field.pointer && isGoZero(field.type, stored) ? OMITTED : stored;
};

/** A struct's fields in their stored form; keys the struct does not have are left as they are. */
const storedStruct = (walk: Walk, struct: StructShape, object: JsonObject): JsonObject => {
  let result = object;
  for (const key in object) {
    const field = struct.fields.get(key);
    const value = object[key];
    if (field === undefined || value === undefined || !hasOwn(object, key)) continue;
    let next: JsonValue | typeof OMITTED;
    // A value of a type stored as written (most fields) is only dropped at its zero value: no path kept for it.
    if (value !== null && AS_WRITTEN.has(field.type.kind))
      next = field.dropped && !field.pointer && isGoZero(field.type, value) ? OMITTED : value;
    else {
      walk.at?.push(key);
      next = storedField(walk, field, value);
      walk.at?.pop();
    }
    if (next !== value) result = next === OMITTED ? withoutKey(result, key) : withKey(result, key, next);
  }
  return result;
};

/**
 * The kinds `storedValue` returns as they are (not null): a struct field of one of them changes only when dropped
 * at its zero value, a list item or map value of one of them only when null.
 */
const AS_WRITTEN: ReadonlySet<ValueShape['kind']> = new Set([
  'string',
  'bool',
  'int',
  'float',
  'intOrString',
  'duration',
  'raw',
]);

/**
 * An item of a list or a value of a map: null is the type's zero value. `rounded`: a quantity of a
 * resource list its group's defaulting rounds up to milli-units.
 */
const storedElement = (walk: Walk, type: ValueShape, key: string | number, value: JsonValue, rounded: boolean) => {
  if (value === null) return zeroOf(type);
  walk.at?.push(key);
  const stored = rounded ? leaf(walk, value, canonicalQuantity(value, true)) : storedValue(walk, type, value);
  walk.at?.pop();
  return stored;
};

const storedItems = (walk: Walk, type: ValueShape, list: ReadonlyArray<JsonValue>): JsonValue => {
  if (AS_WRITTEN.has(type.kind) && !list.includes(null)) return list;
  let items: JsonValue[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item === undefined) continue;
    const next = storedElement(walk, type, i, item, false);
    if (next === item) continue;
    items ??= [...list];
    items[i] = next;
  }
  return items ?? list;
};

const QUANTITY: ValueShape = { kind: 'quantity' };

/** Whether a map (labels, annotations, a ConfigMap's data: most maps hold strings) has a null value. */
const hasNull = (map: JsonObject): boolean => {
  for (const key in map) if (map[key] === null && hasOwn(map, key)) return true;
  return false;
};

/** A map's values (a resource list's: quantities, `rounded` when its group's defaulting rounds them). */
const storedValues = (walk: Walk, type: ValueShape, map: JsonObject, rounded: boolean): JsonObject => {
  if (!rounded && AS_WRITTEN.has(type.kind) && !hasNull(map)) return map;
  let result = map;
  for (const key in map) {
    const value = map[key];
    if (value === undefined || !hasOwn(map, key)) continue;
    const next = storedElement(walk, type, key, value, rounded);
    if (next !== value) result = withKey(result, key, next);
  }
  return result;
};

/**
 * The Go struct of the object: its kind's for the version it names, else any version's; ObjectMeta's alone for others.
 */
const structOf = (group: string, kind: string, object: JsonObject): StructShape | undefined => {
  const apiVersion = getOwn(object, 'apiVersion');
  return (typeof apiVersion === 'string' ? kindStruct(apiVersion, kind) : undefined) ?? groupKindStruct(group, kind);
};

const METADATA_ONLY: StructShape | undefined =
  OBJECT_META === undefined
    ? undefined
    : {
        name: 'metadata',
        fields: new Map([
          [
            'metadata',
            {
              name: 'metadata',
              type: { kind: 'struct', struct: OBJECT_META },
              pointer: false,
              dropped: false,
              zero: {},
            },
          ],
        ]),
      };

/** The object as the server stores it, with every value the server would refuse (left as written). */
export const canonicalized = <T extends JsonObject>(group: string, kind: string, object: T): Canonicalized<T> => {
  const problems: CanonicalProblem[] = [];
  const value = storedObject(
    { problems, at: [], roundedLists: !GROUPS_WITHOUT_DEFAULTING.has(group) },
    group,
    kind,
    object,
  );
  return { value, problems: problems.length === 0 ? NO_PROBLEMS : problems };
};

/** `object` in its stored form, by the walk given. */
const storedObject = <T extends JsonObject>(walk: Walk, group: string, kind: string, object: T): T => {
  const struct = structOf(group, kind, object) ?? METADATA_ONLY;
  // `storedStruct` keeps every key of the root and only replaces values below it: still a T.
  return struct === undefined ? object : (storedStruct(walk, struct, object) as T);
};

const NO_PROBLEMS: ReadonlyArray<CanonicalProblem> = [];

/**
 * A desired resource in the form the API server will store it (values it would refuse stay as
 * written: the server's refusal reaches the user when the write is made).
 */
export const canonicalResource = (resource: Resource): Resource => {
  const group = groupOf(resource.apiVersion);
  // Problems are not wanted here: no list, no path and no result record per resource of every fresh spec.
  return storedObject(
    { problems: undefined, at: undefined, roundedLists: !GROUPS_WITHOUT_DEFAULTING.has(group) },
    group,
    resource.kind,
    resource,
  );
};
