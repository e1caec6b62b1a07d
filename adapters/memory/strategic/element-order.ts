/** `$setElementOrder/<field>`'s consistency with the field's patch list (validatePatchWithSetOrderList). */
import { badArgType, fail, noMergeKey } from './merge-failure.js';
import { DIRECTIVE, hasDirective } from './directives.js';
import { goEqual, goFormat, hasMember, isObj, member, type Value } from './go-values.js';

/** mergeKeyValueEqual: two items the same by merge key (or equal scalars). */
const sameItem = (left: Value, right: Value, mergeKey: string): boolean => {
  if (mergeKey === '') return goEqual(left, right);
  if (!isObj(left)) return badArgType('map', left);
  if (!isObj(right)) return badArgType('map', right);
  if (!hasMember(left, mergeKey)) return noMergeKey(left, mergeKey);
  if (!hasMember(right, mergeKey)) return noMergeKey(right, mergeKey);
  return goEqual(member(left, mergeKey), member(right, mergeKey));
};

/**
 * The patch list's items (but its deletions) must appear in `$setElementOrder` in the same
 * relative order; otherwise the server fails the patch (500, quoting both lists).
 */
export const validatedOrder = (
  patchList: ReadonlyArray<Value>,
  order: ReadonlyArray<Value>,
  mergeKey: string,
): void => {
  if (order.length === 0 || patchList.length === 0) return;
  if (mergeKey !== '') for (const item of patchList) if (!isObj(item)) badArgType('map', item);
  const kept =
    mergeKey === '' ? patchList : patchList.filter((item) => !(isObj(item) && member(item, DIRECTIVE) === 'delete'));
  let inPatch = 0;
  let inOrder = 0;
  while (inPatch < kept.length && inOrder < order.length) {
    const item = kept[inPatch] ?? null;
    if (hasDirective(item)) {
      inPatch++;
      continue;
    }
    if (sameItem(item, order[inOrder] ?? null, mergeKey)) inPatch++;
    inOrder++;
  }
  if (inPatch < kept.length && inOrder >= order.length)
    fail(
      500,
      `The order in patch list:\n${goFormat([...patchList])}\n doesn't match $setElementOrder list:\n${goFormat([...order])}\n`,
    );
};
