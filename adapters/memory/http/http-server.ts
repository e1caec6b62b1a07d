/**
 * The memory cluster served over HTTP on loopback as a Kubernetes API endpoint, so any client
 * (client-node, kubectl, client-go) talks to the kit's in-memory API server — with its faults,
 * which reach the client as the HTTP answers they stand for (409, 429 + Retry-After, 500, 504,
 * a dropped connection), and its clock. Binds 127.0.0.1 only; bounds request bodies; every
 * request needs the bearer token of the generated kubeconfig.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { isJsonObject, parseJsonText, type JsonObject, type JsonValue } from '../../../core/json/json.js';
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
import { kubeconfigYaml } from './kubeconfig.js';
import { accessReviewOf, answerAccessReview, type AccessReview } from './access-review.js';
import { openApiAnswer, openApiRouteOf, type OpenApiRoute } from './openapi-documents.js';
import { decodeProtobufBody, PROTOBUF_MEDIA_TYPE } from './protobuf-body.js';
import { answerResourceRequest, type ResourceRequest } from './resource-requests.js';
import { answerScale } from './scale-subresource.js';
import { builtinPrinter } from './printers/index.js';
import { crdPrinter, crdPrinterColumns, tableEvents, tableOf, wantsTable, type Printer } from './table-response.js';
import { errorAnswer, notServed } from './status-response.js';
import { isWatchRequest, serveWatch, watchRequestOf } from './watch-stream.js';

export type ServeOptions = {
  /** Port on 127.0.0.1 (default 0: any free port). */
  readonly port?: number;
  /** Largest request body accepted, in bytes (default 3 MiB, kube-apiserver's limit); larger answers 413. */
  readonly maxBodyBytes?: number;
  /**
   * `token` (default): every request needs the kubeconfig's bearer token (32 random bytes unless
   * `token` is given). `none`: no authentication — for kubectl and other client-go programs, which
   * do not send bearer tokens over plain HTTP; the endpoint still listens on loopback only.
   */
  readonly auth?: 'token' | 'none';
  readonly token?: string;
  /** Also write the kubeconfig to this file (mode 0600). */
  readonly kubeconfigPath?: string;
  /** Host names besides the loopback ones (`127.0.0.1`, `localhost`, `[::1]`) a request may name in `Host`. */
  readonly allowedHosts?: ReadonlyArray<string>;
};

export type ServedCluster = {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** A kubeconfig (YAML) for this endpoint: client-node's `loadFromString`, kubectl's `--kubeconfig`. */
  readonly kubeconfig: string;
  readonly kubeConfigPath?: string;
  /** Stops listening, ends watch streams and drops open connections. Idempotent. */
  close(): Promise<void>;
  /**
   * Leaves the endpoint up, its connections open, without keeping the process alive: how a run
   * ends when its client cannot be stopped (an in-process controller, whose requests the kit then
   * never answers). `close()` still closes it.
   */
  abandon(): void;
};

/** What the server needs from the memory cluster: the port, its kinds (discovery) and its clock (watch timeouts, the Date header). */
export type ServableCluster = Cluster & Pick<MemoryCluster, 'servedKinds' | 'clock'>;

const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * etcd's default request limit (1.5 MiB), which bounds every stored object: kube-apiserver passes
 * etcd's refusal on as 500 "etcdserver: request is too large". Measured here on the JSON object
 * created or written (etcd measures the protobuf encoding, which is usually somewhat smaller).
 */
const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

class BodyTooLarge extends Error {}

const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const sendJson = (
  response: ServerResponse,
  code: number,
  body: JsonValue,
  headers: Readonly<Record<string, string>> = {},
): void => {
  const text = JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
};

/** An error as the API server answers it; code 0 (network failure) drops the connection instead. */
const sendError = (response: ServerResponse, error: ClusterError, kind?: KindAt): void => {
  if (error.code === 0) {
    response.socket?.destroy();
    return;
  }
  const answer = errorAnswer(error, kind);
  sendJson(response, answer.code, answer.body, answer.headers);
};

