/**
 * Every text a Secret could give away, found anywhere in a message: a readiness rule sees the
 * whole object (issue 36 item 9), so what it could print is every string the object holds outside
 * its identity: `data` (base64, and decoded), `stringData`, every annotation and label (kubectl's
 * last-applied-configuration holds `stringData` in clear, as JSON: its strings count one by one).
 * Each is searched as written, decoded from base64, encoded as base64, and escaped as JSON up to
 * three times (a value quoted in an error quoting JSON). `echo.ts` is the same for API errors.
 */
import { isJsonArray, isJsonObject, parseJsonText, type JsonObject, type JsonValue } from '../json/json.js';
import { base64Bytes, base64Of } from '../json/base64.js';
import { escaped, utf8Text } from './echo.js';
import { SENSITIVE } from './secret-values.js';

/** Shorter strings are not searched for: replacing every `a` or `ok` would garble the message. */
const MIN_LENGTH = 4;

/** The keys of a Secret that identify it, never sensitive (its name is printed with every message). */
const IDENTITY: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'type', 'immutable']);
const METADATA_IDENTITY: ReadonlySet<string> = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'ownerReferences',
  'finalizers',
  'managedFields',
  'generateName',
]);

/** Every string in `value`, and the strings of every string that is JSON (an annotation holding an object). */
const stringsIn = (value: JsonValue, into: Set<string>, depth: number): void => {
  if (typeof value === 'string') {
    into.add(value);
    if (depth < 3 && /^\s*[[{]/.test(value)) stringsIn(parsedOrNull(value), into, depth + 1);
    return;
  }
  if (isJsonArray(value)) for (const item of value) stringsIn(item, into, depth);
  else if (isJsonObject(value)) for (const item of Object.values(value)) stringsIn(item, into, depth);
};

const parsedOrNull = (text: string): JsonValue => {
  try {
    return parseJsonText(text);
  } catch {
    return null;
  }
};

/** The UTF-8 text of base64 `value`, when it is base64 of UTF-8. */
const decoded = (value: string): string | undefined => {
  const bytes = base64Bytes(value);
  return bytes === undefined ? undefined : utf8Text(bytes);
};

/** The texts that identify `object` (printed with every message, and repeated inside its last-applied annotation). */
const identityOf = (object: JsonObject): ReadonlySet<string> => {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return new Set(
    [object.apiVersion, object.kind, object.type, metadata.name, metadata.namespace].filter(
      (value): value is string => typeof value === 'string',
    ),
  );
};

/** The strings of `object` that are not its identity (for a Secret: all its values, annotations, labels). */
const valueStrings = (object: JsonObject): Set<string> => {
  const found = new Set<string>();
  for (const [key, value] of Object.entries(object)) {
    if (IDENTITY.has(key)) continue;
    if (key === 'metadata' && isJsonObject(value)) {
      for (const [field, inner] of Object.entries(value)) if (!METADATA_IDENTITY.has(field)) stringsIn(inner, found, 0);
    } else stringsIn(value, found, 0);
  }
  for (const identity of identityOf(object)) found.delete(identity);
  return found;
};

/**
 * Every form in which a value of `object` could appear in a message, longest first (a value
 * containing another is replaced whole): as written, base64-decoded, base64-encoded, JSON-escaped.
 */
export const sensitiveTexts = (object: JsonObject): ReadonlyArray<string> => {
  const forms = new Set<string>();
  for (const text of valueStrings(object)) {
    const plain = decoded(text);
    for (const form of [text, base64Of(text), ...(plain === undefined ? [] : [plain, base64Of(plain)])])
      for (const depth of [0, 1, 2, 3]) forms.add(escaped(form, depth));
  }
  return [...forms].filter((form) => form.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
};

/** `text` with every one of `texts` replaced by `(sensitive value)`. */
export const scrubTexts = (text: string, texts: ReadonlyArray<string>): string =>
  texts.reduce((current, secret) => (current.includes(secret) ? current.split(secret).join(SENSITIVE) : current), text);
