/** Drift: where the current state differs from the desired one, on observed fields only (SPEC step 5). */
import { getOwn, hasOwn, isJsonArray, isJsonObject, jsonCovers, type JsonValue } from '../json/json.js';
import type { Path } from '../json/path.js';
import { currentLength, isCurrentLength, lengthWithin, listControl, listElements, type SchemaNode } from '../model/observer-schema.js';
import { missingValue } from './missing.js';

/** One observed difference: a value, or a list length outside its control. */
export type Drift =
  | { readonly kind: 'value'; readonly path: Path; readonly from: JsonValue | undefined; readonly to: JsonValue }
  | { readonly kind: 'length'; readonly path: Path; readonly from: number; readonly min: number; readonly max: number };

/**
 * Differences between desired and current (`lastObservedManifest` format) of one resource.
 * Unknown desired values (absent or null) are no difference; identification fields and the
 * top-level `status` never count as drift (**fix**: Krake re-patches LoadBalancer Services forever).
 */
export const driftOf = (desired: JsonValue, current: JsonValue | undefined, schema: SchemaNode): ReadonlyArray<Drift> =>
  isJsonObject(schema) && isJsonObject(desired)
    ? Object.entries(schema).flatMap(([key, child]) =>
      isExempt(key) ? [] : driftAt(getOwn(desired, key), isJsonObject(current) ? getOwn(current, key) : undefined, child, [key]))
    : [];

const NONE: ReadonlyArray<Drift> = [];

const isExempt = (topLevelKey: string): boolean =>
  topLevelKey === 'status' || topLevelKey === 'apiVersion' || topLevelKey === 'kind';

const driftAt = (desired: JsonValue | undefined, current: JsonValue | undefined, schema: SchemaNode, path: Path): ReadonlyArray<Drift> => {
  if (desired === undefined || desired === null) return [];
  if (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) return [];
  if (isJsonArray(schema) && isJsonArray(desired)) return listDrift(desired, current, schema, path);
  if (isJsonObject(schema) && isJsonObject(desired)) {
    if (!isJsonObject(current)) return wholeDrift(desired, current, schema, path);
    let found: Drift[] | undefined;
    for (const key in schema) {
      if (!hasOwn(schema, key)) continue;
      const value = getOwn(desired, key);
      if (value === undefined || value === null) continue;
      const drift = driftAt(value, getOwn(current, key), schema[key] ?? null, [...path, key]);
      if (drift.length > 0) (found ??= []).push(...drift);
    }
    return found ?? NONE;
  }
  // A `null` leaf observes a value as written: keys the server or others add inside it are no drift.
  return jsonCovers(desired, current) ? [] : [{ kind: 'value', path, from: current, to: desired }];
};

const wholeDrift = (desired: JsonValue, current: JsonValue | undefined, schema: SchemaNode, path: Path): ReadonlyArray<Drift> => {
  const to = missingValue(desired, schema);
  return to === undefined ? [] : [{ kind: 'value', path, from: current, to }];
};

const listDrift = (desired: ReadonlyArray<JsonValue>, current: JsonValue | undefined, schema: ReadonlyArray<SchemaNode>, path: Path): ReadonlyArray<Drift> => {
  if (!isJsonArray(current)) return wholeDrift(desired, current, schema, path);
  const elements = listElements(schema);
  const length = currentLength(current[current.length - 1]) ?? current.filter((item) => !isCurrentLength(item)).length;
  const observed = Math.min(elements.length, desired.length);
  const items: Drift[] = [];
  for (let i = 0; i < observed; i++) items.push(...driftAt(desired[i], i < length ? current[i] : undefined, elements[i] ?? null, [...path, i]));
  const control = listControl(schema);
  const fixable = length > control.max && control.max !== 0 ? true : length < control.min && desired.length > length;
  return !lengthWithin(length, control) && fixable ? [...items, { kind: 'length', path, from: length, ...control }] : items;
};
