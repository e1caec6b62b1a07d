/**
 * Schema edits for injected values: make an observer schema observe list positions a hook
 * appended, raising the list controls so the result stays valid and the positions must exist.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  withKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import type { Path } from '../json/path.js';
import { listControl, listElements, makeListControl, type SchemaNode } from '../model/observer-schema.js';

/** The union of two schema nodes: a field observed by either is observed (`null` observes everything). */
export const mergeSchemaNodes = (a: SchemaNode | undefined, b: SchemaNode): SchemaNode => {
  if (a === undefined) return b;
  if (a === null || b === null) return null;
  if (!isJsonObject(a) || !isJsonObject(b)) return a; // lists: keep the existing node (hooks never merge lists)
  const keys = [...Object.keys(a), ...Object.keys(b).filter((key) => !hasOwn(a, key))];
  return objectFromEntries(
    keys.map(
      (key) => [key, hasOwn(b, key) ? mergeSchemaNodes(getOwn(a, key), b[key] ?? null) : (a[key] ?? null)] as const,
    ),
  );
};

/**
 * `schema` made to observe, in the list found at `path`, the positions `[from, to)` with
 * `element` (merged into any element schema already there). Along the way, missing objects are
 * created and lists get element schemas up to the positions walked through: `{}` (observes
 * nothing) for padding, so what the user observed is left exactly as it was.
 * Controls: the target list's minimum is raised to `to` (the appended values must exist); a
 * maximum (other than 0, "no maximum") is raised to cover every element schema. A list created
 * here has no maximum. A `null` on the way means the subtree is observed whole already.
 * Guarantees: total on any JSON value (a node of the wrong shape is returned unchanged).
 */
export const observeAppended = (
  schema: SchemaNode | undefined,
  path: Path,
  from: number,
  to: number,
  element: SchemaNode,
): SchemaNode | undefined => {
  if (schema === null) return null;
  const [step, ...rest] = path;
  if (step === undefined) return appendedList(schema, from, to, element);
  if (typeof step === 'number') return throughList(schema, step, rest, from, to, element);
  const object: JsonObject | undefined = schema === undefined ? {} : isJsonObject(schema) ? schema : undefined;
  if (object === undefined) return schema;
  const child = observeAppended(getOwn(object, step), rest, from, to, element);
  return child === undefined ? object : withKey(object, step, child);
};

/** The list schema at a position walked through: element schemas up to `index`, maximum covering them. */
const throughList = (
  schema: SchemaNode | undefined,
  index: number,
  rest: Path,
  from: number,
  to: number,
  element: SchemaNode,
): SchemaNode | undefined => {
  if (schema !== undefined && !isJsonArray(schema)) return schema;
  const elements = schema === undefined ? [] : listElements(schema);
  const control = schema === undefined ? { min: 0, max: 0 } : listControl(schema);
  const padded =
    elements.length > index
      ? [...elements]
      : [...elements, ...Array.from({ length: index + 1 - elements.length }, (): JsonValue => ({}))];
  const edited = observeAppended(padded[index], rest, from, to, element);
  padded[index] = edited ?? padded[index] ?? {};
  return [...padded, makeListControl(control.min, control.max === 0 ? 0 : Math.max(control.max, padded.length))];
};

/** The target list: positions before `from` padded, `[from, to)` observed with `element`, controls raised. */
const appendedList = (
  schema: SchemaNode | undefined,
  from: number,
  to: number,
  element: SchemaNode,
): SchemaNode | undefined => {
  if (schema !== undefined && !isJsonArray(schema)) return schema;
  const elements = schema === undefined ? [] : listElements(schema);
  const control = schema === undefined ? { min: 0, max: 0 } : listControl(schema);
  const length = Math.max(elements.length, to);
  const next = Array.from({ length }, (_, i): JsonValue => {
    const existing = elements[i];
    if (i >= from && i < to) return mergeSchemaNodes(existing, element);
    return existing === undefined ? {} : existing;
  });
  return [...next, makeListControl(Math.max(control.min, to), control.max === 0 ? 0 : Math.max(control.max, length))];
};
