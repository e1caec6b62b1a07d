import type { JsonValue } from './json.js';

/**
 * A JSON value as text for a key or a message: a string as it is, anything else as its JSON
 * (`undefined` as "undefined", as `String` writes it). `String(value)` would write every object a
 * tenant puts where a string belongs as "[object Object]", so that two different objects read alike.
 */
export const jsonText = (value: JsonValue | undefined): string =>
  typeof value === 'string' ? value : value === undefined ? 'undefined' : JSON.stringify(value);
