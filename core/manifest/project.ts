/** Projection of an object on an observer schema: what a controller "sees" of it. */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { listElements, makeCurrentLength, type SchemaNode } from '../model/observer-schema.js';

/**
 * The observed part of `value`, for learning desired values: `null`s are unknown and left out;
 * lists keep only their observed positions (no control object). Undefined when nothing is known.
 */
export const projectKnown = (value: JsonValue | undefined, schema: SchemaNode): JsonValue | undefined => {
  if (value === undefined || value === null) return undefined;
  if (schema === null) return value;
  if (isJsonArray(schema)) {
    if (!isJsonArray(value)) return undefined;
    const elements = listElements(schema);
    const known: JsonValue[] = [];
    for (let i = 0; i < Math.min(elements.length, value.length); i++) {
      const item = projectKnown(value[i], elements[i] ?? null);
      if (item === undefined) break; // positions are meaningful: stop at the first unknown element
      known.push(item);
    }
    return known.length === 0 ? undefined : known;
  }
  if (!isJsonObject(schema) || !isJsonObject(value)) return undefined;
  const entries: Array<readonly [string, JsonValue]> = [];
  for (const key in schema) {
    if (!hasOwn(schema, key)) continue;
    const projected = projectKnown(getOwn(value, key), schema[key] ?? null);
    if (projected !== undefined) entries.push([key, projected]);
  }
  return entries.length === 0 ? undefined : objectFromEntries(entries);
};

/**
 * The observed part of a live object in `lastObservedManifest` format: every observed key that
 * is present (missing keys left out, docs/behaviour.md **fix**), lists ending with their current length.
 */
export const projectObserved = (value: JsonValue | undefined, schema: SchemaNode): JsonValue | undefined => {
  if (value === undefined) return undefined;
  if (schema === null) return value;
  if (isJsonArray(schema)) {
    if (!isJsonArray(value)) return value;
    const elements = listElements(schema);
    const observed = value.slice(0, elements.length).map((item, i) => projectObserved(item, elements[i] ?? null) ?? {});
    return [...observed, makeCurrentLength(value.length)];
  }
  if (!isJsonObject(schema) || !isJsonObject(value)) return value;
  const entries: Array<readonly [string, JsonValue]> = [];
  for (const key in schema) {
    if (!hasOwn(schema, key)) continue;
    const projected = projectObserved(getOwn(value, key), schema[key] ?? null);
    if (projected !== undefined) entries.push([key, projected]);
  }
  return objectFromEntries(entries);
};

/** A live resource in `lastObservedManifest` format, identification always included. */
export const observeResource = (live: JsonObject, schema: SchemaNode): JsonObject => {
  const projected = projectObserved(live, schema ?? {});
  const base = isJsonObject(projected) ? projected : {};
  const metadata = getOwn(live, 'metadata');
  const liveMetadata = isJsonObject(metadata) ? metadata : {};
  const projectedMetadata = getOwn(base, 'metadata');
  const namespace = getOwn(liveMetadata, 'namespace');
  const identification = objectFromEntries([
    ...(isJsonObject(projectedMetadata) ? Object.entries(projectedMetadata) : []),
    ['name', getOwn(liveMetadata, 'name') ?? null],
    ...(typeof namespace === 'string' ? [['namespace', namespace] as const] : []),
  ]);
  const rest = Object.entries(base).filter(([key]) => key !== 'apiVersion' && key !== 'kind' && key !== 'metadata');
  return objectFromEntries([
    ['apiVersion', getOwn(live, 'apiVersion') ?? null],
    ['kind', getOwn(live, 'kind') ?? null],
    ['metadata', identification],
    ...rest,
  ]);
};

export type { JsonObject };
