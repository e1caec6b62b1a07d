/** Whether a JSON value is of an OpenAPI `type` (offline validation and the structural validator share it). */
import { isJsonArray, isJsonObject, type JsonValue } from '../../json/json.js';

/** `true` for a type this does not know (or none): the caller decides what an untyped node accepts. */
export const hasSchemaType = (value: JsonValue, type: JsonValue | undefined): boolean => {
  switch (type) {
    case 'object':
      return isJsonObject(value);
    case 'array':
      return isJsonArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
};

/** The types `hasSchemaType` checks. */
export const SCHEMA_TYPES: ReadonlySet<JsonValue> = new Set([
  'object',
  'array',
  'string',
  'integer',
  'number',
  'boolean',
]);
