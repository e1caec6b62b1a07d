/**
 * API error text that echoes an object. The API server quotes what it refused: a 422 on a patch
 * quotes the whole patched object (`patch: Invalid value: "{\"apiVersion\":…}"`), with the other
 * keys of a Secret and its last-applied annotation. That text becomes a Stalled condition, an
 * Event and a log line, all readable by the tenant (issue 19). Two layers, both applied before the
 * text goes anywhere: an echoed object is cut out whatever it holds, and every value of every
 * Secret the plan touches (data in base64 and in clear, stringData, last-applied annotation) is
 * replaced wherever it still appears.
 */
import { getIn, getOwn, isJsonObject, type JsonValue } from '../json/json.js';
import type { ClusterError } from '../ports/errors.js';
import { base64Bytes } from '../json/base64.js';
import { isSecret, LAST_APPLIED_ANNOTATION, SENSITIVE, SENSITIVE_FIELDS } from './secret-values.js';
import { defined } from '../json/defined.js';

/** What stands in for an echoed object. */
export const ECHO_REDACTED = '(object redacted)';

/**
 * Shorter values are not searched for: replacing every `a` or `ok` would garble the message
 * (the echoed object that would hold them is cut out whole anyway).
 */
const MIN_LENGTH = 4;

/** A Go-quoted string (`"…"` with `\"` and `\\` escapes) whose text starts like an object or a list. */
const QUOTED_OBJECT = /"[[{](?:[^"\\]|\\.)*"/g;

/** The UTF-8 text of `bytes`, or `undefined` when they are not UTF-8 (binary values are found by their base64). */
export const utf8Text = (bytes: ReadonlyArray<number>): string | undefined => {
  try {
    return decodeURIComponent(bytes.map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''));
  } catch {
    return undefined;
  }
};

/** `text` as it appears inside JSON strings nested `depth` times (an annotation in an object in a message). */
export const escaped = (text: string, depth: number): string => {
  let current = text;
  for (let i = 0; i < depth; i++) current = JSON.stringify(current).slice(1, -1);
  return current;
};

/** The texts a Secret's value may appear as: itself, its plaintext, each escaped as JSON up to three times. */
const formsOf = (field: string, value: JsonValue | undefined): ReadonlyArray<string> => {
  if (typeof value !== 'string') return [];
  const bytes = field === 'data' ? base64Bytes(value) : undefined;
  const plain = bytes === undefined ? undefined : utf8Text(bytes);
  return [value, ...(plain === undefined ? [] : [plain])].flatMap((text) =>
    [0, 1, 2, 3].map((depth) => escaped(text, depth)),
  );
};

/**
 * Every text a Secret among `objects` holds as a value (create bodies, patch values, live objects,
 * status entries): what must not appear in an error message. Non-Secrets give nothing.
 */
export const secretTexts = (objects: ReadonlyArray<JsonValue>): ReadonlyArray<string> => {
  const texts = new Set<string>();
  for (const object of objects) {
    if (!isJsonObject(object) || !isSecret(object)) continue;
    for (const field of SENSITIVE_FIELDS) {
      const values = getOwn(object, field);
      if (isJsonObject(values)) for (const value of Object.values(values)) formsOf(field, value).forEach(add(texts));
    }
    formsOf('', getIn(object, ['metadata', 'annotations', LAST_APPLIED_ANNOTATION])).forEach(add(texts));
  }
  // Longest first: a value containing another is replaced whole.
  return [...texts].filter((text) => text.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
};

const add =
  (texts: Set<string>) =>
  (text: string): void => {
    texts.add(text);
  };

/** A value the server quotes as invalid (`data[k]: Invalid value: "…"`): for a Secret, one of its values. */
const INVALID_VALUE = /Invalid value: "(?:[^"\\]|\\.)*"/g;

/**
 * `text` (an API error message) with every quoted object or list cut out, and when it concerns a
 * Secret (`secret`) every quoted invalid value too: what the API adapter does to every error.
 */
export const redactEchoedObjects = (text: string, secret: boolean): string => {
  const cut = text.replace(QUOTED_OBJECT, `"${ECHO_REDACTED}"`);
  return secret ? cut.replace(INVALID_VALUE, `Invalid value: ${SENSITIVE}`) : cut;
};

/** `text` with echoed objects cut out and every one of `secrets` replaced by `(sensitive value)`. */
export const redactEcho = (text: string, secrets: ReadonlyArray<string>): string =>
  secrets.reduce((current, secret) => current.split(secret).join(SENSITIVE), redactEchoedObjects(text, false));

/** `error` with its message and causes redacted (`redactEcho`); the same object when nothing changes. */
export const redactClusterError = (error: ClusterError, secrets: ReadonlyArray<string>): ClusterError => {
  const message = redactEcho(error.message, secrets);
  const causes = error.causes?.map((cause) => ({ ...cause, message: redactEcho(cause.message, secrets) }));
  const changed =
    message !== error.message || (causes ?? []).some((cause, i) => cause.message !== error.causes?.[i]?.message);
  return changed ? { ...error, message, ...defined({ causes }) } : error;
};
