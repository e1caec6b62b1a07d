/**
 * The order of a merged list, as strategicpatch's normalizeElementOrder sets it: the items the
 * patch names, in the patch's order (or `$setElementOrder`'s), interleaved with the items only the
 * server has, in the server's order; where the two cannot be compared (an item new to the
 * server), the patch's item goes first.
 */
import { badArgType, noMergeKey } from './merge-failure.js';
import { DIRECTIVE } from './directives.js';
import { hasMember, isObj, member, type Value } from './go-values.js';

/** What identifies an item in a list: the merge key's value for maps, the item itself for scalars. */
const identity = (item: Value, mergeKey: string): Value | undefined =>
  mergeKey === '' ? item : isObj(item) ? member(item, mergeKey) : undefined;

/** Where each identity first appears in a list (strategicpatch's `index`, as a lookup). */
export type Positions = { readonly at: (item: Value) => number };

export const positionsIn = (list: ReadonlyArray<Value>, mergeKey: string): Positions => {
  const first = new Map<Value | undefined, number>();
  list.forEach((item, index) => {
    const key = identity(item, mergeKey);
    // Maps and lists never equal anything (goEqual): they get no position.
    if ((key === null || typeof key !== 'object') && !first.has(key)) first.set(key, index);
  });
  return { at: (item) => first.get(identity(item, mergeKey)) ?? -1 };
};

/** Every item a map holding the merge key (validateMergeKeyInLists). */
const checkMergeKeys = (mergeKey: string, ...lists: ReadonlyArray<ReadonlyArray<Value>>): void => {
  for (const list of lists)
    for (const item of list) {
      if (!isObj(item)) badArgType('map', item);
      else if (!hasMember(item, mergeKey)) noMergeKey(item, mergeKey);
    }
};

/**
 * sort.SliceStable with strategicpatch's comparator, which calls an item that `order` lacks
 * smaller than anything: exact for the short lists Go insertion-sorts, a stable sort by position
 * (items `order` lacks last) beyond.
 */
const sortedBy = (items: ReadonlyArray<Value>, order: Positions): Value[] => {
  const less = (a: Value, b: Value): boolean => {
    const ia = order.at(a);
    const ib = order.at(b);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  const sorted = [...items];
  if (sorted.length > 20)
    return sorted.sort(
      (a, b) => (order.at(a) < 0 ? Infinity : order.at(a)) - (order.at(b) < 0 ? Infinity : order.at(b)),
    );
  for (let i = 1; i < sorted.length; i++)
    for (let j = i; j > 0 && less(sorted[j] ?? null, sorted[j - 1] ?? null); j--)
      [sorted[j], sorted[j - 1]] = [sorted[j - 1] ?? null, sorted[j] ?? null];
  return sorted;
};

/** normalizeSliceOrder: items sorted by `order`, `$patch: delete` items (maps) moved last. */
const normalizedOrder = (
  items: ReadonlyArray<Value>,
  order: ReadonlyArray<Value>,
  mergeKey: string,
  maps: boolean,
): Value[] => {
  if (!maps) return sortedBy(items, positionsIn(order, mergeKey));
  checkMergeKeys(mergeKey, items, order);
  const deletes = items.filter((item) => isObj(item) && member(item, DIRECTIVE) === 'delete');
  const kept = items.filter((item) => !(isObj(item) && member(item, DIRECTIVE) === 'delete'));
  return [...sortedBy(kept, positionsIn(order, mergeKey)), ...deletes];
};

/** mergeSortedSlice: server-only items inserted among the patch's, by the server's order where both are known. */
const interleaved = (serverOnly: ReadonlyArray<Value>, patched: ReadonlyArray<Value>, server: Positions): Value[] => {
  const out: Value[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patched.length) {
    const left = serverOnly[i];
    const right = patched[j];
    if (right === undefined) out.push(serverOnly[i++] ?? null);
    else if (left === undefined) out.push(patched[j++] ?? null);
    else {
      const li = server.at(left);
      const ri = server.at(right);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++] ?? null);
      else out.push(patched[j++] ?? null);
    }
  }
  return out;
};

export type OrderInput = {
  readonly merged: ReadonlyArray<Value>;
  /** The order the patch asks for: the patch list, or `$setElementOrder`'s. */
  readonly patchOrder: ReadonlyArray<Value>;
  readonly serverOrder: ReadonlyArray<Value>;
  readonly mergeKey: string;
  readonly maps: boolean;
};

/** The merged list split into the items `patchOrder` names and the server's own, each ordered, then interleaved. */
export const ordered = (input: OrderInput): Value[] => {
  const { merged, patchOrder, serverOrder, mergeKey, maps } = input;
  const named = positionsIn(patchOrder, mergeKey);
  if (maps) {
    for (const item of merged) if (!isObj(item)) badArgType('map', item);
    for (const item of merged) if (isObj(item) && !hasMember(item, mergeKey)) noMergeKey(item, mergeKey);
    for (const item of patchOrder) if (!isObj(item)) badArgType('map', item);
  }
  const inPatch = (item: Value): boolean => named.at(item) >= 0;
  const patched = merged.filter(inPatch);
  const serverOnly = merged.filter((item) => !inPatch(item));
  return interleaved(
    normalizedOrder(serverOnly, serverOrder, mergeKey, maps),
    normalizedOrder(patched, patchOrder, mergeKey, maps),
    positionsIn(serverOrder, mergeKey),
  );
};
