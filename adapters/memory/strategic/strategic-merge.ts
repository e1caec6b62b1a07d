/**
 * Strategic merge patch, as kube-apiserver applies it to a built-in kind
 * (k8s.io/apimachinery/pkg/util/strategicpatch, StrategicMergeMapPatch with its server options:
 * parallel delete lists merged, nulls that match nothing dropped). Maps merge; `null` removes; a
 * list merges by the strategy and merge key its field declares (patch-schema.ts, merge-lists.ts);
 * the directives `$patch: replace|delete` (maps and list items), `$retainKeys`,
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are carried out. Own
 * implementation, written from the behaviour described in docs/testing.md and checked against
 * the real server by test/integration/strategic-merge-differential.test.ts. Pure: the inputs
 * are copied, failures are data.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { JsonObject } from '../../../core/json/json.js';
import {
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER,
  directiveField,
  listOrMapStrategy,
  withoutDirectives,
  withoutNulls,
} from './directives.js';
import { goType, hasMember, isObj, member, setMember, working, type Obj, type Value } from './go-values.js';
import {
  badArgType,
  badPatchType,
  fail,
  BAD_RETAIN_KEYS,
  StrategicMergeError,
  type MergeFailure,
} from './merge-failure.js';
import { itemsAreMaps, listHandled, type ListMerge } from './merge-lists.js';
import { ordered } from './list-order.js';
import { lookupField, lookupList, type PatchSchema } from './patch-schema.js';
import { validatedOrder } from './element-order.js';

/** handleDirectiveInMergeMap: `$patch: replace` makes the patch the map, `delete` empties it. */
const directiveInMap = (patch: Obj): Obj => {
  const directive = member(patch, DIRECTIVE);
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === 'delete') return {};
  return badPatchType(directive, patch);
};

/** applyRetainKeysDirective: the original keeps only the listed keys, and the patch may set only those. */
const retainKeysApplied = (original: Obj, patch: Obj): void => {
  if (!hasMember(patch, RETAIN_KEYS)) return;
  const listed = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(listed)) return fail(400, BAD_RETAIN_KEYS);
  const retained = new Set(listed.filter((key): key is string => typeof key === 'string'));
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER))
      continue;
    if (!retained.has(key)) fail(400, BAD_RETAIN_KEYS);
  }
  for (const key of Object.keys(original)) if (!retained.has(key)) delete original[key];
};

/** A patch value taken as the field's new value: nulls dropped, directive maps removed. */
const taken = (original: Obj, key: string, value: Value): void => {
  withoutNulls(value);
  const stripped = withoutDirectives(value);
  if (stripped.keep) setMember(original, key, stripped.value);
  else delete original[key];
};

const listOf = (value: Value | undefined): Value[] => (Array.isArray(value) ? value : badArgType('slice', value));

/**
 * mergePatchIntoOriginal: each `$setElementOrder/<field>` with its field's patch list, merged and put in that order.
 */
const elementOrdersApplied = (original: Obj, patch: Obj, schema: PatchSchema): void => {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) return badArgType('slice', order);
    const field = directiveField(key, SET_ELEMENT_ORDER);
    const inOriginal = hasMember(original, field);
    const inPatch = hasMember(patch, field);
    if (!inOriginal && !inPatch) continue;
    const originalList = inOriginal ? listOf(original[field]) : [];
    const patchList = inPatch ? listOf(patch[field]) : [];
    const { schema: items, meta } = lookupList(schema, field);
    const merge: ListMerge = {
      schema: items,
      strategy: listOrMapStrategy(meta.strategies),
      mergeKey: meta.mergeKey,
      isDeleteList: false,
      mergeMap,
    };
    validatedOrder(patchList, order, meta.mergeKey);
    const merged = !inPatch
      ? originalList
      : !inOriginal
        ? listOf(withoutDirectives(patchList).value)
        : listHandled(originalList, patchList, merge);
    const maps = itemsAreMaps(originalList, patchList);
    setMember(
      original,
      field,
      ordered({ merged, patchOrder: order, serverOrder: originalList, mergeKey: meta.mergeKey, maps }),
    );
    delete patch[field];
  }
};

/** One patch member merged into the original (mergeMap's loop body). */
const fieldMerged = (original: Obj, patchKey: string, patchValue: Value, schema: PatchSchema): void => {
  const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
  const key = isDeleteList ? directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST) : patchKey;
  if (patchValue === null) {
    delete original[key];
    return;
  }
  const current = member(original, key);
  if (current === undefined || goType(current) !== goType(patchValue)) {
    if (!isDeleteList) taken(original, key, patchValue);
    return;
  }
  if (isObj(current) && isObj(patchValue)) {
    const { schema: field, meta } = lookupField(schema, key);
    const strategy = listOrMapStrategy(meta.strategies);
    setMember(original, key, strategy === 'replace' ? patchValue : mergeMap(current, patchValue, field));
  } else if (Array.isArray(current) && Array.isArray(patchValue)) {
    const { schema: items, meta } = lookupList(schema, key);
    const strategy = listOrMapStrategy(meta.strategies);
    const merge: ListMerge = { schema: items, strategy, mergeKey: meta.mergeKey, isDeleteList, mergeMap };
    setMember(original, key, listHandled(current, patchValue, merge));
  } else taken(original, key, patchValue);
};

/** mergeMap: directives first, then every member. Changes `original` and `patch` (private copies). */
const mergeMap = (original: Obj, patch: Obj, schema: PatchSchema): Obj => {
  if (hasMember(patch, DIRECTIVE)) return directiveInMap(patch);
  retainKeysApplied(original, patch);
  elementOrdersApplied(original, patch, schema);
  for (const key of Object.keys(patch)) fieldMerged(original, key, patch[key] ?? null, schema);
  return original;
};

/** The patched object, or how the server fails the patch (merge-failure.ts). */
export const strategicMerge = (
  original: JsonObject,
  patch: JsonObject,
  schema: PatchSchema,
): E.Either<MergeFailure, JsonObject> => {
  const base = working(original);
  const changes = working(patch);
  try {
    return E.right(isObj(base) && isObj(changes) ? mergeMap(base, changes, schema) : {});
  } catch (error) {
    if (error instanceof StrategicMergeError) return E.left(error.failure);
    throw error;
  }
};
