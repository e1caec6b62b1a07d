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
  hasOwn,
  isJsonArray,
  isJsonObject,
  withKey,
  withoutKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { groupOf, type Resource } from '../model/resource.js';
import {
  EACH_ITEM,
  EACH_VALUE,
  KIND_FIELDS,
  METADATA_FIELDS,
  type CanonicalField,
  type CanonicalType,
  type Step,
} from './fields.js';
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

const isEmpty = (value: JsonValue): boolean => {
  if (isJsonArray(value)) return value.length === 0;
  if (!isJsonObject(value)) return false;
  // The first own key answers: no key list is built for the many objects that are not empty.
  for (const key in value) if (hasOwn(value, key)) return false;
  return true;
};

/**
 * The fields of a kind as a tree of steps, built once per kind when the module loads: one walk
 * of an object visits each step once, however many fields pass through it (a Deployment's 35
 * fields share `spec.template.spec.containers`), and stops where the object has no such key.
 */
type FieldTree = {
  /** The steps below this node, in the order the kind's fields first take them. */
  readonly steps: ReadonlyArray<readonly [Step, FieldTree]>;
  /** The fields that end here, with their position in the kind's list (problems are reported in list order). */
  readonly ends: ReadonlyArray<{ readonly type: CanonicalType; readonly order: number }>;
};

type TreeUnderConstruction = { steps: Map<Step, TreeUnderConstruction>; ends: FieldTree['ends'][number][] };

const treeOf = (fields: ReadonlyArray<CanonicalField>): FieldTree => {
  const root: TreeUnderConstruction = { steps: new Map(), ends: [] };
  fields.forEach((field, order) => {
    let node = root;
    for (const step of field.path) {
      const next = node.steps.get(step) ?? { steps: new Map(), ends: [] };
      node.steps.set(step, next);
      node = next;
    }
    node.ends.push({ type: field.type, order });
  });
  const frozen = (node: TreeUnderConstruction): FieldTree => ({
    steps: [...node.steps].map(([step, child]) => [step, frozen(child)] as const),
    ends: node.ends,
  });
  return frozen(root);
};

/** `group/Kind` → the tree of its fields (constant: built at load, only read). */
const TREES: ReadonlyMap<string, FieldTree> = new Map(
  [...KIND_FIELDS].map(([kind, fields]) => [kind, treeOf(fields)] as const),
);
const METADATA_TREE: FieldTree = treeOf(METADATA_FIELDS);

/**
 * One object's walk. `at` is the path from the object to the value being rewritten, pushed and
 * popped as the walk descends (a path is copied only for a problem: most walks find none, and a
 * copy per step was most of what planning a fresh Deployment allocated).
 */
type Walk = {
  readonly problems: Array<{ readonly order: number; readonly problem: CanonicalProblem }>;
  readonly at: Array<string | number>;
};

/**
 * `value` with the fields below `node` in their stored form (the same reference when none
 * changes): the steps below first, then the fields ending here. Rewriting below never changes
 * whether a value is empty (no field omits a list item, and an omitted key below leaves its
 * object in place), so the order gives what applying the fields one by one, in list order, gives.
 */
const rewrite = (walk: Walk, node: FieldTree, value: JsonValue, inMap: boolean): JsonValue | typeof OMITTED => {
  let result = node.steps.length === 0 ? value : rewriteSteps(walk, node, value);
  for (const end of node.ends) {
    // The common case, answered without building a `Leaf`.
    if (end.type === 'omitEmpty') {
      if (isEmpty(result)) return OMITTED;
      continue;
    }
    const stored = leaf(end.type, result, inMap);
    if (!stored.ok) walk.problems.push({ order: end.order, problem: { path: [...walk.at], message: stored.message } });
    else if (stored.value === OMITTED) return OMITTED;
    else result = stored.value;
  }
  return result;
};

/** `value` with the steps below `node` rewritten. */
const rewriteSteps = (walk: Walk, node: FieldTree, value: JsonValue): JsonValue => {
  let result = value;
  for (const [step, child] of node.steps) {
    if (step === EACH_ITEM) {
      if (isJsonArray(result)) result = rewriteItems(walk, child, result);
    } else if (!isJsonObject(result)) {
      continue;
    } else if (step === EACH_VALUE) {
      result = rewriteValues(walk, child, result);
    } else {
      const current = getOwn(result, step);
      if (current === undefined) continue;
      const next = descend(walk, child, step, current, false);
      if (next !== current) result = next === OMITTED ? withoutKey(result, step) : withKey(result, step, next);
    }
  }
  return result;
};

/** `rewrite` one level down, with `key` on the walk's path while it runs. */
const descend = (
  walk: Walk,
  node: FieldTree,
  key: string | number,
  child: JsonValue,
  inMap: boolean,
): JsonValue | typeof OMITTED => {
  walk.at.push(key);
  const next = rewrite(walk, node, child, inMap);
  walk.at.pop();
  return next;
};

/** Every item of a list rewritten (only fields are omitted: no omitEmpty path ends at a list item). */
const rewriteItems = (walk: Walk, node: FieldTree, list: ReadonlyArray<JsonValue>): JsonValue => {
  let items: JsonValue[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (item === undefined) continue;
    const next = descend(walk, node, i, item, false);
    if (next === item || next === OMITTED) continue;
    items ??= [...list];
    items[i] = next;
  }
  return items ?? list;
};

/** Every value of a map rewritten, or left out where the server omits it. */
const rewriteValues = (walk: Walk, node: FieldTree, map: JsonObject): JsonObject => {
  let result: JsonObject = map;
  for (const key of Object.keys(map)) {
    const item = getOwn(map, key);
    if (item === undefined) continue;
    const next = descend(walk, node, key, item, true);
    if (next !== item) result = next === OMITTED ? withoutKey(result, key) : withKey(result, key, next);
  }
  return result;
};

/** The object as the server stores it, with every value the server would refuse (left as written). */
export const canonicalized = <T extends JsonObject>(group: string, kind: string, object: T): Canonicalized<T> => {
  const walk: Walk = { problems: [], at: [] };
  // The root is never omitted: every field has at least one step, so no field ends there.
  const value = rewriteSteps(walk, TREES.get(`${group}/${kind}`) ?? METADATA_TREE, object);
  // `rewrite` keeps every key and only replaces values the fields reach: still a T.
  return { value: value as T, problems: problemsInFieldOrder(walk.problems) };
};

/** The problems as the kind's fields list them (field by field, each in walk order): a stable sort by field. */
const problemsInFieldOrder = (found: Walk['problems']): ReadonlyArray<CanonicalProblem> =>
  found.length === 0 ? NO_PROBLEMS : [...found].sort((a, b) => a.order - b.order).map((entry) => entry.problem);

const NO_PROBLEMS: ReadonlyArray<CanonicalProblem> = [];

/**
 * A desired resource in the form the API server will store it (values it would refuse stay as
 * written: the server's refusal reaches the user when the write is made).
 */
export const canonicalResource = (resource: Resource): Resource =>
  canonicalized(groupOf(resource.apiVersion), resource.kind, resource).value;
