/**
 * Raw JSON requests to any API path through the client's own configuration (TLS, auth,
 * user agent, undici dispatcher), so core kinds, custom resources and subresources share one
 * code path and objects stay plain JSON (the generated models would turn timestamps into Dates).
 */
import type { Configuration, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { parseJsonText, type JsonValue } from '../../core/json/json.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';
import { toClusterError } from './api-errors.js';
import { LowPriorityRefused, type FlowControl, type Priority } from './flow-control.js';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RestRequest = {
  readonly method: RestMethod;
  /** Absolute API path, e.g. `/apis/apps/v1/namespaces/ns/deployments/web/status`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: JsonValue;
  /** Defaults to `application/json` when there is a body; PATCH callers always set it. */
  readonly contentType?: string;
};

/** RestClient knows how to send one JSON request and return the decoded JSON answer. */
export type RestClient = {
  /**
   * Errors: at `low` priority (best-effort: Events), `TooManyRequests` with code 0 when flow control
   * refused it unsent (its low-priority queue is full); the server's 429 has code 429.
   */
  send(request: RestRequest, priority?: Priority): TE.TaskEither<ClusterError, JsonValue>;
};

// makeApiClient hands any constructor the Configuration it builds from the KubeConfig; this class
// only captures it, so requests get exactly the auth and transport the generated APIs get.
class ConfigurationHolder {
  constructor(readonly configuration: Configuration) {}
}

// A 2xx answer that is not JSON is the server's (or a proxy's) defect, not a network failure.
class UnparseableResponse extends Error {}

const methods: Record<RestMethod, HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/**
 * client-node 2.0 builds a new undici Agent for every request (its https.Agent cache does not cover
 * dispatchers), so every request opened its own TLS connection: a handshake on both sides, the
 * largest CPU cost of a request. The first dispatcher built for a context, cluster and user is
 * reused for all later requests (client-node keys its agent cache the same way): connections are
 * kept alive. Authentication headers are still applied to every request.
 */
const reuseDispatchers = (kubeConfig: KubeConfig): ((context: RequestContext) => void) => {
  const byIdentity = new Map<string, Dispatcher>();
  return (context) => {
    const fresh = context.getDispatcher();
    if (fresh === undefined) return;
    const key = JSON.stringify([
      kubeConfig.getCurrentContext(),
      kubeConfig.getCurrentCluster()?.name,
      kubeConfig.getCurrentUser()?.name,
    ]);
    const kept = byIdentity.get(key);
    if (kept === undefined) {
      byIdentity.set(key, fresh);
      return;
    }
    context.setDispatcher(kept);
    void fresh.close();
  };
};

const sendOnce = async (
  config: Configuration,
  reuse: (context: RequestContext) => void,
  request: RestRequest,
  timeoutMs: number,
): Promise<JsonValue> => {
  let context = config.baseServer.makeRequestContext(request.path, methods[request.method]);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) context.setQueryParam(key, value);
  }
  context.setHeaderParam('Accept', 'application/json');
  if (request.body !== undefined) {
    context.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
    context.setBody(JSON.stringify(request.body));
  }
  context.setSignal(AbortSignal.timeout(timeoutMs));
  await config.authMethods.default?.applySecurityAuthentication(context);
  reuse(context);
  for (const middleware of config.middleware) context = await middleware.pre(context).toPromise();
  let response = await config.httpApi.send(context).toPromise();
  for (const middleware of config.middleware) response = await middleware.post(response).toPromise();
  const text = await response.body.text();
  if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
    // The same exception the generated APIs throw, so one mapping (toClusterError) serves both.
    throw new ApiException<string>(response.httpStatusCode, 'Unsuccessful HTTP Request', text, response.headers);
  }
  try {
    return parseJsonText(text);
  } catch {
    throw new UnparseableResponse(`unparseable response to ${request.method} ${request.path}: ${text.slice(0, 200)}`);
  }
};

/**
 * A RestClient for the current context of `kubeConfig`; every request is bounded by `timeoutMs`
 * (counted from when it is sent: time spent waiting for `flow` is not held against it).
 */
export const createRestClient = (kubeConfig: KubeConfig, timeoutMs: number, flow?: FlowControl): RestClient => {
  const { configuration } = kubeConfig.makeApiClient(ConfigurationHolder);
  const reuse = reuseDispatchers(kubeConfig);
  return {
    send: (request, priority) =>
      TE.tryCatch(
        () => {
          const send = () => sendOnce(configuration, reuse, request, timeoutMs);
          return flow === undefined ? send() : flow.request(send, priority);
        },
        (error) =>
          error instanceof UnparseableResponse
            ? clusterError('Internal', error.message, { code: 200 })
            : error instanceof LowPriorityRefused
              ? clusterError('TooManyRequests', `${request.method} ${request.path}: ${error.message}`, { code: 0 })
              : toClusterError(error),
      ),
  };
};
