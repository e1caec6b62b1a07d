/**
 * Secret values are sensitive everywhere but in the API requests that write them: in `status`
 * and in snapshots a value under a Secret's `data`/`stringData` is replaced by its digest
 * (`sha256:<hex>` of the bytes it stands for); in plans, explanations and Events it shows as
 * `(sensitive value) sha256:<hex>`, so a change stays visible (as terraform shows them). A digest
 * can be matched again against a desired value (`revealMatching`) so drift detection still works.
 *
 * `stringData` is write-only (the API server folds it into base64 `data`): `foldStringData` does
 * the same to the desired state, so a Secret written with `stringData` converges.
 */
import {
  getOwn,
  isJsonObject,
  objectFromEntries,
  withKey,
  withoutKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { base64Bytes, base64Of, utf8Bytes } from '../json/base64.js';
import { resourceFinder } from '../manifest/identity.js';
import { updateValueAt, valueAt } from './marked.js';
import type { Resource } from '../model/resource.js';
import { sha256Hex } from './sha256.js';
import { jsonText } from '../json/text.js';

/** How a sensitive value is shown to people, before its digest. */
export const SENSITIVE = '(sensitive value)';

/** The fields of a Secret holding sensitive values. */
export const SENSITIVE_FIELDS: ReadonlyArray<string> = ['data', 'stringData'];

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** What `kubectl apply` records of the object it applied: for a Secret, its values in clear. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Fields of every Secret treated like schema-marked ones (whole value digested or masked): the
 * last-applied annotation holds the Secret's `data`/`stringData` in clear, so observing a Secret's
 * annotations would otherwise put its plaintext into status, plans and snapshots (issue 19).
 */
export const SECRET_MARKS: ReadonlyArray<ReadonlyArray<string>> = [
  ['metadata', 'annotations', LAST_APPLIED_ANNOTATION],
];

/** The marks that apply to `object`: its schema's, and for a Secret `SECRET_MARKS`. */
const marksOf = (object: JsonObject, marked: Marked): Marked =>
  isSecret(object) ? [...marked, ...SECRET_MARKS] : marked;

export const isSecret = (object: JsonObject): boolean =>
  getOwn(object, 'apiVersion') === 'v1' && getOwn(object, 'kind') === 'Secret';

/** Whether `value` is a digest this module wrote (never a base64 value: `:` is not in the alphabet). */
export const isDigest = (value: JsonValue | undefined): value is string =>
  typeof value === 'string' && DIGEST.test(value);

/** The digest of a `data` value: SHA-256 of the bytes the base64 text stands for (`echo -n value | sha256sum`). */
export const digestOfData = (value: string): string => `sha256:${sha256Hex(base64Bytes(value) ?? utf8Bytes(value))}`;

/** The digest of a `stringData` value: the same as of its folded `data` value. */
export const digestOfString = (value: string): string => `sha256:${sha256Hex(utf8Bytes(value))}`;

const digestOf = (field: string, value: JsonValue): JsonValue => {
  // A null is no value but "unknown, learn it from the cluster" (docs/behaviour.md): it stays null, never a digest of
  // "null".
  if (value === null || isDigest(value)) return value;
  if (typeof value !== 'string') return `sha256:${sha256Hex(utf8Bytes(JSON.stringify(value)))}`;
  return field === 'data' ? digestOfData(value) : digestOfString(value);
};

/** Pointer tokens of the fields a schema marks sensitive (core/sensitive/marked.ts). */
export type Marked = ReadonlyArray<ReadonlyArray<string>>;

/** The digest of a schema-marked value: of its UTF-8 text when a string, else of its JSON. */
const digestOfMarked = (value: JsonValue): JsonValue => digestOf('', value);

const eachMarked = <T extends JsonObject>(
  object: T,
  marked: Marked,
  update: (value: JsonValue) => JsonValue | undefined,
): T =>
  marked.length === 0
    ? object
    : // Marked paths point below the identification (schemas cannot mark it): still a T.
      (marked.reduce<JsonValue>((current, tokens) => updateValueAt(current, tokens, update), object) as T);

const mapField = (
  object: JsonObject,
  field: string,
  update: (key: string, value: JsonValue) => JsonValue | undefined,
): JsonObject => {
  const values = getOwn(object, field);
  if (!isJsonObject(values)) return object;
  const entries = Object.entries(values).flatMap(([key, value]) => {
    const next = update(key, value);
    return next === undefined ? [] : [[key, next] as const];
  });
  return withKey(object, field, objectFromEntries(entries));
};

/**
 * `object` with every Secret value, and every value its schema marks sensitive, replaced by its
 * digest (idempotent; anything else is returned as is).
 */
export const withDigests = <T extends JsonObject>(object: T, marked: Marked = []): T => {
  // Runs on every status entry of every plan: most objects are no Secret and have no marks.
  if (marked.length === 0 && !isSecret(object)) return object;
  const secret = isSecret(object)
    ? // Only the values of `data`/`stringData` change: still a T.
      (SENSITIVE_FIELDS.reduce<JsonObject>(
        (current, field) => mapField(current, field, (_key, value) => digestOf(field, value)),
        object,
      ) as T)
    : object;
  return eachMarked(secret, marksOf(object, marked), digestOfMarked);
};

/**
 * `object` without the digests it holds: a digest read back from status is unknown, never a value
 * to write. A field left empty goes too, so a schema observing it whole learns it again.
 */
export const withoutDigests = <T extends JsonObject>(object: T, marked: Marked = []): T => {
  if (marked.length === 0 && !isSecret(object)) return object;
  const secret = isSecret(object)
    ? // Only `data`/`stringData` values go: still a T.
      (SENSITIVE_FIELDS.reduce<JsonObject>((current, field) => {
        const values = getOwn(current, field);
        if (!isJsonObject(values) || !Object.values(values).some(isDigest)) return current;
        const kept = Object.entries(values).filter(([, value]) => !isDigest(value));
        return kept.length === 0 ? withoutKey(current, field) : withKey(current, field, objectFromEntries(kept));
      }, object) as T)
    : object;
  return eachMarked(secret, marksOf(object, marked), (value) => (isDigest(value) ? undefined : value));
};

/**
 * `observed` (a live object from a redacted snapshot, or a status entry) with each digest that
 * matches the `desired` value of the same key replaced by that value, so comparing them finds
 * no drift; a digest that matches nothing stays (a real difference).
 */
export const revealMatching = <T extends JsonObject>(
  observed: T,
  desired: JsonObject | undefined,
  marked: Marked = [],
): T => {
  if (desired === undefined) return observed;
  const wanted = getOwn(desired, 'data');
  const secret =
    isSecret(observed) && isJsonObject(wanted)
      ? // Only values of `data` change: still a T.
        (mapField(observed, 'data', (key, value) => {
          const candidate = getOwn(wanted, key);
          return isDigest(value) && typeof candidate === 'string' && digestOfData(candidate) === value
            ? candidate
            : value;
        }) as T)
      : observed;
  // Marked paths point below the identification (schemas cannot mark it): still a T.
  return marksOf(observed, marked).reduce<JsonValue>(
    (current, tokens) =>
      updateValueAt(current, tokens, (value) => {
        const candidate = valueAt(desired, tokens);
        return isDigest(value) && candidate !== undefined && digestOfMarked(candidate) === value ? candidate : value;
      }),
    secret,
  ) as T;
};

/** Whether `object` holds a digest anywhere a sensitive value goes (only then is `revealMatching` needed). */
const holdsDigests = (object: JsonObject, marked: Marked): boolean =>
  (isSecret(object) &&
    SENSITIVE_FIELDS.some((field) => {
      const values = getOwn(object, field);
      return isJsonObject(values) && Object.values(values).some(isDigest);
    })) ||
  marksOf(object, marked).some((tokens) => isDigest(valueAt(object, tokens)));

/**
 * `revealMatching` over many objects, each against the desired resource of the same identity, with its schema's marks.
 */
export const revealAllMatching = <T extends JsonObject>(
  objects: ReadonlyArray<T>,
  desired: ReadonlyArray<Resource>,
  markedOf: (object: JsonObject) => Marked,
): ReadonlyArray<T> => {
  // Runs on every live object of every plan: nothing is allocated until one holds a digest.
  const first = objects.findIndex((object) => holdsDigests(object, markedOf(object)));
  if (first < 0) return objects;
  const findDesired = resourceFinder(desired);
  return objects.map((object, i) => {
    if (i < first) return object;
    const marks = markedOf(object);
    return holdsDigests(object, marks) ? revealMatching(object, findDesired(object), marks) : object;
  });
};

/**
 * A desired Secret as the API server stores it: `stringData` folded into base64 `data` (a key in
 * both takes the `stringData` value, as the server does) and removed. Other objects unchanged.
 */
export const foldStringData = <T extends JsonObject>(object: T): T => {
  const strings = isSecret(object) ? getOwn(object, 'stringData') : undefined;
  if (!isJsonObject(strings)) return object;
  const data = getOwn(object, 'data');
  const folded = objectFromEntries([
    ...Object.entries(isJsonObject(data) ? data : {}).filter(([key]) => !Object.hasOwn(strings, key)),
    ...Object.entries(strings).map(
      ([key, value]) => [key, typeof value === 'string' ? base64Of(value) : value] as const,
    ),
  ]);
  // `stringData` is write-only and `data` a map of base64 strings, as the server stores a Secret: still a T.
  return withKey<JsonObject, 'data'>(withoutKey<JsonObject, 'stringData'>(object, 'stringData'), 'data', folded) as T;
};

/** How a sensitive value is shown: `(sensitive value) sha256:<hex>` (`field`: the Secret field holding it, if any). */
export const showSensitive = (field: string, value: JsonValue): string =>
  `${SENSITIVE} ${jsonText(digestOf(field, value))}`;

/**
 * `value` written at `path` (a JSON path below a Secret, as segments) for display: values under
 * `data`/`stringData` become `showSensitive` strings, anything else is returned as is.
 */
export const maskedAt = (path: ReadonlyArray<string>, value: JsonValue): JsonValue => {
  const [field, key] = path;
  if (field === undefined)
    return isJsonObject(value)
      ? eachMarked(
          SENSITIVE_FIELDS.reduce<JsonObject>((v, f) => mapField(v, f, (_k, inner) => showSensitive(f, inner)), value),
          SECRET_MARKS,
          (inner) => showSensitive('', inner),
        )
      : value;
  if (!SENSITIVE_FIELDS.includes(field)) return value;
  if (key !== undefined) return showSensitive(field, value);
  return isJsonObject(value)
    ? objectFromEntries(Object.entries(value).map(([k, inner]) => [k, showSensitive(field, inner)] as const))
    : showSensitive(field, value);
};
