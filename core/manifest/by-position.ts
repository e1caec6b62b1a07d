/**
 * Lookups by position: the lists a plan looks its desired resources up in (the previous status, the live snapshot)
 * are mostly in desired order, because they were made from it. Where a list lines up with the desired one, the entry
 * at a resource's own position is the answer an index would give, found without building the index or probing it:
 * on 10 000 fresh resources the indexes' maps, and their lookups missing the processor's caches, cost a fifth of a
 * plan (docs/performance.md). The answers are exactly the indexes' (`resourceFinder`, `identityIndex`), on one
 * condition the caller proves: no two queries share (apiVersion, kind, metadata.name) (`DistinctQueries`).
 */
import type { JsonObject } from '../json/json.js';
import type { Resource } from '../model/resource.js';
import type { Memo } from '../memo/memo.js';
import { foundAs, identityIndex, indexedAs, resourceFinder, type IdentityIndex } from './identity.js';

/**
 * Queries no two of which share (apiVersion, kind, metadata.name): the caller's proof (for a plan, the default
 * schemas' claims, core/schema/default.ts). Then an entry lined up with one query matches no other.
 */
export type DistinctQueries<Q> = { readonly distinct: ReadonlyArray<Q> };

/** The length of the prefix of `entries` in which each entry is the one its query's lookup is about. */
const linedUp = <T, Q>(
  entries: ReadonlyArray<T>,
  queries: ReadonlyArray<Q>,
  about: (entry: T, query: Q) => boolean,
): number => {
  let length = 0;
  for (; length < entries.length && length < queries.length; length++) {
    const entry = entries[length];
    const query = queries[length];
    if (entry === undefined || query === undefined || !about(entry, query)) break;
  }
  return length;
};

/**
 * `resourceFinder(entries, defaultNamespace)` applied to `queries[index]`. Where the prefix lines up, the entry at
 * `index` is the first entry the finder would match: any earlier one is lined up with another query, which it
 * matches, and the queries are distinct. Elsewhere, the finder (built on the first such lookup).
 */
export const findByPosition = <T extends JsonObject>(
  entries: ReadonlyArray<T>,
  queries: DistinctQueries<JsonObject>,
  defaultNamespace: string | undefined,
  memo?: Memo,
): ((index: number) => T | undefined) => {
  const { distinct } = queries;
  // Lined up on the first lookup: a caller may need none (core/manifest/last-applied.ts).
  let length: number | undefined;
  let finder: ((query: JsonObject) => T | undefined) | undefined;
  return (index) => {
    length ??= linedUp(entries, distinct, (entry, query) => foundAs(entry, query, defaultNamespace));
    if (index < length) return entries[index];
    const query = distinct[index];
    return query === undefined ? undefined : (finder ??= resourceFinder(entries, defaultNamespace, memo))(query);
  };
};

/**
 * `identityIndex(objects).of(queries[index])`: the last object with the query's identity. Where the prefix lines
 * up, no later object of the prefix has it (the queries are distinct), so the answer is the object at `index`
 * unless one after the prefix has it: those few (the owned objects a live read adds after the desired ones) are
 * indexed on their own. Elsewhere, the whole index (built on the first such lookup).
 */
export const identifyByPosition = <T extends Resource>(
  objects: ReadonlyArray<T>,
  queries: DistinctQueries<Resource>,
  memo?: Memo,
): ((index: number) => T | undefined) => {
  const { distinct } = queries;
  const length = linedUp(objects, distinct, indexedAs);
  let rest: IdentityIndex<T> | undefined;
  let all: IdentityIndex<T> | undefined;
  return (index) => {
    const query = distinct[index];
    if (query === undefined) return undefined;
    if (index >= length) return (all ??= identityIndex(objects, memo)).of(query);
    if (length === objects.length) return objects[index];
    return (rest ??= identityIndex(objects.slice(length))).of(query) ?? objects[index];
  };
};
