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

/** What every stream of one source shares: the client's Watch, discovery, the timers and where handler errors go. */
type Source = {
  readonly deps: Deps;
  readonly watch: Watch;
  readonly setTimer: SetTimer;
  readonly backoff: BackoffOptions | undefined;
  /** Runs a sink's handler; an exception goes to `onHandlerError`, the stream goes on. */
  readonly guarded: (call: () => void) => void;
};

/** One logical stream: where it resumes from, how often it failed in a row, its connection or its retry timer. */
type Stream = {
  readonly query: WatchQuery;
  readonly sink: WatchSink;
  stopped: boolean;
  resourceVersion: string | undefined;
  failures: number;
  connection: Connection | undefined;
  cancelTimer: (() => void) | undefined;
};

const close = (source: Source, stream: Stream, error?: ClusterError): void => {
  if (stream.stopped) return;
  stream.stopped = true;
  source.guarded(() => stream.sink.closed(error));
};

// A watch's 404 names no object: the collection is not served (its CRD was deleted). Discovery
// forgets the group/version and is asked again, so the close says UnknownKind when the kind is gone
// and the caller relists (a relist of a kind that is back finds it at once).
const closeUnserved = (source: Source, stream: Stream, error: ClusterError): void => {
  void recheckKind(source.deps.kinds, stream.query, error).then((checked) => close(source, stream, checked));
};

const retryLater = (source: Source, stream: Stream): void => {
  const delay = backoffDelay(stream.failures, source.backoff);
  stream.failures += 1;
  stream.cancelTimer = source.setTimer(delay, () => {
    stream.cancelTimer = undefined;
    connect(source, stream);
  });
};

/** A connection ended: resume, retry later, or close the stream with why. */
const onEnd =
  (source: Source, stream: Stream, startedAt: number, sawEvent: () => boolean) =>
  (end: ConnectionEnd): void => {
    stream.connection = undefined;
    if (stream.stopped) return;
    if (end.type === 'ended') {
      if (sawEvent() || Date.now() - startedAt >= minHealthyConnectionMs) connect(source, stream);
      else retryLater(source, stream);
    } else if (end.error._tag === 'Gone') close(source, stream, end.error);
    else if (transient(end.error)) retryLater(source, stream);
    else if (end.error._tag === 'NotFound') closeUnserved(source, stream, end.error);
    else close(source, stream, end.error);
  };

const open = (source: Source, stream: Stream, path: string): void => {
  const { query } = stream;
  const startedAt = Date.now();
  let sawEvent = false;
  stream.connection = openConnection(
    source.watch,
    path,
    {
      resourceVersion: stream.resourceVersion,
      allowWatchBookmarks: query.allowBookmarks,
      labelSelector: query.labelSelector,
    },
    query,
    {
      established: () => {
        stream.failures = 0;
      },
      event: (event) => {
        if (stream.stopped) return;
        sawEvent = true;
        stream.failures = 0;
        stream.resourceVersion = versionOf(event) ?? stream.resourceVersion;
        source.guarded(() => stream.sink.event(event));
      },
      end: onEnd(source, stream, startedAt, () => sawEvent),
    },
  );
};

const connect = (source: Source, stream: Stream): void => {
  if (stream.stopped) return;
  void source.deps.kinds
    .resolve(stream.query.apiVersion, stream.query.kind)()
    .then((info) => {
      if (stream.stopped) return;
      if (E.isRight(info)) open(source, stream, collectionPath(info.right, stream.query.namespace));
      else if (transient(info.left)) retryLater(source, stream);
      else close(source, stream, info.left);
    });
};

export const createWatchSource = (deps: Deps, options: WatchOptions = {}) => {
  const onHandlerError =
    options.onHandlerError ?? ((error: unknown) => console.error('kreconcile: watch handler threw', error));
  const source: Source = {
    deps,
    watch: deps.flow === undefined ? new Watch(deps.kubeConfig) : throttledWatch(new Watch(deps.kubeConfig), deps.flow),
    setTimer: options.setTimer ?? realSetTimer,
    backoff: options.backoff,
    guarded: (call) => {
      try {
        call();
      } catch (error) {
        onHandlerError(error);
      }
    },
  };
  return (query: WatchQuery, sink: WatchSink): WatchHandle => {
    const stream: Stream = {
      query,
      sink,
      stopped: false,
      resourceVersion: query.resourceVersion,
      failures: 0,
      connection: undefined,
      cancelTimer: undefined,
    };
    connect(source, stream);
    return {
      stop: () => {
        if (stream.stopped) return;
        stream.stopped = true;
        stream.cancelTimer?.();
        stream.connection?.abort();
      },
    };
  };
};
