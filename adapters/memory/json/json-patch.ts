/**
 * RFC 6902 JSON Patch, applied immutably with own-property semantics (a `__proto__` member is data).
 * Failures are reported the way kube-apiserver reports them: a body that is not a list of
 * operations is a 400 BadRequest; an operation that cannot be applied (failed `test`, missing
 * path, bad index) is a 422 — see {@link JSON_PATCH_APPLY_FAILURE}. Where the server's library
 * (evanphx/json-patch v4) departs from RFC 6902, the server's behaviour is the one modelled.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  jsonEqual,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import { jsonText } from '../../../core/json/text.js';
import { fromPointer } from '../../../core/json/path.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { addAt, removeAt, replaceAt, valueAt, type EditResult } from './json-pointer-edit.js';

/**
 * The answer to a JSON Patch that parses but cannot be applied. kube-apiserver's patch handler
 * (`applyJSPatch`) wraps every `jsonpatch.Apply` error in a 422 whose reason is `Invalid`
 * (`NewGenericServerResponse(http.StatusUnprocessableEntity, …)`).
 */
export const JSON_PATCH_APPLY_FAILURE = { tag: 'Invalid', code: 422 } as const;

const applyFailure = (message: string): ClusterError =>
  clusterError(JSON_PATCH_APPLY_FAILURE.tag, message, { code: JSON_PATCH_APPLY_FAILURE.code });

/** Applies `operations` in order; all or nothing. */
export const applyJsonPatch = (document: JsonValue, operations: unknown): E.Either<ClusterError, JsonValue> => {
  if (!isJsonArray(operations) || !operations.every(isJsonObject)) {
    return E.left(clusterError('BadRequest', 'json patch must be a list of operation objects'));
  }
  let current = document;
  for (const [index, operation] of operations.entries()) {
    const result = applyOperation(current, operation);
    if (!result.ok)
      return E.left(
        applyFailure(`json patch operation ${index} (${jsonText(getOwn(operation, 'op'))}): ${result.message}`),
      );
    current = result.value;
  }
  return E.right(current);
};

const pointer = (operation: JsonObject, field: 'path' | 'from'): ReadonlyArray<string> | undefined => {
  const value = getOwn(operation, field);
  return typeof value === 'string' && (value === '' || value.startsWith('/')) ? fromPointer(value) : undefined;
};

const applyOperation = (document: JsonValue, operation: JsonObject): EditResult => {
  const path = pointer(operation, 'path');
  if (path === undefined) return { ok: false, message: 'missing or malformed "path"' };
  const value = getOwn(operation, 'value');
  switch (getOwn(operation, 'op')) {
    case 'add':
      return value === undefined ? missingValue : addAt(document, path, value);
    case 'replace':
      return value === undefined ? missingValue : replaceAt(document, path, value);
    case 'remove':
      return removeAt(document, path);
    case 'test':
      return testAt(document, path, value);
    case 'move':
      return moveOrCopy(document, operation, path, true);
    case 'copy':
      return moveOrCopy(document, operation, path, false);
    default:
      return { ok: false, message: `unexpected op ${JSON.stringify(getOwn(operation, 'op') ?? null)}` };
  }
};

const missingValue: EditResult = { ok: false, message: 'missing "value"' };

/**
 * `test` as kube-apiserver applies it (evanphx/json-patch v4): structural equality; a missing
 * member of an existing object passes only against `null`; a missing parent fails.
 */
const testAt = (document: JsonValue, path: ReadonlyArray<string>, expected: JsonValue | undefined): EditResult => {
  const actual = valueAt(document, path);
  const parent = path.length === 0 ? undefined : valueAt(document, path.slice(0, -1));
  const passes =
    actual === undefined
      ? isJsonObject(parent) && (expected === undefined || expected === null)
      : jsonEqual(actual, expected ?? null);
  return passes
    ? { ok: true, value: document }
    : { ok: false, message: `testing value ${JSON.stringify(path)} failed` };
};

const moveOrCopy = (
  document: JsonValue,
  operation: JsonObject,
  path: ReadonlyArray<string>,
  move: boolean,
): EditResult => {
  const from = pointer(operation, 'from');
  const value = from === undefined ? undefined : valueAt(document, from);
  if (from === undefined || value === undefined) return { ok: false, message: 'missing or unresolvable "from"' };
  if (move && from.length < path.length && from.every((token, i) => token === path[i])) {
    return { ok: false, message: 'cannot move a value into one of its children' };
  }
  const removed = move ? removeAt(document, from) : { ok: true as const, value: document };
  return removed.ok ? addAt(removed.value, path, value) : removed;
};
