/** Watches: label selectors, the change log's entries, which event a change is for a watcher, pending watches. */
export type { ChangeType, HistoryEntry } from './event-history.js';
export { matchesSelector, parseSelector } from './label-selector.js';
export { eventFor, initialEvents, type WatchScope } from './watch-filter.js';
export type { PendingWatch, ConnectionSink, EventFaults } from './watch-hub.js';
