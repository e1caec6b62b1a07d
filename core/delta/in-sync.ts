/**
 * The fast path of a no-op reconcile: one read-only walk over the observed fields that proves
 * nothing changed since the last observation, so the previous status entries can be reused
 * without projecting, learning or diffing again (and without allocating).
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  jsonCovers,
  jsonEqual,
  ownKeyCount,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { currentLength, lengthWithinSchema, type SchemaNode } from '../model/observer-schema.js';
import { memoTable, outlivesCall, remember, type Memo } from '../memo/memo.js';

/** A check that `live` still matches an entry of one `lastObservedManifest` list (see `inSyncWith`). */
export type InSyncCheck = (desired: JsonObject, live: JsonObject, observed: JsonObject, schema: SchemaNode) => boolean;

/**
 * For entries of `entries` (a `lastObservedManifest`): true when `live` shows no drift against
 * `desired`, holds nothing new to learn, and projects exactly onto `observed` (its entry). False
 * means "take the slow path", never "out of sync".
 * A reconcile with nothing changed plans the same Application, so the same list, against the same
 * live objects: with a memo, the last proof per entry is kept with the list (all four inputs are
 * immutable, so the same four give the same answer). One weak entry per list, not one per live object: on fresh
 * objects a weak-map insertion costs about a microsecond, more than the rest of the bookkeeping.
 */
export const inSyncWith = (entries: ReadonlyArray<JsonObject>, memo?: Memo): InSyncCheck => {
  // A proof only serves a later plan: without a memo that outlives this one, none is recorded.
  if (!outlivesCall(memo)) return walkInSync;
  const known = remember(memo, PROOFS, entries, () => new Map());
  return (desired, live, observed, schema) => {
    const proven = known.get(observed);
    if (proven !== undefined && proven.live === live && proven.desired === desired && proven.schema === schema)
      return true;
    if (!walkInSync(desired, live, observed, schema)) return false;
    known.set(observed, { live, desired, schema });
    return true;
  };
};

type Proof = { readonly live: JsonObject; readonly desired: JsonObject; readonly schema: SchemaNode };

/**
 * The last proof per entry (at most one each: a later proof for an entry replaces it). The key is
 * the whole input: the entry's list (and the entry), with the other three inputs in the proof.
 */
const PROOFS = memoTable<ReadonlyArray<JsonObject>, Map<JsonObject, Proof>>('in-sync proofs per observed list');

const walkInSync = (desired: JsonObject, live: JsonObject, observed: JsonObject, schema: SchemaNode): boolean => {
  if (!isJsonObject(schema)) return false;
  for (const key in schema) {
    if (!hasOwn(schema, key) || key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata') {
      if (!sameMetadata(getOwn(desired, key), getOwn(live, key), getOwn(observed, key), schema[key] ?? null))
        return false;
    } else if (
      !same(getOwn(desired, key), getOwn(live, key), getOwn(observed, key), schema[key] ?? null, key === 'status')
    )
      return false;
  }
  return observedKeys(observed, live, schema, 3) === ownKeyCount(observed);
};

/** How many keys a fresh projection would have: schema keys present live, plus identification. */
const observedKeys = (observed: JsonObject, live: JsonObject, schema: JsonObject, identification: number): number => {
  let count = identification;
  for (const key in schema)
    if (
      hasOwn(schema, key) &&
      key !== 'apiVersion' &&
      key !== 'kind' &&
      key !== 'metadata' &&
      getOwn(live, key) !== undefined
    )
      count++;
  return count;
};

const sameMetadata = (
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  observed: JsonValue | undefined,
  schema: SchemaNode,
): boolean => {
  if (!isJsonObject(schema) || !isJsonObject(live) || !isJsonObject(observed)) return false;
  let count = 0;
  for (const key in schema) {
    if (!hasOwn(schema, key)) continue;
    if (key === 'name' || key === 'namespace') continue;
    const liveValue = getOwn(live, key);
    if (liveValue !== undefined) count++;
    if (
      !same(
        isJsonObject(desired) ? getOwn(desired, key) : undefined,
        liveValue,
        getOwn(observed, key),
        schema[key] ?? null,
        false,
      )
    )
      return false;
  }
  const identification =
    (getOwn(live, 'name') === undefined ? 0 : 1) + (getOwn(live, 'namespace') === undefined ? 0 : 1);
  return count + identification === ownKeyCount(observed);
};

const unknown = (value: JsonValue | undefined): boolean => value === undefined || value === null;

const same = (
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  observed: JsonValue | undefined,
  schema: SchemaNode,
  reportOnly: boolean,
): boolean => {
  if (live === undefined) return observed === undefined && (unknown(desired) || reportOnly);
  // A leaf (null, or any scalar): checked first, as most nodes are.
  if (typeof schema !== 'object' || schema === null) {
    if (unknown(desired)) return (reportOnly || live === null) && jsonEqual(observed, live);
    return (reportOnly || jsonCovers(desired, live)) && jsonEqual(observed, live);
  }
  if (!unknown(desired) && (isJsonArray(schema) ? !isJsonArray(desired) : !isJsonObject(desired))) return false;
  return isJsonArray(schema)
    ? sameList(desired, live, observed, schema, reportOnly)
    : sameObject(desired, live, observed, schema, reportOnly);
};

const sameObject = (
  desired: JsonValue | undefined,
  live: JsonValue,
  observed: JsonValue | undefined,
  schema: JsonObject,
  reportOnly: boolean,
): boolean => {
  if (!isJsonObject(live) || !isJsonObject(observed)) return false;
  const wanted = isJsonObject(desired) ? desired : undefined;
  let count = 0;
  for (const key in schema) {
    if (!hasOwn(schema, key)) continue;
    const liveValue = getOwn(live, key);
    if (liveValue !== undefined) count++;
    if (
      !same(
        wanted === undefined ? undefined : getOwn(wanted, key),
        liveValue,
        getOwn(observed, key),
        schema[key] ?? null,
        reportOnly,
      )
    )
      return false;
  }
  return count === ownKeyCount(observed);
};

const NO_ITEMS: ReadonlyArray<JsonValue> = [];

const sameList = (
  desired: JsonValue | undefined,
  live: JsonValue,
  observed: JsonValue | undefined,
  schema: ReadonlyArray<SchemaNode>,
  reportOnly: boolean,
): boolean => {
  if (!isJsonArray(live) || !isJsonArray(observed)) return false;
  const elementCount = schema.length - 1; // the last entry is the list control
  const positions = Math.min(elementCount, live.length);
  if (observed.length !== positions + 1 || currentLength(observed[positions]) !== live.length) return false;
  const wanted = isJsonArray(desired) ? desired : NO_ITEMS;
  if (!reportOnly && Math.min(elementCount, wanted.length) > live.length) return false;
  if (!reportOnly && !lengthWithinSchema(live.length, schema)) return false;
  for (let i = 0; i < positions; i++) {
    if (!same(wanted[i], live[i], observed[i], schema[i] ?? null, reportOnly)) return false;
  }
  return true;
};
