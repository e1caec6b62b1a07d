/**
 * `?watch=1` on a collection: the memory cluster's watch as a stream of JSON lines
 * (`{"type":…,"object":…}`), bookmarks as objects carrying only `metadata.resourceVersion`, and
 * a failure once the watch serves (410 Gone for a too-old resourceVersion, an expired stream) as an ERROR event with
 * a `Status`, then the end of the stream — what kube-apiserver sends once it has answered 200. A failure before the
 * watch serves (an injected 500, 429 or 503 on the request) is the request's HTTP answer, as kube-apiserver's: the
 * 200 is sent only when the watch starts serving.
 * An API-server restart cuts the connection instead (no ERROR event, no clean end), as a real
 * restart does; the client's next watch from its old resourceVersion then gets the 410.
 * `sendInitialEvents=true` (client-go's watch-list, on by default since 1.34: kubectl wait,
 * informers) starts with an ADDED event per object listed, then a BOOKMARK annotated
 * `k8s.io/initial-events-end: "true"` at the list's resourceVersion, then the changes after it.
 */
import type { ServerResponse } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import type { JsonObject } from '../../../core/json/json.js';
import type { Clock, Cluster, WatchEvent, WatchHandle } from '../../../core/ports/cluster.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import type { ConnectionSink } from '../watch/index.js';
import type { KindAt } from './api-routes.js';
import { matchesFields, parseFieldSelector, type FieldSelector } from './list-query.js';
import { statusBody } from './status-response.js';
import { sendError } from './http-answers.js';
import { defined } from '../../../core/json/defined.js';

export type WatchRequest = {
  readonly kind: KindAt;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly labelSelector?: string;
  readonly fieldSelector: FieldSelector;
  readonly allowBookmarks: boolean;
  /** Watch-list: the objects as ADDED events, then the initial-events-end bookmark. */
  readonly sendInitialEvents: boolean;
  /** The server ends the stream after this long (0: never), as kube-apiserver does. */
  readonly timeoutMs: number;
};

const flag = (value: string | null): boolean => value === 'true' || value === '1';

export const isWatchRequest = (query: URLSearchParams): boolean => flag(query.get('watch'));

/** The watch a collection request asks for (`?watch=1&resourceVersion=…&labelSelector=…`). */
export const watchRequestOf = (
  kind: KindAt,
  namespace: string | undefined,
  query: URLSearchParams,
): E.Either<ClusterError, WatchRequest> => {
  const resourceVersion = query.get('resourceVersion');
  const labelSelector = query.get('labelSelector');
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '0');
  return E.map((fieldSelector: FieldSelector): WatchRequest => ({
    kind,
    fieldSelector,
    allowBookmarks: flag(query.get('allowWatchBookmarks')),
    sendInitialEvents: flag(query.get('sendInitialEvents')),
    timeoutMs: Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds * 1000 : 0,
    ...defined({ namespace }),
    ...(resourceVersion === null ? {} : { resourceVersion }),
    ...(labelSelector === null ? {} : { labelSelector }),
  }))(parseFieldSelector(query.get('fieldSelector'), `${kind.group}/${kind.kind}`));
};

/**
 * Where the stream goes: `serving` when the watch starts serving, one call per line, then `end` (or `cut`: the
 * connection drops) exactly once; or, before any of them, `refuse`: the request's HTTP answer is the error.
 */
export type LineSink = {
  serving(): void;
  line(json: JsonObject): void;
  end(): void;
  cut(): void;
  /** Answers the request with `error`'s status; false once the 200 went out (the error is then an ERROR event). */
  refuse(error: ClusterError): boolean;
};

const bookmarkLine = (kind: KindAt, resourceVersion: string, initialEventsEnd = false): JsonObject => ({
  type: 'BOOKMARK',
  object: {
    kind: kind.kind,
    apiVersion: kind.apiVersion,
    metadata: initialEventsEnd
      ? { resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } }
      : { resourceVersion },
  },
});

const lineOf = (event: WatchEvent, kind: KindAt): JsonObject =>
  event.type === 'BOOKMARK' ? bookmarkLine(kind, event.resourceVersion) : { type: event.type, object: event.object };

