/**
 * The patch of one resource: RFC 6902 operations on observed fields only, computed against
 * the live object (docs/behaviour.md §4.6). Non-observed fields are never touched, so another actor's
 * change to them stands.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  jsonCovers,
  objectFromEntries,
  type JsonValue,
} from '../json/json.js';
import { showPath, toPointer, type Path } from '../json/path.js';
import { listControl, listElements, makeListControl, type SchemaNode } from '../model/observer-schema.js';
import { appendedElements, missingValue } from '../delta/missing.js';
import type { FieldChange, JsonPatchOperation } from '../model/plan.js';
import { defined } from '../json/defined.js';

export type ResourcePatch = {
  readonly operations: ReadonlyArray<JsonPatchOperation>;
  readonly changes: ReadonlyArray<FieldChange>;
};

const EMPTY: ResourcePatch = { operations: [], changes: [] };

/**
 * Where one walk puts what it finds: one list of operations and one of changes for the whole
 * resource, and the path as a stack pushed and popped, turned into text only for an operation (a
 * drifted resource's in-sync fields, most of them, allocate nothing).
 */
type Walk = {
  readonly operations: JsonPatchOperation[];
  readonly changes: FieldChange[];
  readonly path: Array<string | number>;
};

const change = (path: Path, from: JsonValue | undefined, to: JsonValue | undefined): FieldChange => ({
  path: showPath(path),
  ...defined({ from, to }),
});

/** Sets a value at the walk's path: `add` when absent (parents exist by construction), else `replace`. */
const setValue = (walk: Walk, from: JsonValue | undefined, to: JsonValue): void => {
  walk.operations.push({ op: from === undefined ? 'add' : 'replace', path: toPointer(walk.path), value: to });
  walk.changes.push(change(walk.path, from, to));
};

/**
 * Operations that bring the observed fields of `live` to `desired`.
 * Guarantees: every operation targets an observed path, except whole list elements added only to
 * reach the list's minimum length or to hold the place of a later observed position; operations inside a positional
 * list element are guarded by a `test`
 * of the element's `name` when it has one; a trailing element is removed only after a `test` of
 * its current value.
 */
export const patchOf = (desired: JsonValue, live: JsonValue, schema: SchemaNode): ResourcePatch => {
  if (!isJsonObject(schema) || !isJsonObject(desired) || !isJsonObject(live)) return EMPTY;
  const walk: Walk = { operations: [], changes: [], path: [] };
  for (const key in schema) {
    if (!hasOwn(schema, key) || key === 'status' || key === 'apiVersion' || key === 'kind') continue;
    descend(walk, key, getOwn(desired, key), getOwn(live, key), schema[key] ?? null);
  }
  return walk.operations.length === 0 && walk.changes.length === 0
    ? EMPTY
    : { operations: walk.operations, changes: walk.changes };
};

/** `patchAt` one step down, with `step` on the walk's path while it runs. */
const descend = (
  walk: Walk,
  step: string | number,
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  schema: SchemaNode,
): void => {
  walk.path.push(step);
  patchAt(walk, desired, live, schema);
  walk.path.pop();
};

const patchAt = (walk: Walk, desired: JsonValue | undefined, live: JsonValue | undefined, schema: SchemaNode): void => {
  if (desired === undefined || desired === null) return;
  const { path } = walk;
  if (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) return;
  if (isJsonArray(schema) && isJsonArray(desired)) {
    if (isJsonArray(live)) listPatch(walk, desired, live, schema);
    else wholePatch(walk, desired, live, schema);
    return;
  }
  if (isJsonObject(schema) && isJsonObject(desired)) {
    if (!isJsonObject(live)) wholePatch(walk, desired, live, schema);
    else
      for (const key in schema)
        if (hasOwn(schema, key)) descend(walk, key, getOwn(desired, key), getOwn(live, key), schema[key] ?? null);
    return;
  }
  if (jsonCovers(desired, live)) return;
  // A container under a `null` leaf is fixed where it differs, as if its written shape were its
  // schema: what the server or others added inside it stays (and drift agrees: see jsonCovers).
  if ((isJsonObject(desired) && isJsonObject(live)) || (isJsonArray(desired) && isJsonArray(live)))
    patchAt(walk, desired, live, writtenShape(desired));
  else setValue(walk, live, desired);
};

/** A missing (or mistyped) parent is created holding the observed desired values. */
const wholePatch = (walk: Walk, desired: JsonValue, live: JsonValue | undefined, schema: SchemaNode): void => {
  const value = missingValue(desired, schema);
  if (value !== undefined) setValue(walk, live, value);
};

const listPatch = (
  walk: Walk,
  desired: ReadonlyArray<JsonValue>,
  live: ReadonlyArray<JsonValue>,
  schema: ReadonlyArray<SchemaNode>,
): void => {
  const elements = listElements(schema);
  const control = listControl(schema);
  for (let i = 0; i < Math.min(elements.length, desired.length, live.length); i++) {
    const start = walk.operations.length;
    walk.path.push(i);
    patchAt(walk, desired[i], live[i], elements[i] ?? null);
    guard(walk, start, live[i]);
    walk.path.pop();
  }
  appendedElements(desired, live.length, schema).forEach((item, k) => {
    walk.path.push(live.length + k);
    setValue(walk, undefined, item);
    walk.path.pop();
  });
  if (control.max !== 0)
    for (let i = live.length - 1; i >= control.max; i--) {
      const item = live[i];
      if (item === undefined) continue;
      walk.path.push(i);
      removeElement(walk, item);
      walk.path.pop();
    }
};

/**
 * Operations inside a positional element (those from `start` on, the walk at the element) rely on
 * it still being the same element: a `test` of its name goes before them.
 */
const guard = (walk: Walk, start: number, element: JsonValue | undefined): void => {
  const name = isJsonObject(element) ? getOwn(element, 'name') : undefined;
  if (walk.operations.length === start || typeof name !== 'string') return;
  walk.path.push('name');
  walk.operations.splice(start, 0, { op: 'test', path: toPointer(walk.path), value: name });
  walk.path.pop();
};

const removeElement = (walk: Walk, element: JsonValue): void => {
  const path = toPointer(walk.path);
  walk.operations.push({ op: 'test', path, value: element }, { op: 'remove', path });
  walk.changes.push(change(walk.path, element, undefined));
};

/** The schema that observes exactly what `value` writes (lists of exactly its length). */
const writtenShape = (value: JsonValue): SchemaNode => {
  if (isJsonArray(value)) return [...value.map(writtenShape), makeListControl(value.length, value.length)];
  if (isJsonObject(value))
    return objectFromEntries(Object.entries(value).map(([key, child]) => [key, writtenShape(child)] as const));
  return null;
};
