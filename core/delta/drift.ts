/** Drift: where the current state differs from the desired one, on observed fields only (docs/behaviour.md §4.5). */
import { getOwn, hasOwn, isJsonArray, isJsonObject, jsonCovers, type JsonValue } from '../json/json.js';
import type { Path } from '../json/path.js';
import {
  currentLength,
  isCurrentLength,
  lengthWithin,
  listControl,
  type SchemaNode,
} from '../model/observer-schema.js';
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
export const driftOf = (
  desired: JsonValue,
  current: JsonValue | undefined,
  schema: SchemaNode,
): ReadonlyArray<Drift> => {
  const found: Drift[] = [];
  walkDrift(desired, current, schema, { found, firstOnly: false });
  return found.length === 0 ? NONE : found;
};

/** Whether `driftOf` would find any difference; stops at the first one. */
export const hasDrift = (desired: JsonValue, current: JsonValue | undefined, schema: SchemaNode): boolean => {
  const found: Drift[] = [];
  walkDrift(desired, current, schema, { found, firstOnly: true });
  return found.length > 0;
};

const NONE: ReadonlyArray<Drift> = [];

/**
 * Where drifts go while walking: a walk of a resource in sync allocates nothing, so the path is
 * one stack (pushed and popped) copied only into a drift found; `firstOnly` ends the walk there.
 */
type Walk = { readonly found: Drift[]; readonly firstOnly: boolean };

/** Whether the walk is over (a drift found and only the first wanted). */
const done = (walk: Walk): boolean => walk.firstOnly && walk.found.length > 0;

const walkDrift = (desired: JsonValue, current: JsonValue | undefined, schema: SchemaNode, walk: Walk): void => {
  if (!isJsonObject(schema) || !isJsonObject(desired)) return;
  const path: Array<string | number> = [];
  for (const [key, child] of Object.entries(schema)) {
    if (isExempt(key)) continue;
    path.push(key);
    driftAt(getOwn(desired, key), isJsonObject(current) ? getOwn(current, key) : undefined, child, path, walk);
    path.pop();
    if (done(walk)) return;
  }
};

const isExempt = (topLevelKey: string): boolean =>
  topLevelKey === 'status' || topLevelKey === 'apiVersion' || topLevelKey === 'kind';

/** Adds the drifts below `path` (a stack the caller pushed the last step on) to `walk`. */
const driftAt = (
  desired: JsonValue | undefined,
  current: JsonValue | undefined,
  schema: SchemaNode,
  path: Array<string | number>,
  walk: Walk,
): void => {
  if (desired === undefined || desired === null) return;
  if (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) return;
  if (isJsonArray(schema) && isJsonArray(desired)) {
    listDrift(desired, current, schema, path, walk);
    return;
  }
  if (isJsonObject(schema) && isJsonObject(desired)) {
    if (!isJsonObject(current)) {
      wholeDrift(desired, current, schema, path, walk);
      return;
    }
    for (const key in schema) {
      if (!hasOwn(schema, key)) continue;
      const value = getOwn(desired, key);
      if (value === undefined || value === null) continue;
      path.push(key);
      driftAt(value, getOwn(current, key), schema[key] ?? null, path, walk);
      path.pop();
      if (done(walk)) return;
    }
    return;
  }
  // A `null` leaf observes a value as written: keys the server or others add inside it are no drift.
  if (!jsonCovers(desired, current)) walk.found.push({ kind: 'value', path: path.slice(), from: current, to: desired });
};

const wholeDrift = (
  desired: JsonValue,
  current: JsonValue | undefined,
  schema: SchemaNode,
  path: ReadonlyArray<string | number>,
  walk: Walk,
): void => {
  const to = missingValue(desired, schema);
  if (to !== undefined) walk.found.push({ kind: 'value', path: path.slice(), from: current, to });
};

const listDrift = (
  desired: ReadonlyArray<JsonValue>,
  current: JsonValue | undefined,
  schema: ReadonlyArray<SchemaNode>,
  path: Array<string | number>,
  walk: Walk,
): void => {
  if (!isJsonArray(current)) {
    wholeDrift(desired, current, schema, path, walk);
    return;
  }
  const elementCount = Math.max(0, schema.length - 1); // the element schemas (`listElements`), not copied
  const length = currentLength(current[current.length - 1]) ?? current.filter((item) => !isCurrentLength(item)).length;
  const observed = Math.min(elementCount, desired.length);
  for (let i = 0; i < observed; i++) {
    path.push(i);
    driftAt(desired[i], i < length ? current[i] : undefined, schema[i] ?? null, path, walk);
    path.pop();
    if (done(walk)) return;
  }
  const control = listControl(schema);
  const fixable = length > control.max && control.max !== 0 ? true : length < control.min && desired.length > length;
  if (!lengthWithin(length, control) && fixable)
    walk.found.push({ kind: 'length', path: path.slice(), from: length, ...control });
};
