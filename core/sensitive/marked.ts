/**
 * Sensitive fields beyond Secrets: a custom observer schema may mark fields of its resource
 * sensitive with the top-level key `kreconcile.io/sensitive`, a list of RFC 6901 pointers
 * (`["/spec/credentials/password"]`). A marked value is treated as a Secret value (whole: an
 * object or list is one value): a digest in status, `(sensitive value)` in plans.
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
import { fromPointer, type Path } from '../json/path.js';
import type { Issue } from '../model/decode.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import { indexSchemas, schemaFor } from '../schema/lookup.js';

/** The marker key of an observer schema. */
export const SENSITIVE_MARK = 'kreconcile.io/sensitive';

/** Fields a schema may not mark: the identity of the resource. */
const IDENTITY = new Set(['/apiVersion', '/kind', '/metadata/name', '/metadata/namespace']);

/** The pointers (as token lists) a schema marks sensitive; none for a schema without the marker. */
export const markedPaths = (schema: JsonValue | undefined): ReadonlyArray<ReadonlyArray<string>> => {
  const marked = isJsonObject(schema) ? getOwn(schema, SENSITIVE_MARK) : undefined;
  return isJsonArray(marked)
    ? marked.flatMap((pointer) =>
        typeof pointer === 'string' && pointer.startsWith('/') ? [fromPointer(pointer)] : [],
      )
    : [];
};

/** Problems with a marker value (a list of pointers below the resource, none its identity). */
export const markIssues = (
  value: JsonValue,
  path: Path,
  issue: (path: Path, message: string) => Issue,
): ReadonlyArray<Issue> => {
  if (!isJsonArray(value))
    return [issue(path, `${SENSITIVE_MARK} must be a list of JSON pointers such as "/spec/password"`)];
  return value.flatMap((pointer, index) => {
    if (typeof pointer !== 'string' || !pointer.startsWith('/') || pointer === '/')
      return [issue([...path, index], 'a sensitive field is a JSON pointer such as "/spec/password"')];
    return IDENTITY.has(pointer)
      ? [issue([...path, index], `${pointer} identifies the resource: it cannot be sensitive`)]
      : [];
  });
};

const childOf = (node: JsonValue, token: string): JsonValue | undefined => {
  if (isJsonArray(node)) return /^\d+$/.test(token) ? node[Number(token)] : undefined;
  return isJsonObject(node) ? getOwn(node, token) : undefined;
};

/** The value at `tokens`, if present. */
export const valueAt = (node: JsonValue | undefined, tokens: ReadonlyArray<string>): JsonValue | undefined =>
  tokens.reduce<JsonValue | undefined>(
    (current, token) => (current === undefined ? undefined : childOf(current, token)),
    node,
  );

/**
 * `node` with the value at `tokens` replaced by `update(value)` (removed when it returns `undefined`); unchanged when
 * absent.
 */
export const updateValueAt = (
  node: JsonValue,
  tokens: ReadonlyArray<string>,
  update: (value: JsonValue) => JsonValue | undefined,
): JsonValue => {
  const [token, ...rest] = tokens;
  if (token === undefined) return update(node) ?? node;
  const child = childOf(node, token);
  if (child === undefined) return node;
  if (rest.length === 0) {
    const next = update(child);
    if (next === child) return node;
    if (isJsonArray(node))
      return next === undefined ? node : node.map((item, i) => (i === Number(token) ? next : item));
    if (!isJsonObject(node)) return node; // unreachable: childOf found a child
    return next === undefined ? withoutKey(node, token) : withKey(node, token, next);
  }
  const next = updateValueAt(child, rest, update);
  if (next === child) return node;
  if (isJsonArray(node)) return node.map((item, i) => (i === Number(token) ? next : item));
  return isJsonObject(node) ? withKey(node, token, next) : node;
};

/** Whether `tokens` starts with `prefix` (a change or operation at or below a marked field). */
export const startsWith = (tokens: ReadonlyArray<string>, prefix: ReadonlyArray<string>): boolean =>
  prefix.length <= tokens.length && prefix.every((token, i) => tokens[i] === token);

// Asked for every object of every plan; without marks the answer is this one empty list.
const NO_MARKS: ReadonlyArray<ReadonlyArray<string>> = [];

/** No field is marked (most objects): one function for all of them, not a closure per call. */
const noMarks = (): ReadonlyArray<ReadonlyArray<string>> => NO_MARKS;

const marksAny = (list: ReadonlyArray<ObserverSchema> | undefined): list is ReadonlyArray<ObserverSchema> =>
  list !== undefined && list.some(marksSensitive);

const marksSensitive = (schema: ObserverSchema): boolean => getOwn(schema, SENSITIVE_MARK) !== undefined;

/**
 * The fields marked sensitive for an object by any of the schema lists (the schemas in force and
 * those of the previous status, so values digested under a mark since removed are still known as digests).
 */
export const marksFrom = (
  ...lists: ReadonlyArray<ReadonlyArray<ObserverSchema> | undefined>
): ((object: JsonObject) => ReadonlyArray<ReadonlyArray<string>>) => {
  // Checked before anything is built: most statuses and plans mark nothing (every resync asks).
  if (!lists.some(marksAny)) return noMarks;
  const indexes = lists.filter(marksAny).map((list) => indexSchemas(list));
  return (object) => indexes.flatMap((index) => markedPaths(schemaFor(index, object)));
};
