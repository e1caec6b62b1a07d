/** io-ts codecs of parsed JSON: what JSON and YAML parsing hand over, checked where it enters a typed value. */
import * as t from 'io-ts';
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

/** A JSON object; `name` is how decoding errors call it. */
export const jsonObjectCodec = (name: string): t.Type<JsonObject, JsonObject, unknown> =>
  new t.Type<JsonObject, JsonObject, unknown>(
    name,
    (u): u is JsonObject => isJsonObject(u),
    (u, c) => (isJsonObject(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

/** Anything but `undefined`: a parsed document holds JSON values only (the bounds check catches depth and size). */
const isJsonValue = (u: unknown): u is JsonValue => u !== undefined;

/** Any JSON value of a parsed document; `name` is how decoding errors call it. */
export const jsonValueCodec = (name: string): t.Type<JsonValue, JsonValue, unknown> =>
  new t.Type<JsonValue, JsonValue, unknown>(
    name,
    isJsonValue,
    (u, c) => (isJsonValue(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

/** A string of at most `maxLength` characters that `pattern` matches; `name` is how decoding errors call it. */
export const patternStringCodec = (
  name: string,
  pattern: RegExp,
  maxLength: number,
): t.Type<string, string, unknown> => {
  const is = (u: unknown): u is string => typeof u === 'string' && u.length <= maxLength && pattern.test(u);
  return new t.Type<string, string, unknown>(name, is, (u, c) => (is(u) ? t.success(u) : t.failure(u, c)), t.identity);
};
