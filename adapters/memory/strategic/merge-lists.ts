/**
 * Lists in a strategic merge patch (strategicpatch's mergeSlice): a `merge` list of maps merges
 * item by item on its merge key (`$patch: delete` items remove, a `$patch: replace` item makes the
 * rest of the patch list the whole list); a `merge` list of scalars is the union, or, under
 * `$deleteFromPrimitiveList/<field>`, the original without the patch's values; any other list is
 * replaced by the patch's.
 */
import { badPatchType, fail, noListOfLists, noMergeKey } from './merge-failure.js';
import { DIRECTIVE } from './directives.js';
import { goEqual, goFormat, goType, hasMember, isObj, member, type Obj, type Value } from './go-values.js';
import { ordered } from './list-order.js';
import { kindName, type PatchSchema } from './patch-schema.js';

/** The map merge, handed in (maps and lists recurse into each other). */
export type MergeMap = (original: Obj, patch: Obj, schema: PatchSchema) => Obj;

export type ListMerge = {
  readonly schema: PatchSchema;
  readonly strategy: string;
  readonly mergeKey: string;
  readonly isDeleteList: boolean;
  readonly mergeMap: MergeMap;
};

/** sliceElementType: every item of both lists of one Go type, not a list; whether they are maps. */
export const itemsAreMaps = (...lists: ReadonlyArray<ReadonlyArray<Value>>): boolean => {
  let first: string | undefined;
  for (const list of lists)
    for (const item of list) {
      const type = goType(item);
      if (first === undefined) {
        first = type;
        if (Array.isArray(item)) noListOfLists();
      } else if (type !== first)
        fail(500, `list element types are not identical: [${lists.map((l) => goFormat([...l])).join(' ')}]`);
    }
  if (first === undefined) return fail(500, 'no elements in any of the given slices');
  return first === 'map[string]interface {}';
};

/**
 * The caller's list as Go's slices share it: strategicpatch deletes and appends on the original
 * slice in place, so the list `$setElementOrder` later orders by (the caller's view of the same
 * backing array) sees items shifted left over deletions and appended items in the freed places.
 * `length` is the merged slice's; `view` the caller's array, changed where Go would change it.
 */
type SharedList = { readonly view: Value[]; length: number; readonly items: Value[] };

const shared = (view: Value[]): SharedList => ({ view, length: view.length, items: [...view] });

/** `append(s[:at], s[at+1:]...)`: the tail shifts left in the shared array. */
const removeAt = (list: SharedList, at: number): void => {
  list.items.splice(at, 1);
  for (let i = at; i < list.length - 1 && i < list.view.length - 1; i++) list.view[i] = list.view[i + 1] ?? null;
  list.length--;
};

/** `append(s, item)`: written in place while the slice is shorter than the shared array. */
const append = (list: SharedList, item: Value): void => {
  if (list.length < list.view.length) list.view[list.length] = item;
  list.items.push(item);
  list.length++;
};

/** deleteMatchingEntries: every item whose merge key has this value, removed. */
const removeKeyValue = (list: SharedList, mergeKey: string, value: Value | undefined): void => {
  for (;;) {
    const at = list.items.findIndex(
      (item) => isObj(item) && hasMember(item, mergeKey) && goEqual(member(item, mergeKey), value),
    );
    if (at < 0) return;
    removeAt(list, at);
  }
};

/** mergeSliceWithSpecialElements: `$patch` items carried out; the original and the patch items left to merge. */
const specialItemsApplied = (
  original: SharedList,
  patch: ReadonlyArray<Value>,
  mergeKey: string,
): { readonly original: SharedList; readonly patch: Value[] } => {
  const plain: Value[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isObj(item) || !hasMember(item, DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    const directive = member(item, DIRECTIVE);
    if (directive === 'delete') {
      if (!hasMember(item, mergeKey)) noMergeKey(item, mergeKey);
      removeKeyValue(original, mergeKey, member(item, mergeKey));
    } else if (directive === 'replace') replace = true;
    else if (directive === 'merge') fail(500, 'merging lists cannot yet be specified in the patch');
    else badPatchType(directive, item);
  }
  return replace ? { original: shared([...plain]), patch: [] } : { original, patch: plain };
};

/** Each patch item merged into the original's item with its merge key, or appended as sent. */
const mergedByKey = (original: SharedList, patch: ReadonlyArray<Value>, merge: ListMerge): Value[] => {
  for (const item of patch) {
    if (!isObj(item)) continue;
    if (!hasMember(item, merge.mergeKey)) noMergeKey(item, merge.mergeKey);
    const value = member(item, merge.mergeKey);
    const at = original.items.findIndex(
      (candidate) => isObj(candidate) && goEqual(member(candidate, merge.mergeKey), value),
    );
    const found = original.items[at];
    if (at >= 0 && isObj(found)) original.items[at] = merge.mergeMap(found, item, merge.schema);
    else append(original, item);
  }
  return original.items;
};

/** Scalars of both lists, each once (Go's == on interface values). */
const union = (original: ReadonlyArray<Value>, patch: ReadonlyArray<Value>): Value[] =>
  [...original, ...patch].filter((item, index, all) => all.findIndex((other) => goEqual(other, item)) === index);

/** mergeSlice. */
export const mergedList = (original: Value[], patch: Value[], merge: ListMerge): Value[] => {
  if (original.length === 0 && patch.length === 0) return original;
  const maps = itemsAreMaps(original, patch);
  if (!maps) {
    if (merge.isDeleteList) return original.filter((item) => !patch.some((gone) => goEqual(gone, item)));
    return ordered({ merged: union(original, patch), patchOrder: patch, serverOrder: original, mergeKey: '', maps });
  }
  if (merge.mergeKey === '') return fail(500, `cannot merge lists without merge key for ${kindName(merge.schema)}`);
  const special = specialItemsApplied(shared(original), patch, merge.mergeKey);
  // Go orders by the original slice as it stood after the deletions (its length then).
  const serverOrder = special.original.items.slice(0, special.original.length);
  const merged = mergedByKey(special.original, special.patch, merge);
  return ordered({ merged, patchOrder: special.patch, serverOrder, mergeKey: merge.mergeKey, maps });
};

/** mergeSliceHandler: `merge` lists (and delete lists, whatever their strategy) merge; others take the patch's list. */
export const listHandled = (original: Value[], patch: Value[], merge: ListMerge): Value[] =>
  merge.strategy === 'merge' || merge.isDeleteList ? mergedList(original, patch, merge) : patch;
