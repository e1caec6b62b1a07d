/**
 * The operator's hook callbacks (docs/behaviour.md §6) over HTTP(S):
 *   POST /v1/namespaces/{ns}/applications/{name}/complete  the workload has finished: delete the Application
 *   POST /v1/namespaces/{ns}/applications/{name}/shutdown  the workload has shut down: delete the children now
 *   GET  /v1/namespaces/{ns}/applications/{name}/shutdown  has a shutdown been requested? (the workload polls)
 * Authenticated by `Authorization: Bearer <token>`, compared in constant time with the tokens in
 * memory (`HookTokens`, what this replica's controller last planned with: no API call before a
 * caller is authenticated, and the same work whether the Application exists or not), then with the
 * tokens in the Application's live hook Secrets, read with the Application's own identity (its
 * ServiceAccount under impersonation). A caller memory does not know (the Application was planned
 * by another replica: a standby, another shard) is checked against the live Secrets directly, at
 * a bounded rate across all clients. A refused call changes nothing and says nothing about why.
 * Each client is rate limited, bodies are bounded, and slow or idle connections are cut.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  DEFAULT_SHUTDOWN_GRACE_MS,
  decodeApplication,
  hookSecretRefs,
  isAcknowledged,
  isHookSecret,
  isJsonObject,
  SHUTDOWN_ACKNOWLEDGED_ANNOTATION,
  showClusterError,
  type Application,
  type Cluster,
  type ClusterError,
  type Hook,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import type { ChildCluster } from '../access/child-access.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { createRateLimiter, defaultRateLimit, type Admission, type RateLimit } from './rate-limit.js';
import { generateToken, liveTokens, ownerOfApp, type HookTokens } from './tokens.js';
import { withReadableStatus } from '../status/stored-status.js';

export type CallbackOptions = {
  readonly cluster: Cluster;
  /** Milliseconds since the epoch (acknowledgement times, deadlines). */
  readonly now: () => number;
  readonly logger?: Logger;
  /** Same as the controller's: the deadline `GET …/shutdown` reports. */
  readonly shutdownGraceMs?: number;
  /** Called with `namespace/name` after a callback changed an Application (queue it for reconcile). */
  readonly onAccepted?: (key: string) => void;
  /**
   * The controller's token store: callers are authenticated against it first, from memory. Without
   * it every call reads the Application and its Secrets from the API server before refusing
   * (embedders without a controller; the operator always passes it).
   */
  readonly tokens?: HookTokens;
  /**
   * Callers `tokens` does not vouch for (another replica planned the Application, or memory is
   * stale after a takeover) are checked against the API server at most this often, across all
   * clients (default: bursts of 10, then 2 per second); beyond it they get 429 and retry. An
   * unauthenticated flood costs the API server no more than this.
   */
  readonly unknownCallerLookups?: Omit<RateLimit, 'clients'>;
  /**
   * Whose rights an Application's hook Secrets are read with: the same identity as its children
   * (`childClusterFor` of the controller; default the operator's). Under `--impersonation required`
   * the operator has no Secret rights, the Application's ServiceAccount does.
   */
  readonly childClusterFor?: (application: Application) => ChildCluster;
  /** Per-client request rate (default: bursts of 20, then 5 per second). */
  readonly rateLimit?: RateLimit;
  /** Largest request body accepted, in bytes (default 4 KiB: callbacks carry none). */
  readonly maxBodyBytes?: number;
};

/** An HTTP handler; answers false when the path is not a callback (so a shared server can go on). */
export type CallbackHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

const ROUTE = /^\/v1\/namespaces\/([^/]+)\/applications\/([^/]+)\/(complete|shutdown)$/;
// Namespaces are DNS labels, Application names DNS subdomains.
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export type Call = {
  readonly namespace: string;
  readonly name: string;
  readonly hook: Hook;
  readonly method: string;
  readonly token: string;
};

type Answer = {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
};

const UNAUTHORIZED: Answer = {
  status: 401,
  body: { error: 'unauthorized' },
  headers: { 'www-authenticate': 'Bearer realm="kreconcile"' },
};

const DEFAULT_MAX_BODY_BYTES = 4 * 1024;

const DEFAULT_UNKNOWN_CALLER_LOOKUPS = { burst: 10, perSecond: 2 };

// The lookups budget is shared by every client: one bucket under one key.
const ALL_CLIENTS = 'all';

const TOO_LARGE: Answer = { status: 413, body: { error: 'request body too large' }, headers: { connection: 'close' } };

