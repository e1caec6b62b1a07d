/**
 * Which watch event one change is for one watcher (the watch cache's rules): outside the
 * namespace or kind, nothing; a change that makes an object enter the label selector is ADDED,
 * leave it is DELETED (the previous content at the change's resourceVersion).
 */
import { withKey } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { WatchEvent } from '../../../core/ports/cluster.js';
import type { HistoryEntry } from './event-history.js';
import { matchesSelector, type Selector } from './label-selector.js';
import { servedAs } from '../json/index.js';

export type WatchScope = {
  readonly groupKind: string;
  readonly apiVersion: string;
  /** Only this namespace; all when absent (and for cluster-scoped kinds). */
  readonly namespace?: string;
  readonly selector: Selector;
};

const inScope = (scope: WatchScope, object: Resource): boolean =>
  scope.namespace === undefined || object.metadata.namespace === scope.namespace;

const passes = (scope: WatchScope, object: Resource | undefined): boolean =>
  object !== undefined && inScope(scope, object) && matchesSelector(scope.selector, object.metadata.labels);

const atVersion = (object: Resource, resourceVersion: number): Resource =>
  withKey(object, 'metadata', withKey(object.metadata, 'resourceVersion', String(resourceVersion)));

export const eventFor = (scope: WatchScope, entry: HistoryEntry): WatchEvent | undefined => {
  if (entry.groupKind !== scope.groupKind) return undefined;
  const now = entry.type !== 'DELETED' && passes(scope, entry.object);
  const before = entry.type === 'DELETED' ? passes(scope, entry.object) : passes(scope, entry.previous);
  if (entry.type === 'DELETED')
    return before ? { type: 'DELETED', object: servedAs(entry.object, scope.apiVersion) } : undefined;
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: servedAs(entry.object, scope.apiVersion) };
  return before && entry.previous !== undefined
    ? { type: 'DELETED', object: servedAs(atVersion(entry.previous, entry.resourceVersion), scope.apiVersion) }
    : undefined;
};

/** The synthetic ADDED events a watch without a resourceVersion starts with. */
export const initialEvents = (scope: WatchScope, objects: ReadonlyArray<Resource>): ReadonlyArray<WatchEvent> =>
  objects
    .filter((object) => passes(scope, object))
    .map((object) => ({ type: 'ADDED', object: servedAs(object, scope.apiVersion) }));
