/**
 * WatchSource on the client's `Watch`: one logical stream per call that survives idle
 * timeouts, server-side closes, dropped connections and apiserver restarts by resuming from
 * the last resourceVersion it delivered, and closes only when resuming cannot work.
 *
 * Guarantees: events arrive in server order, each at most once per connection; after `stop()`
 * nothing is delivered and `closed` is not called. Errors: `closed(Gone)` when the version is
 * too old (relist, then watch again); `closed(UnknownKind)` when the kind stopped being served (a 404,
 * discovery asked again); `closed(e)` for other non-retryable answers (403, 404, 400…).
 * A handler that throws does not end the stream; the exception goes to `onHandlerError`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import * as E from 'fp-ts/lib/Either.js';
import type { WatchEvent, WatchHandle, WatchQuery, WatchSink } from '../../core/ports/cluster.js';
import type { ClusterError } from '../../core/ports/errors.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { recheckKind, type KindResolver } from './discovery.js';
import { throttledWatch, type FlowControl } from './flow-control.js';
import { collectionPath } from './resource-paths.js';
import { realSetTimer, type SetTimer } from './timers.js';
import { openConnection, type Connection, type ConnectionEnd } from './watch-connection.js';

export type WatchOptions = {
  readonly backoff?: BackoffOptions;
  /** Where exceptions thrown by a sink go (default: console.error); the stream goes on. */
  readonly onHandlerError?: (error: unknown) => void;
  readonly setTimer?: SetTimer;
};

/** Failures worth another connection: the server or the network may come back. */
const transient = (error: ClusterError): boolean =>
  error.code === 0 || ['Unavailable', 'Timeout', 'Internal', 'TooManyRequests'].includes(error._tag);

const versionOf = (event: WatchEvent): string | undefined =>
  event.type === 'BOOKMARK' ? event.resourceVersion : event.object.metadata.resourceVersion;

// A connection that ends this fast without any event is a failure in disguise (e.g. a proxy
// closing at once); reconnecting immediately would spin.
const minHealthyConnectionMs = 1_000;

type Deps = { readonly kubeConfig: KubeConfig; readonly kinds: KindResolver; readonly flow?: FlowControl };

export const createWatchSource = (deps: Deps, options: WatchOptions = {}) => {
  const watch =
    deps.flow === undefined ? new Watch(deps.kubeConfig) : throttledWatch(new Watch(deps.kubeConfig), deps.flow);
  const setTimer = options.setTimer ?? realSetTimer;
  const onHandlerError =
    options.onHandlerError ?? ((error: unknown) => console.error('kreconcile: watch handler threw', error));

  return (query: WatchQuery, sink: WatchSink): WatchHandle => {
    let stopped = false;
    let resourceVersion = query.resourceVersion;
    let failures = 0;
    let connection: Connection | undefined;
    let cancelTimer: (() => void) | undefined;

    const guarded = (call: () => void): void => {
      try {
        call();
      } catch (error) {
        onHandlerError(error);
      }
    };
    const close = (error?: ClusterError): void => {
      if (stopped) return;
      stopped = true;
      guarded(() => sink.closed(error));
    };
    // A watch's 404 names no object: the collection is not served (its CRD was deleted). Discovery
    // forgets the group/version and is asked again, so the close says UnknownKind when the kind is gone
    // and the caller relists (a relist of a kind that is back finds it at once).
    const closeUnserved = (error: ClusterError): void => {
      void recheckKind(deps.kinds, query, error).then((checked) => close(checked));
    };
    const retryLater = (): void => {
      const delay = backoffDelay(failures, options.backoff);
      failures += 1;
      cancelTimer = setTimer(delay, () => {
        cancelTimer = undefined;
        connect();
      });
    };
    const onEnd =
      (startedAt: number, sawEvent: () => boolean) =>
      (end: ConnectionEnd): void => {
        connection = undefined;
        if (stopped) return;
        if (end.type === 'ended') {
          if (sawEvent() || Date.now() - startedAt >= minHealthyConnectionMs) connect();
          else retryLater();
        } else if (end.error._tag === 'Gone') close(end.error);
        else if (transient(end.error)) retryLater();
        else if (end.error._tag === 'NotFound') closeUnserved(end.error);
        else close(end.error);
      };
    const open = (path: string): void => {
      const startedAt = Date.now();
      let sawEvent = false;
      connection = openConnection(
        watch,
        path,
        {
          resourceVersion,
          allowWatchBookmarks: query.allowBookmarks,
          labelSelector: query.labelSelector,
        },
        query,
        {
          established: () => {
            failures = 0;
          },
          event: (event) => {
            if (stopped) return;
            sawEvent = true;
            failures = 0;
            resourceVersion = versionOf(event) ?? resourceVersion;
            guarded(() => sink.event(event));
          },
          end: onEnd(startedAt, () => sawEvent),
        },
      );
    };
    const connect = (): void => {
      if (stopped) return;
      void deps.kinds
        .resolve(query.apiVersion, query.kind)()
        .then((info) => {
          if (stopped) return;
          if (E.isRight(info)) open(collectionPath(info.right, query.namespace));
          else if (transient(info.left)) retryLater();
          else close(info.left);
        });
    };

    connect();
    return {
      stop: () => {
        if (stopped) return;
        stopped = true;
        cancelTimer?.();
        connection?.abort();
      },
    };
  };
};
