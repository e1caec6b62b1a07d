/**
 * The patch of one resource: RFC 6902 operations on observed fields only, computed against
 * the live object (docs/behaviour.md §4.6). Non-observed fields are never touched, so another actor's
 * change to them stands.
 */
import { getOwn, isJsonArray, isJsonObject, jsonCovers, objectFromEntries, type JsonValue } from '../json/json.js';
import { showPath, toPointer, type Path } from '../json/path.js';
import { listControl, listElements, makeListControl, type SchemaNode } from '../model/observer-schema.js';
import { appendedElements, missingValue } from '../delta/missing.js';
import type { FieldChange, JsonPatchOperation } from './types.js';

export type ResourcePatch = {
  readonly operations: ReadonlyArray<JsonPatchOperation>;
  readonly changes: ReadonlyArray<FieldChange>;
};

const EMPTY: ResourcePatch = { operations: [], changes: [] };

const concat = (patches: ReadonlyArray<ResourcePatch>): ResourcePatch => {
  // Most fields of a drifted resource are in sync: their empty patches are dropped before joining.
  const found = patches.filter((p) => p.operations.length > 0 || p.changes.length > 0);
  const [only, ...others] = found;
  return only === undefined
    ? EMPTY
    : others.length === 0
      ? only
      : {
          operations: found.flatMap((p) => p.operations),
          changes: found.flatMap((p) => p.changes),
        };
};

const change = (path: Path, from: JsonValue | undefined, to: JsonValue | undefined): FieldChange => ({
  path: showPath(path),
  ...(from === undefined ? {} : { from }),
  ...(to === undefined ? {} : { to }),
});

/** Sets a value at `path`: `add` when absent (parents exist by construction), else `replace`. */
const setValue = (path: Path, from: JsonValue | undefined, to: JsonValue): ResourcePatch => ({
  operations: [{ op: from === undefined ? 'add' : 'replace', path: toPointer(path), value: to }],
  changes: [change(path, from, to)],
});

/**
 * Operations that bring the observed fields of `live` to `desired`.
 * Guarantees: every operation targets an observed path, except whole list elements added only to
 * reach the list's minimum length or to hold the place of a later observed position; operations inside a positional list element are guarded by a `test`
 * of the element's `name` when it has one; a trailing element is removed only after a `test` of
 * its current value.
 */
export const patchOf = (desired: JsonValue, live: JsonValue, schema: SchemaNode): ResourcePatch =>
  isJsonObject(schema) && isJsonObject(desired) && isJsonObject(live)
    ? concat(
        Object.entries(schema).flatMap(([key, child]) =>
          key === 'status' || key === 'apiVersion' || key === 'kind'
            ? []
            : [patchAt(getOwn(desired, key), getOwn(live, key), child, [key])],
        ),
      )
    : EMPTY;

const patchAt = (
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  schema: SchemaNode,
  path: Path,
): ResourcePatch => {
  if (desired === undefined || desired === null) return EMPTY;
  if (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) return EMPTY;
  if (isJsonArray(schema) && isJsonArray(desired)) {
    return isJsonArray(live) ? listPatch(desired, live, schema, path) : wholePatch(desired, live, schema, path);
  }
  if (isJsonObject(schema) && isJsonObject(desired)) {
    if (!isJsonObject(live)) return wholePatch(desired, live, schema, path);
    return concat(
      Object.entries(schema).map(([key, child]) =>
        patchAt(getOwn(desired, key), getOwn(live, key), child, [...path, key]),
      ),
    );
  }
  if (jsonCovers(desired, live)) return EMPTY;
  // A container under a `null` leaf is fixed where it differs, as if its written shape were its
  // schema: what the server or others added inside it stays (and drift agrees: see jsonCovers).
  if ((isJsonObject(desired) && isJsonObject(live)) || (isJsonArray(desired) && isJsonArray(live)))
    return patchAt(desired, live, writtenShape(desired), path);
  return setValue(path, live, desired);
};

/** A missing (or mistyped) parent is created holding the observed desired values. */
const wholePatch = (desired: JsonValue, live: JsonValue | undefined, schema: SchemaNode, path: Path): ResourcePatch => {
  const value = missingValue(desired, schema);
  return value === undefined ? EMPTY : setValue(path, live, value);
};

const listPatch = (
  desired: ReadonlyArray<JsonValue>,
  live: ReadonlyArray<JsonValue>,
  schema: ReadonlyArray<SchemaNode>,
  path: Path,
): ResourcePatch => {
  const elements = listElements(schema);
  const control = listControl(schema);
  const patches: ResourcePatch[] = [];
  for (let i = 0; i < Math.min(elements.length, desired.length, live.length); i++) {
    patches.push(guarded(patchAt(desired[i], live[i], elements[i] ?? null, [...path, i]), live[i], [...path, i]));
  }
  appendedElements(desired, live.length, schema).forEach((item, k) =>
    patches.push(setValue([...path, live.length + k], undefined, item)),
  );
  if (control.max !== 0)
    for (let i = live.length - 1; i >= control.max; i--) {
      const item = live[i];
      if (item !== undefined) patches.push(removeElement(item, [...path, i]));
    }
  return concat(patches);
};

/** Operations inside a positional element rely on it still being the same element. */
const guarded = (patch: ResourcePatch, element: JsonValue | undefined, path: Path): ResourcePatch => {
  const name = isJsonObject(element) ? getOwn(element, 'name') : undefined;
  if (patch.operations.length === 0 || typeof name !== 'string') return patch;
  return {
    operations: [{ op: 'test', path: toPointer([...path, 'name']), value: name }, ...patch.operations],
    changes: patch.changes,
  };
};

const removeElement = (element: JsonValue, path: Path): ResourcePatch => ({
  operations: [
    { op: 'test', path: toPointer(path), value: element },
    { op: 'remove', path: toPointer(path) },
  ],
  changes: [change(path, element, undefined)],
});

/** The schema that observes exactly what `value` writes (lists of exactly its length). */
const writtenShape = (value: JsonValue): SchemaNode => {
  if (isJsonArray(value)) return [...value.map(writtenShape), makeListControl(value.length, value.length)];
  if (isJsonObject(value))
    return objectFromEntries(Object.entries(value).map(([key, child]) => [key, writtenShape(child)] as const));
  return null;
};
