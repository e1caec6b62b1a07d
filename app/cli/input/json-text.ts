/**
 * JSON input read by the JSON parser: `kubectl get -o json` snapshots and generated manifests are
 * JSON, and the YAML parser (which reads JSON too) builds a syntax tree of every token first, about
 * ten times the work. The bounds stay those of every input (size, nesting, values, no duplicate
 * key), checked by a scan before the parser runs and on the values it returns; anything the fast
 * path cannot vouch for (a syntax error, a duplicate key, a bound exceeded, a number out of range)
 * is read again by the YAML path, which says exactly where and what is wrong.
 */
import type { JsonValue } from '../../../core/internal.js';
import type { InputLimits } from './limits.js';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Whether `text` looks like one JSON object or list (after whitespace and a byte order mark). */
export const looksLikeJson = (text: string): boolean => /^\ufeff?\s*[[{]/.test(text.slice(0, 256));

/**
 * Nesting and members of JSON text, without building anything: linear, stops at the first level
 * over `maxDepth`. `members`: the colons outside strings, which in valid JSON are exactly the
 * object members written (a parsed value with fewer keys had a key written twice).
 */
const scan = (text: string, maxDepth: number): { readonly members: number } | undefined => {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return undefined;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
    else if (code === COLON) members += 1;
  }
  return { members };
};

/** Values and object keys of a parsed value, or `undefined` past `maxNodes` or at a non-finite number. */
const census = (value: unknown, maxNodes: number): { readonly nodes: number; readonly keys: number } | undefined => {
  let nodes = 0;
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    nodes += 1;
    if (nodes > maxNodes) return undefined;
    if (typeof current === 'number' && !Number.isFinite(current)) return undefined;
    if (Array.isArray(current)) for (const item of current) stack.push(item);
    else if (typeof current === 'object' && current !== null)
      for (const item of Object.values(current)) {
        keys += 1;
        stack.push(item);
      }
  }
  return { nodes, keys };
};

/**
 * The value of JSON `text` if it is valid JSON within `limits` with no key written twice in one
 * object; `undefined` when it is not (the caller reads it the careful way, which reports why).
 */
export const readJsonText = (text: string, limits: InputLimits): { readonly value: JsonValue } | undefined => {
  if (text.length > limits.maxBytes || (text.length * 3 > limits.maxBytes && Buffer.byteLength(text) > limits.maxBytes))
    return undefined;
  // Brackets deeper than the values' limit: values would be nested too deeply (their path is one shorter at most).
  const scanned = scan(text, limits.maxDepth);
  if (scanned === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  const counted = census(parsed, limits.maxNodes);
  // JSON.parse makes own properties (`__proto__` stays data) of only JSON values: the checks left are the bounds.
  return counted === undefined || counted.keys !== scanned.members ? undefined : { value: parsed as JsonValue };
};
