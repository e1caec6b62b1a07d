/** What to write where the cluster lacks an observed value: shared by drift and patch so they agree. */
import { getOwn, hasOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../json/json.js';
import { listControl, listElements, type SchemaNode } from '../model/observer-schema.js';
import { trimToMax } from './max-lengths.js';

/**
 * The value to create at a missing (or mistyped) observed path: the observed part of `desired`,
 * where every list — nested ones included — holds its observed positions plus whole desired
 * elements up to its minimum length (so the value written is already within its controls).
 * Undefined when nothing observed is known (then nothing is missing).
 */
export const missingValue = (desired: JsonValue | undefined, schema: SchemaNode): JsonValue | undefined => {
  if (desired === undefined || desired === null) return undefined;
  if (isJsonArray(schema) && isJsonArray(desired)) return missingList(desired, schema);
  // A leaf, or a value shaped unlike its schema: drift compares it whole, so it is written whole.
  if (!isJsonObject(schema) || !isJsonObject(desired)) return desired;
  const entries: Array<readonly [string, JsonValue]> = [];
  for (const key in schema) {
    if (!hasOwn(schema, key)) continue;
    const value = missingValue(getOwn(desired, key), schema[key] ?? null);
    if (value !== undefined) entries.push([key, value]);
  }
  return entries.length === 0 ? undefined : objectFromEntries(entries);
};

const missingList = (desired: ReadonlyArray<JsonValue>, schema: ReadonlyArray<SchemaNode>): JsonValue | undefined => {
  const items = appendedElements(desired, 0, schema);
  return items.length === 0 ? undefined : items;
};

/**
 * The elements to append to a list of length `from` so that it holds the observed desired values
 * of the positions after it and reaches the minimum length. Positions matter: an element whose
 * observed part is unknown, followed by a known one, is written whole (it holds its place); so are
 * the elements added to reach the minimum (their observed lists cut to their maximum). Trailing
 * unknown positions are not written.
 */
export const appendedElements = (
  desired: ReadonlyArray<JsonValue>,
  from: number,
  schema: ReadonlyArray<SchemaNode>,
): ReadonlyArray<JsonValue> => {
  const elements = listElements(schema);
  const observed: Array<JsonValue | undefined> = [];
  for (let i = from; i < Math.min(elements.length, desired.length); i++)
    observed.push(missingValue(desired[i], elements[i] ?? null));
  const known = observed.findLastIndex((item) => item !== undefined) + 1;
  const end = Math.max(from + known, Math.min(listControl(schema).min, desired.length));
  const whole = (item: JsonValue, i: number): JsonValue =>
    i < elements.length ? trimToMax(item, elements[i] ?? null) : item;
  return desired.slice(from, Math.max(from, end)).map((item, k) => observed[k] ?? whole(item, from + k));
};
