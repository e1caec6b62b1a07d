/**
 * `?watch=1` on a collection: the memory cluster's watch as a stream of JSON lines
 * (`{"type":…,"object":…}`), bookmarks as objects carrying only `metadata.resourceVersion`, and
 * a failure (410 Gone for a too-old resourceVersion, an injected fault) as an ERROR event with
 * a `Status`, then the end of the stream — what kube-apiserver sends once it has answered 200.
 */
import type { JsonObject } from '../../../core/json/json.js';
import type { Cluster, WatchEvent, WatchHandle } from '../../../core/ports/cluster.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import type { KindAt } from './api-routes.js';
import { matchesFields, type FieldSelector } from './list-query.js';
import { statusBody } from './status-response.js';

export type WatchRequest = {
  readonly kind: KindAt;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly labelSelector?: string;
  readonly fieldSelector: FieldSelector;
  readonly allowBookmarks: boolean;
};

/** Where the stream goes: one call per line, then `end` exactly once. */
export type LineSink = {
  line(json: JsonObject): void;
  end(): void;
};

const lineOf = (event: WatchEvent, kind: KindAt): JsonObject => (event.type === 'BOOKMARK'
  ? { type: 'BOOKMARK', object: { kind: kind.kind, apiVersion: kind.apiVersion, metadata: { resourceVersion: event.resourceVersion } } }
  : { type: event.type, object: event.object });

/** Starts the stream; the returned handle stops it when the client goes away. */
export const streamWatch = (cluster: Cluster, request: WatchRequest, sink: LineSink): WatchHandle => cluster.watch({
  apiVersion: request.kind.apiVersion, kind: request.kind.kind,
  ...(request.namespace === undefined ? {} : { namespace: request.namespace }),
  ...(request.resourceVersion === undefined ? {} : { resourceVersion: request.resourceVersion }),
  ...(request.labelSelector === undefined ? {} : { labelSelector: request.labelSelector }),
  allowBookmarks: request.allowBookmarks,
}, {
  event: (event) => {
    // metadata.name and metadata.namespace never change, so a field selector has no transitions.
    if (event.type !== 'BOOKMARK' && !matchesFields(request.fieldSelector, event.object)) return;
    sink.line(lineOf(event, request.kind));
  },
  closed: (error?: ClusterError) => {
    if (error !== undefined) sink.line({ type: 'ERROR', object: statusBody(error.code === 0 ? { ...error, code: 503 } : error) });
    sink.end();
  },
});
