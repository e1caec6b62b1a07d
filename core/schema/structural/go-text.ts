/**
 * Values and field errors worded as kube-apiserver words them (k8s.io/apimachinery's
 * `field.Error`): a JSON value decoded by the server is a Go `int64`, `float64`, `string`,
 * `bool`, `map[string]interface {}`, `[]interface {}` or nil, and is printed with `%v`, `%q` or
 * `%#v` by its type. docs/decisions/0024-custom-resource-schema.md.
 */
import { getOwn, isJsonArray, type JsonValue } from '../../json/json.js';
import type { ErrorCause } from '../../ports/errors.js';
import { valueKey } from './value-key.js';

/** Go's `%v` of a float64 (`1e+21`, `0.5`, `10`). */
export const goFloat = (value: number): string => {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const text = String(value);
  return text.replace(/e([+-])(\d)$/, 'e$10$2');
};

/** Go's `%q` of a string (JSON escaping is the same for what JSON strings hold, bar a few rare escapes). */
export const goQuote = (value: string): string => JSON.stringify(value);

/** Go's `%#v` of a decoded JSON value. */
export const goSyntax = (value: JsonValue): string => {
  if (value === null) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (isJsonArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${goQuote(key)}:${goSyntax(getOwn(value, key) ?? null)}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
};

/** How `field.Error` prints a bad value: simple types with `%v`, strings quoted, nil as `null`, others `%#v`. */
export const badValue = (value: JsonValue): string => {
  if (value === null) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'boolean') return String(value);
  return goSyntax(value);
};

/** The JSON type name of a value as kube-openapi names it in "must be of type X: \"Y\"". */
export const jsonTypeName = (value: JsonValue): string => {
  if (value === null) return 'null';
  if (isJsonArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

export const required = (field: string, detail = ''): ErrorCause => ({
  field,
  reason: 'FieldValueRequired',
  message: detail === '' ? 'Required value' : `Required value: ${detail}`,
});

export const invalid = (field: string, value: JsonValue, detail: string): ErrorCause => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${badValue(value)}: ${detail}`,
});

export const typeInvalid = (field: string, value: JsonValue, detail: string): ErrorCause => ({
  field,
  reason: 'FieldValueTypeInvalid',
  message: `Invalid value: ${badValue(value)}: ${detail}`,
});

export const forbidden = (field: string, detail: string): ErrorCause => ({
  field,
  reason: 'FieldValueForbidden',
  message: `Forbidden: ${detail}`,
});

/** A repeated list item, printed as JSON (a map list's keys as an object): `Duplicate value: {"name":"a"}`. */
export const duplicate = (field: string, value: JsonValue): ErrorCause => ({
  field,
  reason: 'FieldValueDuplicate',
  message: `Duplicate value: ${valueKey(value)}`,
});

/** At most this many supported values are listed (the real server lists them all; a tenant's enum can be huge). */
const LISTED_VALUES = 64;

export const notSupported = (field: string, value: JsonValue, supported: ReadonlyArray<JsonValue>): ErrorCause => {
  const listed = supported
    .slice(0, LISTED_VALUES)
    .map((option) => goQuote(typeof option === 'string' ? option : option === null ? '<nil>' : goPlain(option)));
  const more = supported.length > LISTED_VALUES ? `, … (${supported.length - LISTED_VALUES} more)` : '';
  return {
    field,
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${badValue(value)}: supported values: ${listed.join(', ')}${more}`,
  };
};

/** Go's `%v` of a decoded JSON value (maps as `map[a:1]`, slices as `[a b]`). */
const goPlain = (value: JsonValue): string => {
  if (value === null) return '<nil>';
  if (typeof value === 'number') return goFloat(value);
  if (typeof value !== 'object') return String(value);
  if (isJsonArray(value)) return `[${value.map(goPlain).join(' ')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${key}:${goPlain(getOwn(value, key) ?? null)}`);
  return `map[${entries.join(' ')}]`;
};

export const tooLong = (field: string, max: number): ErrorCause => ({
  field,
  reason: 'FieldValueTooLong',
  message: `Too long: may not be more than ${max} bytes`,
});

export const tooMany = (field: string, actual: number, max: number): ErrorCause => ({
  field,
  reason: 'FieldValueTooMany',
  message: `Too many: ${actual}: must have at most ${max} items`,
});

/** One line per cause, as `Kind.group "name" is invalid: …` lists them (brackets for several). */
export const causesText = (causes: ReadonlyArray<ErrorCause>): string => {
  const listed = causes.map((cause) => `${cause.field ?? ''}: ${cause.message}`);
  return listed.length === 1 ? (listed[0] ?? '') : `[${listed.join(', ')}]`;
};
