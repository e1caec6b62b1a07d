/**
 * The memory HTTP server's route table: what a request's path addresses (api-routes.ts) picks one
 * handler, and a resource request is answered by the handler of its verb (resource-requests.ts).
 * OpenAPI documents and access reviews are served by their own paths first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { isJsonObject, parseJsonText, type JsonValue } from '../../../core/json/json.js';
import type { Cluster, WatchHandle } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { MemoryCluster } from '../memory-cluster.js';
import { routeOf, type ApiRoute, type KindAt } from './api-routes.js';
import {
  apiGroupDocument,
  coreVersionsDocument,
  groupListDocument,
  resourceListDocument,
  versionDocument,
} from './discovery-documents.js';
import { accessReviewOf, answerAccessReview, type AccessReview } from './access-review.js';
import { jsonBody, mediaType, sendError, sendJson, sendText } from './http-answers.js';
import { openApiAnswer, openApiRouteOf, type OpenApiRoute } from './openapi-documents.js';
import { answerResourceRequest, type Answer, type ResourceRequest } from './resource-requests.js';
import { answerScale } from './scale-subresource.js';
import { builtinPrinter } from './printers/index.js';
import { crdPrinter, crdPrinterColumns, tableEvents, tableOf, wantsTable, type Printer } from './table-response.js';
import { notServed } from './status-response.js';
import { isWatchRequest, serveWatch, watchRequestOf } from './watch-stream.js';
import { defined } from '../../../core/json/defined.js';

/**
 * What the server needs from the memory cluster: the port, its kinds (discovery) and its clock (watch timeouts, the
 * Date header).
 */
export type ServableCluster = Cluster & Pick<MemoryCluster, 'servedKinds' | 'clock'>;

/** What every handler shares: the cluster served and the watch streams open (ended by `close()`). */
export type ServerParts = { readonly cluster: ServableCluster; readonly watches: Set<WatchHandle> };

/** One request past the front door (origin, credentials, body size), its body read. */
export type Exchange = {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  readonly method: string;
  readonly body: Buffer;
};

type Handler<R> = (server: ServerParts, exchange: Exchange, route: R) => Promise<void>;
type RouteByType = { readonly [R in ApiRoute as R['type']]: R };
type ResourceRoute = RouteByType['collection' | 'object'];

/**
 * etcd's default request limit (1.5 MiB), which bounds every stored object: kube-apiserver passes
 * etcd's refusal on as 500 "etcdserver: request is too large". Measured here on the JSON object
 * created or written (etcd measures the protobuf encoding, which is usually somewhat smaller).
 */
const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** A watch on an object path (the deprecated form) is a watch on its collection selecting the name. */
const withNameSelector = (query: URLSearchParams, name: string): URLSearchParams => {
  const next = new URLSearchParams(query);
  next.set(
    'fieldSelector',
    [query.get('fieldSelector'), `metadata.name=${name}`].filter((s) => s !== null && s !== '').join(','),
  );
  return next;
};

/** The printer columns of a custom resource's CRD at the version read; none for a built-in kind. */
const printerOf = async (cluster: Cluster, kind: KindAt): Promise<Printer> => {
  const builtin = builtinPrinter(kind.group, kind.version, kind.plural, kind.kind);
  if (!kind.custom) return builtin;
  const crd = await cluster.get({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: `${kind.plural}.${kind.group}`,
  })();
  return crdPrinter(E.isRight(crd) && O.isSome(crd.right) ? crdPrinterColumns(crd.right.value, kind.version) : []);
};

/**
 * etcd's refusal of an object over its limit, which comes after validation: a create or update
 * with a larger body is tried as a dry run first, and its own error (422 for ConfigMap data over
 * 1 MiB, …) wins. Bodies under the limit are not tried twice.
 */
const storageRefusal = async (
  cluster: Cluster,
  resourceRequest: ResourceRequest,
): Promise<ClusterError | undefined> => {
  if (resourceRequest.method !== 'POST' && resourceRequest.method !== 'PUT') return undefined;
  if (Buffer.byteLength(resourceRequest.body) <= MAX_OBJECT_BYTES) return undefined;
  const query = new URLSearchParams(resourceRequest.query);
  query.set('dryRun', 'All');
  const tried = await answerResourceRequest(cluster, { ...resourceRequest, query })();
  return E.isLeft(tried) ? tried.left : clusterError('Internal', 'etcdserver: request is too large');
};

/** `?watch=true` on a collection or an object: a stream of events (as a Table with `Accept: …;as=Table`). */
const startWatch: Handler<ResourceRoute> = async ({ cluster, watches }, { request, response, url }, route) => {
  if (route.type === 'object' && route.subresource !== undefined) return sendError(response, notServed());
  const query = url.searchParams;
  const watchRequest = watchRequestOf(
    route.kind,
    route.namespace,
    route.type === 'object' ? withNameSelector(query, route.name) : query,
  );
  if (E.isLeft(watchRequest)) return sendError(response, watchRequest.left, route.kind);
  const printer = wantsTable(request.headers.accept) ? await printerOf(cluster, route.kind) : undefined;
  const transform =
    printer === undefined ? undefined : tableEvents(printer, query.get('includeObject'), () => cluster.clock.now());
  const watch = serveWatch(cluster, cluster.clock, watchRequest.right, response, transform);
  watches.add(watch);
  response.on('close', () => watches.delete(watch));
};

