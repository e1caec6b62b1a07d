/**
 * Who owns a field of a live object, from its `metadata.managedFields` (fields-v1.ts). The entries
 * are written by every client of the API server, so each is decoded on its own and one that does
 * not decode is skipped: it can hide an owner, never invent one.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { fromPointer } from '../json/path.js';
import type { Resource } from '../model/resource.js';
import { coverage, type Extent } from './fields-v1.js';

/** One manager's claim on a field, as the live object records it. */
export type FieldOwner = {
  readonly manager: string;
  /** `Apply` (server-side apply) or `Update` (any other write). */
  readonly operation: string;
  /** `status`, `scale`, … when the manager wrote through a subresource. */
  readonly subresource?: string;
  /** When the manager last changed its set (RFC 3339, as the server wrote it). */
  readonly time?: string;
  readonly extent: Extent;
};

/** Entries beyond this many are not read (the server itself keeps ten Update managers and merges the rest). */
const MAX_ENTRIES = 64;
/** A manager name longer than this is shown cut: the name is written by a client, and printed. */
const MAX_NAME = 128;

/** A decoded entry: every key set (an absent one undefined), so that each has the same shape. */
export type ManagedEntry = {
  readonly manager: string;
  readonly operation: string;
  readonly subresource: string | undefined;
  readonly time: string | undefined;
  readonly fields: JsonObject;
};

/**
 * The owners of the field at `pointer` (RFC 6901) of `live`, in the order the object lists them; `except`: a
 * manager left out, its set not walked (the plan's forecast skips kreconcile's own, on every patched field).
 */
export const ownersOf = (live: Resource, pointer: string, except?: string): ReadonlyArray<FieldOwner> =>
  ownersIn(managedEntries(live), live, fromPointer(pointer), except);

/** `ownersOf` with the entries decoded (`managedEntries(live)`) and the pointer parsed: many fields of one object. */
export const ownersIn = (
  entries: ReadonlyArray<ManagedEntry>,
  live: Resource,
  path: ReadonlyArray<string>,
  except?: string,
): ReadonlyArray<FieldOwner> => {
  const owners: FieldOwner[] = [];
  for (const entry of entries) {
    if (entry.manager === except) continue;
    const extent = coverage(entry.fields, live, path);
    if (extent !== undefined) owners.push(ownerOf(entry, extent));
  }
  return owners;
};

/** The owner an entry names, its keys in the order the entry has them (an absent one left out). */
const ownerOf = ({ manager, operation, subresource, time }: ManagedEntry, extent: Extent): FieldOwner => {
  if (subresource === undefined)
    return time === undefined ? { manager, operation, extent } : { manager, operation, time, extent };
  return time === undefined
    ? { manager, operation, subresource, extent }
    : { manager, operation, subresource, time, extent };
};

/** The manager a `metadata.managedFields` entry names, when it names one. */
export const managerOf = (entry: JsonValue): string | undefined => {
  const manager = isJsonObject(entry) ? getOwn(entry, 'manager') : undefined;
  return typeof manager === 'string' ? manager : undefined;
};

/** The decodable entries of `metadata.managedFields`. */
export const managedEntries = (live: Resource): ReadonlyArray<ManagedEntry> => {
  const entries = getOwn(live.metadata, 'managedFields');
  if (!isJsonArray(entries)) return [];
  const decoded: ManagedEntry[] = [];
  for (const entry of entries.length > MAX_ENTRIES ? entries.slice(0, MAX_ENTRIES) : entries) {
    const read = decodeEntry(entry);
    if (read !== undefined) decoded.push(read);
  }
  return decoded;
};

const decodeEntry = (entry: JsonValue): ManagedEntry | undefined => {
  if (!isJsonObject(entry)) return undefined;
  const manager = getOwn(entry, 'manager');
  const operation = getOwn(entry, 'operation');
  const fields = getOwn(entry, 'fieldsV1');
  if (typeof manager !== 'string' || typeof operation !== 'string' || !isJsonObject(fields)) return undefined;
  const subresource = getOwn(entry, 'subresource');
  const time = getOwn(entry, 'time');
  return {
    manager: manager.slice(0, MAX_NAME),
    operation: operation.slice(0, MAX_NAME),
    subresource: typeof subresource === 'string' && subresource !== '' ? subresource.slice(0, MAX_NAME) : undefined,
    time: typeof time === 'string' ? time.slice(0, 64) : undefined,
    fields,
  };
};
