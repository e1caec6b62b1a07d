/**
 * Observer schemas in Krake's format (docs/behaviour.md §2): shaped like the resource, observed
 * fields marked `true` (or Krake's `null`), every list ends with a list-control object.
 * Internally (after `validateObserverSchema`) every marker is `null`.
 */
import { hasOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import type { Resource } from './resource.js';

export const LIST_MIN = 'observer_schema_list_min_length';
export const LIST_MAX = 'observer_schema_list_max_length';
export const LIST_CURRENT = 'observer_schema_list_current_length';

/**
 * The observed marker users write: JSON merge patches (RFC 7386: client-side `kubectl apply` of a
 * custom resource, `kubectl patch --type merge`) delete every `null` member, so Krake's `null`
 * marker silently disappears on such updates; `true` survives every update path.
 */
export const OBSERVED_MARKER = true;

/** Whether a schema value marks its field observed: `true`, or Krake's `null`. */
export const isObservedMarker = (value: JsonValue | undefined): value is true | null =>
  value === null || value === OBSERVED_MARKER;

/**
 * The internal form of a validated schema: every `true` marker becomes `null`, so the rest of
 * the core knows one marker. In a valid schema `true` can only be a marker (identification
 * values are strings, list bounds integers). Unchanged schemas are returned as they are.
 */
export const withNullMarkers = (schema: ObserverSchema): ObserverSchema =>
  // Only `true` leaves become `null`: the identification strings stay, so it is still an ObserverSchema.
  (hasTrueMarker(schema) ? nullMarkersOf(schema) : schema) as ObserverSchema;

const hasTrueMarker = (value: JsonValue): boolean => {
  if (value === OBSERVED_MARKER) return true;
  if (isJsonArray(value)) return value.some(hasTrueMarker);
  return isJsonObject(value) && Object.values(value).some(hasTrueMarker);
};

const nullMarkersOf = (value: JsonValue): JsonValue => {
  if (value === OBSERVED_MARKER) return null;
  if (isJsonArray(value)) return value.map(nullMarkersOf);
  if (isJsonObject(value))
    return objectFromEntries(Object.entries(value).map(([key, child]) => [key, nullMarkersOf(child)] as const));
  return value;
};

/** A schema for one resource; validated by `validateObserverSchema` before use. */
export type ObserverSchema = Resource;

/**
 * A schema node: `null` (observe the value; `true` before validation), an object of child schemas, or a list schema.
 */
export type SchemaNode = JsonValue;

/** `{observer_schema_list_min_length: m, observer_schema_list_max_length: M}`; M = 0 means no maximum. */
export type ListControl = { readonly min: number; readonly max: number };

/** The elements' schemas of a list schema, without its trailing control object. */
export const listElements = (schema: ReadonlyArray<SchemaNode>): ReadonlyArray<SchemaNode> => schema.slice(0, -1);

/** The control of a validated list schema. */
export const listControl = (schema: ReadonlyArray<SchemaNode>): ListControl => {
  const control = schema[schema.length - 1];
  const read = (key: string): number => (isJsonObject(control) && typeof control[key] === 'number' ? control[key] : 0);
  return { min: read(LIST_MIN), max: read(LIST_MAX) };
};

/** Whether a length satisfies the control of a validated list schema, without building the control. */
export const lengthWithinSchema = (length: number, schema: ReadonlyArray<SchemaNode>): boolean => {
  const control = schema[schema.length - 1];
  if (!isJsonObject(control)) return true;
  const min = control[LIST_MIN];
  const max = control[LIST_MAX];
  return length >= (typeof min === 'number' ? min : 0) && (typeof max !== 'number' || max === 0 || length <= max);
};

/** Whether a length satisfies a control; `max === 0` means unbounded, in validation and diff alike. */
export const lengthWithin = (length: number, control: ListControl): boolean =>
  length >= control.min && (control.max === 0 || length <= control.max);

export const isListControl = (value: JsonValue | undefined): value is JsonObject =>
  isJsonObject(value) && (hasOwn(value, LIST_MIN) || hasOwn(value, LIST_MAX));

export const isCurrentLength = (value: JsonValue | undefined): value is JsonObject =>
  isJsonObject(value) && hasOwn(value, LIST_CURRENT);

export const currentLength = (value: JsonValue | undefined): number | undefined =>
  isCurrentLength(value) && typeof value[LIST_CURRENT] === 'number' ? value[LIST_CURRENT] : undefined;

/** The list-control object of a list of the given length range. */
export const makeListControl = (min: number, max: number): JsonObject =>
  // Literal keys (the values of LIST_MIN and LIST_MAX), not computed ones: a computed key defines each property at
  // run time, and a plan makes a control for every list of every fresh spec.
  ({ observer_schema_list_min_length: min, observer_schema_list_max_length: max }) satisfies Record<
    typeof LIST_MIN | typeof LIST_MAX,
    number
  >;

export const makeCurrentLength = (length: number): JsonObject =>
  // A literal key, as in `makeListControl`.
  ({ observer_schema_list_current_length: length }) satisfies Record<typeof LIST_CURRENT, number>;

/** Identification fields: carry values in a schema, never compared as drift. */
export const isIdentificationPath = (path: ReadonlyArray<string | number>): boolean =>
  (path.length === 1 && (path[0] === 'apiVersion' || path[0] === 'kind')) ||
  (path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace'));
