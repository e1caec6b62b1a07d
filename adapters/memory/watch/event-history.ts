/**
 * The change log watches resume from, bounded like the API server's watch cache: once an
 * entry falls out (capacity, or a restart that rebuilds the cache) a watch from before it is
 * answered 410 Gone.
 */
import type { Resource } from '../../../core/model/resource.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export type HistoryEntry = {
  readonly resourceVersion: number;
  readonly type: ChangeType;
  readonly groupKind: string;
  readonly object: Resource;
  /** The object before the change (for selector transitions). */
  readonly previous?: Resource;
};

export type EventHistory = {
  append(entry: HistoryEntry): void;
  /** Entries after `resourceVersion`, or `undefined` when some of them were already dropped. */
  since(resourceVersion: number): ReadonlyArray<HistoryEntry> | undefined;
  /** Forgets everything up to and including `resourceVersion`. */
  compact(resourceVersion: number): void;
};

export const createEventHistory = (capacity: number, compactedThrough: number): EventHistory => {
  let entries: HistoryEntry[] = [];
  let horizon = compactedThrough;
  return {
    append: (entry) => {
      entries.push(entry);
      if (entries.length > capacity) {
        const dropped = entries.splice(0, entries.length - capacity);
        horizon = Math.max(horizon, dropped[dropped.length - 1]?.resourceVersion ?? horizon);
      }
    },
    since: (resourceVersion) =>
      resourceVersion < horizon ? undefined : entries.filter((entry) => entry.resourceVersion > resourceVersion),
    compact: (resourceVersion) => {
      horizon = Math.max(horizon, resourceVersion);
      entries = entries.filter((entry) => entry.resourceVersion > resourceVersion);
    },
  };
};