/** A watch on an object path (the deprecated form) is a watch on its collection selecting the name. */
const withNameSelector = (query: URLSearchParams, name: string): URLSearchParams => {
  const next = new URLSearchParams(query);
  next.set(
    'fieldSelector',
    [query.get('fieldSelector'), `metadata.name=${name}`].filter((s) => s !== null && s !== '').join(','),
  );
  return next;
};

const sendText = (response: ServerResponse, text: string): void => {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
};

/** Compares a presented credential in constant time (another local process may probe the port). */
const sameSecret = (presented: string, expected: string): boolean => {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

const mediaType = (header: string | undefined): string => (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * The request body as text in a media type the verbs read: protobuf create and update bodies
 * (client-go's typed clients, e.g. `kubectl create namespace`) decoded to the JSON they stand for.
 */
const jsonBody = (
  method: string,
  contentType: string,
  bytes: Buffer,
): E.Either<ClusterError, { readonly text: string; readonly contentType: string }> => {
  if (contentType !== PROTOBUF_MEDIA_TYPE || (method !== 'POST' && method !== 'PUT'))
    return E.right({ text: bytes.toString('utf8'), contentType });
  return E.map((object: JsonObject) => ({ text: JSON.stringify(object), contentType: 'application/json' }))(
    decodeProtobufBody(bytes),
  );
};

const discoveryAnswer = (route: ApiRoute, cluster: ServableCluster, host: string): JsonValue | undefined => {
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
    default:
      return undefined;
  }
};

const LOOPBACK_HOSTS: ReadonlyArray<string> = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Why a request is refused before anything else, or `undefined`. A web page in the user's browser
 * can send requests to loopback: by a rebound DNS name (its `Host` is the attacker's name) or
 * cross-site (its `Origin` is the page's). kubectl and client libraries send neither a foreign
 * `Host` nor any `Origin`, so only those are refused (issue 37).
 */
export const browserRefusal = (
  headers: IncomingMessage['headers'],
  port: number,
  allowedHosts: ReadonlyArray<string> = [],
): string | undefined => {
  const host = (headers.host ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '');
  if (![...LOOPBACK_HOSTS, ...allowedHosts].includes(hostname))
    return `Host ${JSON.stringify(host.slice(0, 100))} is not this server's: it answers requests to 127.0.0.1, localhost or [::1] only (a browser page reaching it through a rebound DNS name is refused)`;
  const origin = headers.origin;
  const own = [...LOOPBACK_HOSTS, ...allowedHosts].map((name) => `http://${name}:${port}`);
  if (origin !== undefined && !own.includes(origin.toLowerCase()))
    return `cross-site request from Origin ${JSON.stringify(origin.slice(0, 100))} refused: web pages may not write to this server`;
  if (headers['sec-fetch-site'] === 'cross-site') return 'cross-site browser request refused';
  return undefined;
};

/** Serves `cluster` on 127.0.0.1 until `close()`. */
export const serveMemoryCluster = async (
  cluster: ServableCluster,
  options: ServeOptions = {},
): Promise<ServedCluster> => {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const watches = new Set<WatchHandle>();

  const startWatch = async (
    response: ServerResponse,
    route: Extract<ApiRoute, { type: 'collection' | 'object' }>,
    query: URLSearchParams,
    accept: string | undefined,
  ): Promise<void> => {
    if (route.type === 'object' && route.subresource !== undefined) return sendError(response, notServed());
    const request = watchRequestOf(
      route.kind,
      route.namespace,
      route.type === 'object' ? withNameSelector(query, route.name) : query,
    );
    if (E.isLeft(request)) return sendError(response, request.left, route.kind);
    const printer = wantsTable(accept) ? await printerOf(route.kind) : undefined;
    const transform =
      printer === undefined ? undefined : tableEvents(printer, query.get('includeObject'), () => cluster.clock.now());
    const watch = serveWatch(cluster, cluster.clock, request.right, response, transform);
    watches.add(watch);
    response.on('close', () => watches.delete(watch));
  };

  const authorised = (request: IncomingMessage): boolean =>
    options.auth === 'none' || sameSecret(request.headers.authorization ?? '', `Bearer ${token}`);

  /** The request body, or undefined once a 413 went out. */
  const bodyOf = async (request: IncomingMessage, response: ServerResponse): Promise<Buffer | undefined> => {
    try {
      return await readBody(request, limit);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      response.setHeader('Connection', 'close');
      sendError(response, clusterError('BadRequest', `Request entity too large: limit is ${limit}`, { code: 413 }));
      return undefined;
    }
  };

  const serveOpenApi = async (
    request: IncomingMessage,
    response: ServerResponse,
    route: OpenApiRoute,
  ): Promise<void> => {
    if (request.method !== 'GET') return sendError(response, notServed());
    const document = await openApiAnswer(cluster, cluster.servedKinds(), route)();
    if (E.isLeft(document)) return sendError(response, document.left);
    return document.right === undefined ? sendError(response, notServed()) : sendJson(response, 200, document.right);
  };

  const answerReview = (
    request: IncomingMessage,
    response: ServerResponse,
    review: AccessReview,
    bytes: Buffer,
  ): void => {
    if (request.method !== 'POST') return sendError(response, notServed());
    const body = jsonBody('POST', mediaType(request.headers['content-type']), bytes);
    if (E.isLeft(body)) return sendError(response, body.left);
    const parsed = E.tryCatch(
      () => parseJsonText(body.right.text),
      () => undefined,
    );
    if (E.isLeft(parsed)) return sendError(response, clusterError('BadRequest', 'the request body is not JSON'));
    sendJson(response, 201, answerAccessReview(review, parsed.right));
  };

  const respond = async (
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    bytes: Buffer,
  ): Promise<void> => {
    const openApi = openApiRouteOf(url.pathname.split('/').filter((segment) => segment !== ''));
    if (openApi !== undefined) return serveOpenApi(request, response, openApi);
    const review = accessReviewOf(url.pathname);
    if (review !== undefined) return answerReview(request, response, review, bytes);
    const route = routeOf(url.pathname, cluster.servedKinds());
    if (route.type === 'health') return sendText(response, 'ok');
    if (route.type === 'unknown') return sendError(response, notServed());
    if (route.type === 'scale') {
      const scaled = await answerScale(
        cluster,
        {
          method: request.method ?? 'GET',
          contentType: mediaType(request.headers['content-type']),
          body: bytes.toString('utf8'),
        },
        route,
      );
      return E.isLeft(scaled) ? sendError(response, scaled.left, route.kind) : sendJson(response, 200, scaled.right);
    }
    if (route.type !== 'collection' && route.type !== 'object') {
      // Discovery is down with the rest of the server: the port's Discovery answers the outage.
      const up = await cluster.scopeOf('v1', 'Namespace')();
      if (E.isLeft(up)) return sendError(response, up.left);
      const document =
        request.method === 'GET' ? discoveryAnswer(route, cluster, request.headers.host ?? '127.0.0.1') : undefined;
      return document === undefined ? sendError(response, notServed()) : sendJson(response, 200, document);
    }
    if (request.method === 'GET' && isWatchRequest(url.searchParams))
      return startWatch(response, route, url.searchParams, request.headers.accept);
    const body = jsonBody(request.method ?? 'GET', mediaType(request.headers['content-type']), bytes);
    if (E.isLeft(body)) return sendError(response, body.left, route.kind);
    const resourceRequest = {
      method: request.method ?? 'GET',
      target: route,
      query: url.searchParams,
      body: body.right.text,
      contentType: body.right.contentType,
      ...(request.headers['user-agent'] === undefined ? {} : { userAgent: request.headers['user-agent'] }),
    };
    const tooLarge = await storageRefusal(resourceRequest);
    if (tooLarge !== undefined) return sendError(response, tooLarge, route.kind);
    const answer = await answerResourceRequest(cluster, resourceRequest)();
    if (E.isLeft(answer)) return sendError(response, answer.left, route.kind);
    if (request.method === 'GET' && wantsTable(request.headers.accept) && isJsonObject(answer.right.body))
      return sendJson(
        response,
        answer.right.code,
        tableOf(
          answer.right.body,
          await printerOf(route.kind),
          url.searchParams.get('includeObject'),
          cluster.clock.now(),
        ),
      );
    sendJson(response, answer.right.code, answer.right.body);
  };

  /**
   * etcd's refusal of an object over its limit, which comes after validation: a create or update
   * with a larger body is tried as a dry run first, and its own error (422 for ConfigMap data over
   * 1 MiB, …) wins. Bodies under the limit are not tried twice.
   */
  const storageRefusal = async (resourceRequest: ResourceRequest): Promise<ClusterError | undefined> => {
    if (resourceRequest.method !== 'POST' && resourceRequest.method !== 'PUT') return undefined;
    if (Buffer.byteLength(resourceRequest.body) <= MAX_OBJECT_BYTES) return undefined;
    const query = new URLSearchParams(resourceRequest.query);
    query.set('dryRun', 'All');
    const tried = await answerResourceRequest(cluster, { ...resourceRequest, query })();
    return E.isLeft(tried) ? tried.left : clusterError('Internal', 'etcdserver: request is too large');
  };

  /** The printer columns of a custom resource's CRD at the version read; none for a built-in kind. */
  const printerOf = async (kind: KindAt): Promise<Printer> => {
    const builtin = builtinPrinter(kind.group, kind.version, kind.plural, kind.kind);
    if (!kind.custom) return builtin;
    const crd = await cluster.get({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `${kind.plural}.${kind.group}`,
    })();
    return crdPrinter(E.isRight(crd) && O.isSome(crd.right) ? crdPrinterColumns(crd.right.value, kind.version) : []);
  };

  let boundPort = 0;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refusal = browserRefusal(request.headers, boundPort, options.allowedHosts);
    if (refusal !== undefined) {
      request.resume();
      return sendError(response, clusterError('Forbidden', refusal, { code: 403 }));
    }
    if (!authorised(request)) {
      request.resume();
      return sendError(
        response,
        clusterError(
          'Unauthorized',
          'Unauthorized: send the bearer token of the kubeconfig serveMemoryCluster returned',
        ),
      );
    }
    const body = await bodyOf(request, response);
    if (body !== undefined) await respond(request, response, new URL(request.url ?? '/', 'http://127.0.0.1'), body);
  };

  const server = createServer((request, response) => {
    // The Date header on the cluster's clock, as kube-apiserver dates answers on its own: a kit run on
    // a manual clock answers the same bytes when replayed (a client's error text quotes the headers).
    response.sendDate = false;
    response.setHeader('date', new Date(cluster.clock.now()).toUTCString());
    handle(request, response).catch((error: unknown) => {
      // A defect in this adapter: answer 500 rather than leave the client hanging.
      if (!response.headersSent)
        sendError(
          response,
          clusterError(
            'Internal',
            `in-memory API server defect: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      else response.destroy();
    });
  });
  const connections = new Set<Socket>();
  server.on('connection', (socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the HTTP server did not bind a TCP port');
  const { port } = address;
  boundPort = port;
  const url = `http://127.0.0.1:${port}`;
  const kubeconfig = kubeconfigYaml(url, options.auth === 'none' ? undefined : token);
  if (options.kubeconfigPath !== undefined) await writeFile(options.kubeconfigPath, kubeconfig, { mode: 0o600 });
  let closing: Promise<void> | undefined;
  return {
    url,
    kubeconfig,
    ...(options.kubeconfigPath === undefined ? {} : { kubeConfigPath: options.kubeconfigPath }),
    abandon: () => {
      server.unref();
      server.on('connection', (socket) => socket.unref());
      connections.forEach((socket) => socket.unref());
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        watches.forEach((watch) => watch.stop());
        watches.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
};
