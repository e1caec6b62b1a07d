/**
 * watch: from a resourceVersion (the changes after it; 410 Gone when they are no longer kept),
 * or without one — starting with synthetic ADDED events for what exists, then the changes, as
 * kube-apiserver does for an unset or `0` resourceVersion.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { WatchEvent, WatchQuery } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { groupKindKey, type KindInfo } from '../kinds/index.js';
import { eventFor, initialEvents, parseSelector, type PendingWatch, type WatchScope } from '../watch/index.js';
import { objectsOfKind, type ServerState } from '../server-state.js';

const scopeFor = (info: KindInfo, query: WatchQuery): E.Either<ClusterError, WatchScope> =>
  pipe(
    parseSelector(query.labelSelector),
    E.map((selector) => ({
      groupKind: groupKindKey(info.group, info.kind),
      apiVersion: query.apiVersion,
      selector,
      ...(info.scope === 'Namespaced' && query.namespace !== undefined ? { namespace: query.namespace } : {}),
    })),
  );

const startingEvents = (
  state: ServerState,
  info: KindInfo,
  scope: WatchScope,
  resourceVersion: string | undefined,
): E.Either<ClusterError, ReadonlyArray<WatchEvent>> => {
  if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') {
    return E.right(initialEvents(scope, objectsOfKind(state, info, scope.namespace)));
  }
  if (!/^\d+$/.test(resourceVersion))
    return E.left(clusterError('BadRequest', `invalid resource version "${resourceVersion}"`));
  const entries =
    Number(resourceVersion) < (info.watchCacheFrom ?? 0) ? undefined : state.history.since(Number(resourceVersion));
  if (entries === undefined) {
    return E.left(
      clusterError('Gone', `too old resource version: ${resourceVersion} (${state.resourceVersion})`, { code: 410 }),
    );
  }
  return E.right(entries.flatMap((entry) => eventFor(scope, entry) ?? []));
};

/** Resolves the query and starts (or fails) the pending watch; atomic with respect to writes. */
export const startWatch = (state: ServerState, query: WatchQuery, pending: PendingWatch): void => {
  const started = pipe(
    E.Do,
    E.bind('info', () => state.registry.resolve(query.apiVersion, query.kind)),
    E.bind('scope', ({ info }) => scopeFor(info, query)),
    E.bind('initial', ({ info, scope }) => startingEvents(state, info, scope, query.resourceVersion)),
  );
  if (E.isLeft(started)) pending.fail(started.left);
  else
    pending.start(started.right.scope, started.right.initial, {
      allowBookmarks: query.allowBookmarks === true,
      group: started.right.info.group,
      kind: started.right.info.kind,
    });
};