/** A resource answer as JSON, or as a Table when a GET asks for one (`Accept: …;as=Table`). */
const sendAnswer = async (
  { cluster }: ServerParts,
  { request, response, url, method }: Exchange,
  kind: KindAt,
  answer: Answer,
): Promise<void> => {
  if (method !== 'GET' || !wantsTable(request.headers.accept) || !isJsonObject(answer.body))
    return sendJson(response, answer.code, answer.body);
  const table = tableOf(
    answer.body,
    await printerOf(cluster, kind),
    url.searchParams.get('includeObject'),
    cluster.clock.now(),
  );
  return sendJson(response, answer.code, table);
};

/** A collection or an object: a watch, or the verb's handler (resource-requests.ts) after the storage limit. */
const resourceRoute: Handler<ResourceRoute> = async (server, exchange, route) => {
  const { request, response, url, method } = exchange;
  if (method === 'GET' && isWatchRequest(url.searchParams)) return startWatch(server, exchange, route);
  const body = jsonBody(method, mediaType(request.headers['content-type']), exchange.body);
  if (E.isLeft(body)) return sendError(response, body.left, route.kind);
  const resourceRequest: ResourceRequest = {
    method,
    target: route,
    query: url.searchParams,
    body: body.right.text,
    contentType: body.right.contentType,
    ...defined({ userAgent: request.headers['user-agent'] }),
  };
  const tooLarge = await storageRefusal(server.cluster, resourceRequest);
  if (tooLarge !== undefined) return sendError(response, tooLarge, route.kind);
  const answer = await answerResourceRequest(server.cluster, resourceRequest)();
  if (E.isLeft(answer)) return sendError(response, answer.left, route.kind);
  return sendAnswer(server, exchange, route.kind, answer.right);
};

const scaleRoute: Handler<RouteByType['scale']> = async ({ cluster }, { request, response, method, body }, route) => {
  const scaled = await answerScale(
    cluster,
    { method, contentType: mediaType(request.headers['content-type']), body: body.toString('utf8') },
    route,
  );
  return E.isLeft(scaled) ? sendError(response, scaled.left, route.kind) : sendJson(response, 200, scaled.right);
};

type DiscoveryRoute = RouteByType['version' | 'coreVersions' | 'groups' | 'group' | 'resources'];

/** The discovery document at `route`; undefined when its group (or version) is not served. */
const discoveryDocument = (route: DiscoveryRoute, cluster: ServableCluster, host: string): JsonValue | undefined => {
  switch (route.type) {
    case 'version':
      return versionDocument();
    case 'coreVersions':
      return coreVersionsDocument(host);
    case 'groups':
      return groupListDocument(cluster.servedKinds());
    case 'group':
      return apiGroupDocument(cluster.servedKinds(), route.group);
    case 'resources':
      return resourceListDocument(cluster.servedKinds(), route.group, route.version);
  }
};

/** Discovery is down with the rest of the server: the port's Discovery answers the outage. */
const discoveryRoute: Handler<DiscoveryRoute> = async ({ cluster }, { request, response, method }, route) => {
  const up = await cluster.scopeOf('v1', 'Namespace')();
  if (E.isLeft(up)) return sendError(response, up.left);
  const document =
    method === 'GET' ? discoveryDocument(route, cluster, request.headers.host ?? '127.0.0.1') : undefined;
  return document === undefined ? sendError(response, notServed()) : sendJson(response, 200, document);
};

/** One handler for each kind of path. */
const ROUTES: { readonly [T in keyof RouteByType]: Handler<RouteByType[T]> } = {
  health: (_server, { response }) => Promise.resolve(sendText(response, 'ok')),
  unknown: (_server, { response }) => Promise.resolve(sendError(response, notServed())),
  version: discoveryRoute,
  coreVersions: discoveryRoute,
  groups: discoveryRoute,
  group: discoveryRoute,
  resources: discoveryRoute,
  collection: resourceRoute,
  object: resourceRoute,
  scale: scaleRoute,
};

const dispatch = <T extends keyof RouteByType>(
  server: ServerParts,
  exchange: Exchange,
  route: RouteByType[T] & { readonly type: T },
): Promise<void> => ROUTES[route.type](server, exchange, route);

const serveOpenApi = async (
  { cluster }: ServerParts,
  { response, method }: Exchange,
  route: OpenApiRoute,
): Promise<void> => {
  if (method !== 'GET') return sendError(response, notServed());
  const document = await openApiAnswer(cluster, cluster.servedKinds(), route)();
  if (E.isLeft(document)) return sendError(response, document.left);
  return document.right === undefined ? sendError(response, notServed()) : sendJson(response, 200, document.right);
};

const answerReview = ({ request, response, method, body: bytes }: Exchange, review: AccessReview): void => {
  if (method !== 'POST') return sendError(response, notServed());
  const body = jsonBody('POST', mediaType(request.headers['content-type']), bytes);
  if (E.isLeft(body)) return sendError(response, body.left);
  const parsed = E.tryCatch(
    () => parseJsonText(body.right.text),
    () => undefined,
  );
  if (E.isLeft(parsed)) return sendError(response, clusterError('BadRequest', 'the request body is not JSON'));
  sendJson(response, 201, answerAccessReview(review, parsed.right));
};

/** Answers one request that passed the front door. */
export const respond = async (server: ServerParts, exchange: Exchange): Promise<void> => {
  const openApi = openApiRouteOf(exchange.url.pathname.split('/').filter((segment) => segment !== ''));
  if (openApi !== undefined) return serveOpenApi(server, exchange, openApi);
  const review = accessReviewOf(exchange.url.pathname);
  if (review !== undefined) return answerReview(exchange, review);
  return dispatch(server, exchange, routeOf(exchange.url.pathname, server.cluster.servedKinds()));
};
