/**
 * One HTTP watch request on the client's `Watch`: events decoded into the port's WatchEvent,
 * and exactly one end telling the caller whether to resume, relist (Gone) or give up.
 */
import type { Watch } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { getIn, type JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import type { WatchEvent } from '../../core/ports/cluster.js';
import type { ClusterError } from '../../core/ports/errors.js';
import { statusError, toClusterError } from './api-errors.js';
import { toResource } from './response-decoding.js';

export type ConnectionEnd =
  /** The stream ended without an error (server timeout, client idle timeout): resume from the last version. */
  { readonly type: 'ended' } | { readonly type: 'failed'; readonly error: ClusterError };

export type ConnectionHandlers = {
  event(event: WatchEvent): void;
  /** The server answered 200: the watch is established. */
  established(): void;
  end(end: ConnectionEnd): void;
};

export type WatchParams = {
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  readonly labelSelector?: string;
};

export type Connection = { abort(): void };

type TypeMeta = { readonly apiVersion: string; readonly kind: string };

const decodeEvent = (
  type: string,
  object: JsonValue,
  meta: TypeMeta,
): E.Either<ClusterError, WatchEvent | undefined> => {
  if (type === 'BOOKMARK') {
    const resourceVersion = getIn(object, ['metadata', 'resourceVersion']);
    return E.right(typeof resourceVersion === 'string' ? { type: 'BOOKMARK', resourceVersion } : undefined);
  }
  if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') {
    return E.map((resource: Resource): WatchEvent => ({ type, object: resource }))(toResource(object, meta));
  }
  if (type === 'ERROR') {
    // In-stream errors carry a Status; 410 Expired/Gone means the resourceVersion is too old.
    const code = getIn(object, ['code']);
    return E.left(statusError(typeof code === 'number' ? code : 500, object));
  }
  return E.right(undefined);
};

const isTimeout = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === 'TimeoutError';

/** Opens a watch on `path`. `abort()` ends it silently (no `end` callback afterwards). */
export const openConnection = (
  watch: Watch,
  path: string,
  params: WatchParams,
  meta: TypeMeta,
  handlers: ConnectionHandlers,
): Connection => {
  let finished = false;
  let controller: AbortController | undefined;
  const finish = (end: ConnectionEnd | undefined): void => {
    if (finished) return;
    finished = true;
    controller?.abort();
    if (end) handlers.end(end);
  };
  const onEvent = (type: string, object: unknown): void => {
    if (finished) return;
    // The watch stream's objects are parsed JSON lines: JSON values (toResource checks the shape).
    const decoded = decodeEvent(type, object as JsonValue, meta);
    if (E.isLeft(decoded)) finish({ type: 'failed', error: decoded.left });
    else if (decoded.right) handlers.event(decoded.right);
  };
  const onDone = (error: unknown): void => {
    if (error === null || error === undefined || isTimeout(error)) finish({ type: 'ended' });
    else finish({ type: 'failed', error: toClusterError(error) });
  };
  watch.watch(path, { ...params }, onEvent, onDone).then(
    (answer) => {
      controller = answer;
      if (finished) answer.abort();
      else handlers.established();
    },
    (error: unknown) => finish({ type: 'failed', error: toClusterError(error) }),
  );
  return { abort: () => finish(undefined) };
};