/** The callback handler. */
export const createCallbackHandler = (options: CallbackOptions): CallbackHandler => {
  const admit = createRateLimiter(options.rateLimit ?? defaultRateLimit, options.now);
  const admitLookup = createRateLimiter(
    { ...(options.unknownCallerLookups ?? DEFAULT_UNKNOWN_CALLER_LOOKUPS), clients: 1 },
    options.now,
  );
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const reply = (response: ServerResponse, result: Answer): void => {
    if (response.headersSent) return;
    response
      .writeHead(result.status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...result.headers })
      .end(`${JSON.stringify(result.body)}\n`);
  };
  return (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (!path.startsWith('/v1/')) return false;
    const admission = admit(request.socket.remoteAddress ?? 'unknown');
    if (admission._tag === 'Limited') {
      request.resume();
      reply(response, {
        status: 429,
        body: { error: 'too many requests' },
        headers: { 'retry-after': String(admission.retryAfterSeconds) },
      });
      return true;
    }
    if (!drainBounded(request, maxBody)) {
      reply(response, TOO_LARGE);
      return true;
    }
    void answer(request, path, options, () => admitLookup(ALL_CLIENTS))
      .catch((error: unknown): Answer => {
        (options.logger ?? silentLogger).error({ err: String(error) }, 'hook callback failed (defect)');
        return { status: 500, body: { error: 'internal error' } };
      })
      .then((result) => reply(response, result));
    return true;
  };
};

/**
 * Drains the body (callbacks carry nothing we read, but the connection must be reusable), at most
 * `maxBytes`: false at once for a larger declared length; a longer streamed body cuts the connection.
 */
const drainBounded = (request: IncomingMessage, maxBytes: number): boolean => {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (!Number.isFinite(declared) || declared > maxBytes) {
    request.resume();
    return false;
  }
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.byteLength;
    if (size > maxBytes) request.socket.destroy();
  });
  return true;
};

// Compared against when the Application is unknown, so unknown and known take the same time; no one holds it.
const DUMMY_TOKEN = generateToken();

/**
 * Whether the token is the one in memory for this Application's hook. Always two digests and two
 * constant-time comparisons, known Application or not, enabled hook or not.
 */
const authenticFromMemory = (call: Call, tokens: HookTokens): boolean => {
  const known = tokens.tokensFor(call.namespace, call.name);
  const presented = digest(call.token);
  const complete = timingSafeEqual(presented, digest(known?.complete ?? DUMMY_TOKEN));
  const shutdown = timingSafeEqual(presented, digest(known?.shutdown ?? DUMMY_TOKEN));
  return known?.[call.hook] !== undefined && (call.hook === 'complete' ? complete : shutdown);
};

const answer = async (
  request: IncomingMessage,
  path: string,
  options: CallbackOptions,
  admitLookup: () => Admission,
): Promise<Answer> => {
  const call = parseCall(request, path);
  if (call._tag === 'Left') return call.left;
  const logger = options.logger ?? silentLogger;
  const { namespace, name, hook } = call.right;
  if (options.tokens !== undefined && !authenticFromMemory(call.right, options.tokens)) {
    const lookup = admitLookup();
    if (lookup._tag === 'Limited') {
      logger.warn(
        { application: `${namespace}/${name}`, hook },
        'hook callback deferred: too many callers unknown to this replica',
      );
      return {
        status: 429,
        body: { error: 'too many requests' },
        headers: { 'retry-after': String(lookup.retryAfterSeconds) },
      };
    }
  }
  const application = await readApplication(options.cluster, namespace, name);
  if (E.isLeft(application)) return unavailable(application.left);
  // Whatever is missing (the Application, the hook, its Secret) or wrong, the caller learns only "401".
  const authorized = await verifyAgainstSecrets(verification(call.right, O.toUndefined(application.right), options));
  if (!authorized || O.isNone(application.right)) {
    logger.warn({ application: `${namespace}/${name}`, hook }, 'hook callback refused');
    return UNAUTHORIZED;
  }
  const result = await act(call.right, application.right.value, options);
  logger.info(
    { application: `${namespace}/${name}`, hook, method: call.right.method, status: result.status },
    'hook callback',
  );
  return result;
};

const parseCall = (request: IncomingMessage, path: string): E.Either<Answer, Call> => {
  const match = ROUTE.exec(path);
  const [namespace, name] = match === null ? [] : [safeDecode(match[1]!), safeDecode(match[2]!)];
  if (match === null || namespace === undefined || name === undefined || !NAME.test(namespace) || !NAME.test(name)) {
    return E.left({ status: 404, body: { error: 'not found' } });
  }
  const hook = match[3];
  // ROUTE admits only these two.
  if (hook !== 'complete' && hook !== 'shutdown') return E.left({ status: 404, body: { error: 'not found' } });
  const method = request.method ?? 'GET';
  const allowed = hook === 'complete' ? ['POST'] : ['POST', 'GET'];
  if (!allowed.includes(method))
    return E.left({ status: 405, body: { error: 'method not allowed' }, headers: { allow: allowed.join(', ') } });
  const header = request.headers.authorization ?? '';
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (token === undefined) return E.left(UNAUTHORIZED);
  return E.right({ namespace, name, hook, method, token });
};

