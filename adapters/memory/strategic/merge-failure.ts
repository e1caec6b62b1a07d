/**
 * How a strategic merge patch fails, with the answer kube-apiserver gives for each
 * (apiserver's interpretStrategicMergePatchError): a malformed directive is 400; a list of lists
 * 422 with the generic message; anything else (a missing merge key, an unknown `$patch`, mixed
 * element types) is a plain Go error, which the server answers as 500 with its text.
 */
import { goFormat, goString, goTypeName, type Obj, type Value } from './go-values.js';

export type MergeFailure = { readonly code: 400 | 422 | 500; readonly message: string };

/** Thrown inside the merge only; strategicMerge returns it as data. */
export class StrategicMergeError extends Error {
  constructor(readonly failure: MergeFailure) {
    super(failure.message);
  }
}

export const fail = (code: MergeFailure['code'], message: string): never => {
  throw new StrategicMergeError({ code, message });
};

export const BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

/** mergepatch.ErrNoMergeKey. */
export const noMergeKey = (item: Obj, mergeKey: string): never =>
  fail(500, `map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);

/** mergepatch.ErrBadArgType. */
export const badArgType = (expected: 'map' | 'slice', actual: Value | undefined): never =>
  fail(
    500,
    `expected a ${expected === 'map' ? 'map[string]interface {}' : '[]interface {}'}, but received a ${goTypeName(actual)}`,
  );

/** mergepatch.ErrBadPatchType. */
export const badPatchType = (directive: Value | undefined, item: Obj): never =>
  fail(500, `unknown patch type: ${goString(directive)} in map: ${goFormat(item)}`);

/** mergepatch.ErrNoListOfLists: 422 with NewGenericServerResponse's message for the code. */
export const noListOfLists = (): never => fail(422, 'the server rejected our request due to an error in our request');