/** Starts the stream; the returned handle stops it when the client goes away. */
const streamWatch = (cluster: Cluster, request: WatchRequest, sink: LineSink): WatchHandle => {
  const connection: ConnectionSink = {
    event: (event) => {
      // metadata.name and metadata.namespace never change, so a field selector has no transitions.
      if (event.type !== 'BOOKMARK' && !matchesFields(request.fieldSelector, event.object)) return;
      sink.line(lineOf(event, request.kind));
    },
    closed: (error?: ClusterError) => {
      // A too-old resourceVersion is answered in the stream (kube-apiserver's 200, then ERROR 410), whenever it is.
      if (error !== undefined && error.code !== 410 && sink.refuse(error)) return;
      if (error !== undefined)
        sink.line({ type: 'ERROR', object: statusBody(error.code === 0 ? { ...error, code: 503 } : error) });
      sink.end();
    },
    connectionLost: () => sink.cut(),
    serverPicksTimeout: request.timeoutMs === 0,
    serving: () => sink.serving(),
  };
  return cluster.watch(
    {
      apiVersion: request.kind.apiVersion,
      kind: request.kind.kind,
      ...defined({
        namespace: request.namespace,
        resourceVersion: request.resourceVersion,
        labelSelector: request.labelSelector,
      }),
      allowBookmarks: request.allowBookmarks,
    },
    connection,
  );
};

/**
 * Watch-list: lists, sends each object as ADDED (the field selector applied) and the
 * initial-events-end bookmark, then calls `then` with the list's resourceVersion to watch from;
 * a failed list ends the stream with its ERROR event.
 */
const sendInitialEvents = async (
  cluster: Cluster,
  request: WatchRequest,
  sink: LineSink,
  then: (resourceVersion: string) => void,
): Promise<void> => {
  const listed = await cluster.list({
    apiVersion: request.kind.apiVersion,
    kind: request.kind.kind,
    ...defined({ namespace: request.namespace, labelSelector: request.labelSelector }),
  })();
  if (E.isLeft(listed)) {
    sink.line({ type: 'ERROR', object: statusBody(listed.left) });
    return sink.end();
  }
  for (const object of listed.right.items)
    if (matchesFields(request.fieldSelector, object)) sink.line({ type: 'ADDED', object });
  sink.line(bookmarkLine(request.kind, listed.right.resourceVersion, true));
  then(listed.right.resourceVersion);
};

/** Where a stream stands: ended (once, by whichever comes first), and the parts to stop when it ends. */
type StreamEnd = {
  ended: boolean;
  upstream?: WatchHandle;
  cancelTimeout?: () => void;
};

/**
 * The response as a LineSink. The 200 goes out when the watch serves (clients count a watch as established when the
 * headers arrive), or with its first line or its end; until then a failure is answered with its own status.
 */
const responseSink = (
  response: ServerResponse,
  transform: (line: JsonObject) => JsonObject,
  stream: StreamEnd,
): LineSink => {
  const finish = (close: () => void): void => {
    if (stream.ended) return;
    stream.ended = true;
    stream.cancelTimeout?.();
    stream.upstream?.stop();
    close();
  };
  const sendHeaders = (): void => {
    if (response.headersSent) return;
    response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
  };
  return {
    serving: () => {
      if (!stream.ended) sendHeaders();
    },
    line: (json) => {
      if (stream.ended) return;
      sendHeaders();
      response.write(`${JSON.stringify(transform(json))}\n`);
    },
    end: () => finish(() => (sendHeaders(), response.end())),
    cut: () => finish(() => response.destroy()),
    refuse: (error) => {
      if (response.headersSent) return false;
      finish(() => sendError(response, error));
      return true;
    },
  };
};

/**
 * Streams (each event as `transform` makes it: a Table row for `kubectl get -w`) until the cluster ends the watch, the
 * timeout passes on `clock`, the client goes away or the returned handle is stopped (server shutdown).
 */
export const serveWatch = (
  cluster: Cluster,
  clock: Clock,
  request: WatchRequest,
  response: ServerResponse,
  transform: (line: JsonObject) => JsonObject = (line) => line,
): WatchHandle => {
  const stream: StreamEnd = { ended: false };
  const sink = responseSink(response, transform, stream);
  const watchFrom = (from: WatchRequest): void => {
    stream.upstream = streamWatch(cluster, from, sink);
    if (stream.ended) stream.upstream.stop();
  };
  if (request.sendInitialEvents)
    void sendInitialEvents(cluster, request, sink, (resourceVersion) => {
      if (!stream.ended) watchFrom({ ...request, resourceVersion });
    });
  else watchFrom(request);
  const end = (): void => sink.end();
  response.on('close', end);
  if (request.timeoutMs > 0) stream.cancelTimeout = clock.setTimer(request.timeoutMs, end);
  return { stop: end };
};