const safeDecode = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

const applicationRef = (namespace: string, name: string): ObjectRef => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace,
  name,
});

/** The Application, decoded; one that does not decode is treated as absent (its callbacks are refused). */
const readApplication = async (
  cluster: Cluster,
  namespace: string,
  name: string,
): Promise<E.Either<ClusterError, O.Option<Application>>> =>
  E.map(O.chain((object: Resource) => O.fromEither(decodeApplication(withReadableStatus(object)))))(
    await cluster.get(applicationRef(namespace, name))(),
  );

/** The Cluster that reads `application`'s hook Secrets: its children's identity; none when that identity is refused. */
const secretReaderOf = (
  application: Application,
  options: Pick<CallbackOptions, 'cluster' | 'childClusterFor'>,
): Cluster | undefined => {
  const access = options.childClusterFor?.(application) ?? { _tag: 'Operator' };
  if (access._tag === 'Refused') return undefined;
  return access._tag === 'Impersonated' ? access.cluster : options.cluster;
};

/**
 * How many tokens are always compared: padded with a token no one holds, so a Secret-less Application answers as fast.
 */
const MIN_COMPARISONS = 2;

/** Two tokens compared in constant time over their SHA-256 digests, so that lengths leak nothing either. */
export const sameToken = (presented: string, expected: string): boolean =>
  timingSafeEqual(digest(presented), digest(expected));

/**
 * The one verifier of a presented token against live hook Secrets, on every path: an existing
 * Application with the hook enabled, one without it, and a missing one (issue 37). Each reads the
 * Secrets `refs` names and compares the token with at least `MIN_COMPARISONS` candidates, every
 * one in constant time; only then does `eligible` (the Application exists and enables the hook)
 * count. So a prober cannot tell the paths apart by what they cost.
 */
export const verifyAgainstSecrets = async (args: {
  readonly token: string;
  readonly refs: ReadonlyArray<ObjectRef>;
  readonly reader: Cluster;
  readonly expected: (secrets: ReadonlyArray<Resource>) => ReadonlyArray<string>;
  readonly eligible: boolean;
  readonly compare?: (presented: string, expected: string) => boolean;
}): Promise<boolean> => {
  const compare = args.compare ?? sameToken;
  const secrets = await Promise.all(
    args.refs.map(async (ref) => {
      const got = await args.reader.get(ref)();
      return E.isRight(got) && O.isSome(got.right) ? [got.right.value] : [];
    }),
  );
  const tokens = args.expected(secrets.flat());
  const padding = Array.from({ length: Math.max(0, MIN_COMPARISONS - tokens.length) }, () => DUMMY_TOKEN);
  const match = [...tokens, ...padding].reduce((found, token) => compare(args.token, token) || found, false);
  return args.eligible && tokens.length > 0 && match;
};

/** The verifier's arguments for a call on `application` (absent: the Application does not exist). */
export const verification = (
  call: Call,
  application: Application | undefined,
  options: Pick<CallbackOptions, 'cluster' | 'childClusterFor'>,
): Parameters<typeof verifyAgainstSecrets>[0] => {
  if (application === undefined)
    return {
      token: call.token,
      refs: hookSecretRefs([call.namespace], { namespace: call.namespace, name: call.name }),
      reader: options.cluster,
      expected: () => [],
      eligible: false,
    };
  const reader = secretReaderOf(application, options);
  const owner = ownerOfApp(application);
  return {
    token: call.token,
    refs: secretRefs(application),
    // An identity refused reads nothing it may not: its reads go as the operator, and count for nothing.
    reader: reader ?? options.cluster,
    expected: (secrets) => liveTokens(secrets, owner, call.hook),
    eligible: reader !== undefined && (application.spec.hooks ?? []).includes(call.hook),
  };
};

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The hook Secrets an Application has: those in its observed state, and the one in its own namespace. */
const secretRefs = (application: Application): ReadonlyArray<ObjectRef> => {
  const owner = ownerOfApp(application);
  const observed = (application.status?.lastObservedManifest ?? []).filter((entry) => isHookSecret(entry, owner));
  const namespaces = observed.flatMap((entry) => {
    const metadata = entry.metadata;
    const namespace = isJsonObject(metadata) ? metadata.namespace : undefined;
    return typeof namespace === 'string' ? [namespace] : [];
  });
  return hookSecretRefs([...new Set([owner.namespace, ...namespaces])], owner);
};

