/** List maxima applied to values we write whole (creates, filler elements): already within their list controls. */
import { hasOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../json/json.js';
import { listControl, listElements, type SchemaNode } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';

/**
 * `resource` with every observed list cut to its maximum (M = 0: no maximum), nested lists
 * included; top-level `status` is left alone (never drift). Unchanged objects are shared.
 * Without it a desired list longer than its maximum is created, then trimmed by the next patch.
 */
export const withinMaxLengths = (resource: Resource, schema: SchemaNode | undefined): Resource =>
  // Lists are cut, every key is kept (identification fields are no lists): still a Resource.
  (isJsonObject(schema) ? trimObject(resource, schema, true) : resource) as Resource;

/** `value` with every list its schema controls cut to the maximum, nested lists included. */
export const trimToMax = (value: JsonValue, schema: SchemaNode): JsonValue => {
  if (isJsonArray(schema)) return isJsonArray(value) ? trimList(value, schema) : value;
  return isJsonObject(schema) && isJsonObject(value) ? trimObject(value, schema, false) : value;
};

const trimObject = (
  value: { readonly [key: string]: JsonValue },
  schema: { readonly [key: string]: SchemaNode },
  top: boolean,
): JsonValue => {
  const entries = Object.entries(value);
  const next = entries.map(([key, child]) =>
    hasOwn(schema, key) && !(top && key === 'status')
      ? ([key, trimToMax(child, schema[key] ?? null)] as const)
      : ([key, child] as const),
  );
  return next.every(([, child], i) => child === entries[i]?.[1]) ? value : objectFromEntries(next);
};

const trimList = (list: ReadonlyArray<JsonValue>, schema: ReadonlyArray<SchemaNode>): JsonValue => {
  const { max } = listControl(schema);
  const elements = listElements(schema);
  const kept = max === 0 || list.length <= max ? list : list.slice(0, max);
  const next = kept.map((item, i) => (i < elements.length ? trimToMax(item, elements[i] ?? null) : item));
  return next.every((item, i) => item === list[i]) && kept.length === list.length ? list : next;
};
