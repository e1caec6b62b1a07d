/**
 * An object of a built-in kind in the form kube-apiserver stores it: every quantity canonical
 * (`1000m` → `"1"`, `1024Mi` → `"1Gi"`, the number `2` → `"2"`), every `[]byte` field's base64
 * re-encoded, times in UTC, empty maps and lists the server omits (`labels: {}`) left out. The planner writes desired objects in this form, so a manifest written in any valid
 * form compares equal to what the server stored and converges (docs/application.md lists the forms);
 * the in-memory API server stores it, refusing the values the real server refuses.
 * Pure; the object is returned as it is (same reference) when nothing changes.
 */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  withKey,
  withoutKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { groupOf, type Resource } from '../model/resource.js';
import { canonicalFieldsOf, EACH_ITEM, EACH_VALUE, type CanonicalField, type CanonicalType } from './fields.js';
import { decodeGoBase64 } from './go-base64.js';
import { canonicalQuantity } from './quantity.js';
import { canonicalMicroTime, canonicalTime } from './time.js';

/** A value the server would refuse: where it is and the server's words for it. */
export type CanonicalProblem = { readonly path: ReadonlyArray<string | number>; readonly message: string };

export type Canonicalized<T> = { readonly value: T; readonly problems: ReadonlyArray<CanonicalProblem> };

type Leaf =
  { readonly ok: true; readonly value: JsonValue | typeof OMITTED } | { readonly ok: false; readonly message: string };

/**
 * One value in its stored form. A null map value is the type's zero value (`"0"`, `""`); a null
 * field is left to the decoder (a nil pointer).
 */
const leaf = (type: CanonicalType, value: JsonValue, inMap: boolean): Leaf => {
  if (type === 'omitEmpty') return { ok: true, value: isEmpty(value) ? OMITTED : value };
  if (type === 'time') return canonicalTime(value);
  if (type === 'microTime') return canonicalMicroTime(value);
  if (value === null) return { ok: true, value: inMap ? (type === 'bytes' ? '' : '0') : null };
  if (type !== 'bytes') return canonicalQuantity(value, type === 'resourceList');
  if (typeof value !== 'string') return { ok: true, value };
  const decoded = decodeGoBase64(value);
  return decoded.ok ? { ok: true, value: decoded.canonical } : decoded;
};

/** Stands for "not stored": the field is removed from its object. */
const OMITTED = Symbol('omitted');

const isEmpty = (value: JsonValue): boolean =>
  (isJsonArray(value) && value.length === 0) || (isJsonObject(value) && Object.keys(value).length === 0);

/**
 * One object's walk. `at` is the path from the object to the value being rewritten, pushed and
 * popped as the walk descends (a path is copied only for a problem: most walks find none, and a
 * copy per step was most of what planning a fresh Deployment allocated).
 */
type Walk = {
  readonly problems: CanonicalProblem[];
  readonly at: Array<string | number>;
};

/** A field to rewrite: its path from the object and its type. */
type Field = CanonicalField;

/** `value` with the values the steps from `index` reach in their stored form (the same reference when none changes). */
const rewrite = (walk: Walk, field: Field, value: JsonValue, index: number): JsonValue | typeof OMITTED => {
  if (index === field.path.length) {
    const stored = leaf(field.type, value, field.path[index - 1] === EACH_VALUE);
    if (stored.ok) return stored.value;
    walk.problems.push({ path: [...walk.at], message: stored.message });
    return value;
  }
  const step = field.path[index];
  if (step === undefined) return value;
  if (step === EACH_ITEM) return isJsonArray(value) ? rewriteItems(walk, field, value, index) : value;
  if (!isJsonObject(value)) return value;
  if (step === EACH_VALUE) return rewriteValues(walk, field, value, index);
  const child = getOwn(value, step);
  if (child === undefined) return value;
  const next = descend(walk, field, step, child, index);
  if (next === child) return value;
  return next === OMITTED ? withoutKey(value, step) : withKey(value, step, next);
};

/** `rewrite` one level down, with `key` on the walk's path while it runs. */
const descend = (
  walk: Walk,
  field: Field,
  key: string | number,
  child: JsonValue,
  index: number,
): JsonValue | typeof OMITTED => {
  walk.at.push(key);
  const next = rewrite(walk, field, child, index + 1);
  walk.at.pop();
  return next;
};

/** Every item of a list rewritten (only fields are omitted: no omitEmpty path ends at a list item). */
const rewriteItems = (walk: Walk, field: Field, list: ReadonlyArray<JsonValue>, index: number): JsonValue => {
  let items: JsonValue[] | undefined;
  list.forEach((item, i) => {
    const next = descend(walk, field, i, item, index);
    if (next === item || next === OMITTED) return;
    items ??= [...list];
    items[i] = next;
  });
  return items ?? list;
};

/** Every value of a map rewritten, or left out where the server omits it. */
const rewriteValues = (walk: Walk, field: Field, map: JsonObject, index: number): JsonObject => {
  let result: JsonObject = map;
  for (const key of Object.keys(map)) {
    const item = getOwn(map, key);
    if (item === undefined) continue;
    const next = descend(walk, field, key, item, index);
    if (next !== item) result = next === OMITTED ? withoutKey(result, key) : withKey(result, key, next);
  }
  return result;
};

/** The object as the server stores it, with every value the server would refuse (left as written). */
export const canonicalized = <T extends JsonObject>(group: string, kind: string, object: T): Canonicalized<T> => {
  const walk: Walk = { problems: [], at: [] };
  let value: JsonObject = object;
  for (const field of canonicalFieldsOf(group, kind)) {
    const next = rewrite(walk, field, value, 0);
    // Every path has at least one step: the object itself is never omitted.
    if (isJsonObject(next)) value = next;
  }
  // `rewrite` keeps every key and only replaces values the fields reach: still a T.
  return { value: value as T, problems: walk.problems };
};

/**
 * A desired resource in the form the API server will store it (values it would refuse stay as
 * written: the server's refusal reaches the user when the write is made).
 */
export const canonicalResource = (resource: Resource): Resource =>
  canonicalized(groupOf(resource.apiVersion), resource.kind, resource).value;