const act = async (call: Call, application: Application, options: CallbackOptions): Promise<Answer> => {
  const deleting = application.metadata.deletionTimestamp !== undefined;
  if (call.hook === 'shutdown' && call.method === 'GET') return shutdownStatus(application, options);
  if (call.hook === 'shutdown' && !deleting)
    return { status: 409, body: { error: 'no shutdown requested: the Application is not being deleted' } };
  // A workload that completed has nothing left to shut down: the children may go at once.
  if ((application.spec.hooks ?? []).includes('shutdown') && !isAcknowledged(application)) {
    const acknowledged = await acknowledge(application, options);
    if (E.isLeft(acknowledged)) return unavailable(acknowledged.left);
  }
  if (call.hook === 'complete' && !deleting) {
    const deleted = await options.cluster.delete(applicationRef(call.namespace, call.name))();
    if (E.isLeft(deleted) && deleted.left._tag !== 'NotFound') return unavailable(deleted.left);
  }
  options.onAccepted?.(`${call.namespace}/${call.name}`);
  return {
    status: 202,
    body:
      call.hook === 'complete'
        ? { accepted: 'complete', deleting: true }
        : { accepted: 'shutdown', deletingChildren: true },
  };
};

/**
 * Records the acknowledgement on the Application (it survives operator restarts, and its change triggers a reconcile).
 */
const acknowledge = (application: Application, options: CallbackOptions) =>
  options.cluster.patch(applicationRef(application.metadata.namespace ?? 'default', application.metadata.name), {
    type: 'merge',
    body: { metadata: { annotations: { [SHUTDOWN_ACKNOWLEDGED_ANNOTATION]: new Date(options.now()).toISOString() } } },
  })();

const shutdownStatus = (application: Application, options: CallbackOptions): Answer => {
  const requestedAt = application.metadata.deletionTimestamp;
  if (requestedAt === undefined) return { status: 200, body: { shutdownRequested: false } };
  const deadline = new Date(
    Date.parse(requestedAt) + (options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS),
  ).toISOString();
  return {
    status: 200,
    body: { shutdownRequested: true, requestedAt, deadline, acknowledged: isAcknowledged(application) },
  };
};

const unavailable = (error: ClusterError): Answer => ({
  status: 503,
  body: { error: `the API server did not answer: ${showClusterError(error)}` },
  headers: { 'retry-after': '5' },
});

export type CallbackServer = {
  readonly address: { readonly host: string; readonly port: number };
  close(): Promise<void>;
};

/** Limits of an HTTP listener that anyone on the network can reach. */
export type ListenerLimits = {
  /** Time to receive a request's headers (slowloris: headers that never end are cut). Default 10 s. */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request. Default 30 s. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. Default 5 s. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections at most; more are closed at once. Default 256. */
  readonly maxConnections: number;
  /** Largest request head (request line and headers), in bytes. Default 8 KiB. */
  readonly maxHeaderBytes: number;
};

export const defaultListenerLimits: ListenerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  maxHeaderBytes: 8 * 1024,
};

/** Node's server options for `limits` (timeouts are enforced by a periodic check: make it frequent enough). */
export const listenerOptions = (limits: ListenerLimits) => ({
  headersTimeout: limits.headersTimeoutMs,
  requestTimeout: limits.requestTimeoutMs,
  keepAliveTimeout: limits.keepAliveTimeoutMs,
  maxHeaderSize: limits.maxHeaderBytes,
  connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
});

/** Serves the callbacks alone on `listen`, with TLS when a certificate and key (PEM) are given, within `limits`. */
export const startCallbackServer = async (args: {
  readonly listen: { readonly host: string; readonly port: number };
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  readonly handler: CallbackHandler;
  readonly limits?: Partial<ListenerLimits>;
}): Promise<CallbackServer> => {
  const limits = { ...defaultListenerLimits, ...args.limits };
  const route = (request: IncomingMessage, response: ServerResponse): void => {
    if (!args.handler(request, response))
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}\n');
  };
  const options = listenerOptions(limits);
  const server: Server =
    args.tls === undefined
      ? createHttpServer(options, route)
      : createHttpsServer({ ...options, cert: args.tls.cert, key: args.tls.key }, route);
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(args.listen.port, args.listen.host, () => resolve());
  });
  const bound = server.address();
  return {
    address: {
      host: args.listen.host,
      port: typeof bound === 'object' && bound !== null ? bound.port : args.listen.port,
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
