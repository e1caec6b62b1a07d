/**
 * The patch of one resource: RFC 6902 operations on observed fields only, computed against
 * the live object (SPEC step 6). Non-observed fields are never touched, so another actor's
 * change to them stands.
 */
import { getOwn, isJsonArray, isJsonObject, jsonEqual, type JsonValue } from '../json/json.js';
import { showPath, toPointer, type Path } from '../json/path.js';
import { listControl, listElements, type SchemaNode } from '../model/observer-schema.js';
import { projectKnown } from '../manifest/project.js';
import { missingValue } from '../delta/missing.js';
import type { FieldChange, JsonPatchOperation } from './types.js';

export type ResourcePatch = { readonly operations: ReadonlyArray<JsonPatchOperation>; readonly changes: ReadonlyArray<FieldChange> };

const EMPTY: ResourcePatch = { operations: [], changes: [] };

const concat = (patches: ReadonlyArray<ResourcePatch>): ResourcePatch =>
  patches.length === 1 ? patches[0] as ResourcePatch : {
    operations: patches.flatMap((p) => p.operations),
    changes: patches.flatMap((p) => p.changes),
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
 * Guarantees: every operation targets an observed path, except list elements added only to reach
 * the list's minimum length; operations inside a positional list element are guarded by a `test`
 * of the element's `name` when it has one; a trailing element is removed only after a `test` of
 * its current value.
 */
export const patchOf = (desired: JsonValue, live: JsonValue, schema: SchemaNode): ResourcePatch =>
  isJsonObject(schema) && isJsonObject(desired) && isJsonObject(live)
    ? concat(Object.entries(schema).flatMap(([key, child]) =>
      key === 'status' || key === 'apiVersion' || key === 'kind' ? [] : [patchAt(getOwn(desired, key), getOwn(live, key), child, [key])]))
    : EMPTY;

const patchAt = (desired: JsonValue | undefined, live: JsonValue | undefined, schema: SchemaNode, path: Path): ResourcePatch => {
  if (desired === undefined || desired === null) return EMPTY;
  if (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) return EMPTY;
  if (isJsonArray(schema) && isJsonArray(desired)) {
    return isJsonArray(live) ? listPatch(desired, live, schema, path) : wholePatch(desired, live, schema, path);
  }
  if (isJsonObject(schema) && isJsonObject(desired)) {
    if (!isJsonObject(live)) return wholePatch(desired, live, schema, path);
    return concat(Object.entries(schema).map(([key, child]) => patchAt(getOwn(desired, key), getOwn(live, key), child, [...path, key])));
  }
  return jsonEqual(desired, live) ? EMPTY : setValue(path, live, desired);
};

/** A missing (or mistyped) parent is created holding the observed desired values. */
const wholePatch = (desired: JsonValue, live: JsonValue | undefined, schema: SchemaNode, path: Path): ResourcePatch => {
  const value = missingValue(desired, schema);
  return value === undefined ? EMPTY : setValue(path, live, value);
};

const listPatch = (desired: ReadonlyArray<JsonValue>, live: ReadonlyArray<JsonValue>, schema: ReadonlyArray<SchemaNode>, path: Path): ResourcePatch => {
  const elements = listElements(schema);
  const control = listControl(schema);
  const observed = Math.min(elements.length, desired.length);
  const patches: ResourcePatch[] = [];
  let length = live.length;
  for (let i = 0; i < observed; i++) {
    if (i < live.length) patches.push(guarded(patchAt(desired[i], live[i], elements[i] ?? null, [...path, i]), live[i], [...path, i]));
    else if (i === length) {
      const value = projectKnown(desired[i], elements[i] ?? null);
      if (value === undefined) break;
      patches.push(setValue([...path, i], undefined, value));
      length++;
    }
  }
  for (; length < control.min && length < desired.length; length++) {
    const item = desired[length] as JsonValue;
    patches.push(setValue([...path, length], undefined, length < elements.length ? (projectKnown(item, elements[length] ?? null) ?? item) : item));
  }
  if (control.max !== 0) for (let i = live.length - 1; i >= control.max; i--) patches.push(removeElement(live[i] as JsonValue, [...path, i]));
  return concat(patches);
};

/** Operations inside a positional element rely on it still being the same element. */
const guarded = (patch: ResourcePatch, element: JsonValue | undefined, path: Path): ResourcePatch => {
  const name = isJsonObject(element) ? getOwn(element, 'name') : undefined;
  if (patch.operations.length === 0 || typeof name !== 'string') return patch;
  return { operations: [{ op: 'test', path: toPointer([...path, 'name']), value: name }, ...patch.operations], changes: patch.changes };
};

const removeElement = (element: JsonValue, path: Path): ResourcePatch => ({
  operations: [{ op: 'test', path: toPointer(path), value: element }, { op: 'remove', path: toPointer(path) }],
  changes: [change(path, element, undefined)],
});
