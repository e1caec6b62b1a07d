/**
 * Maps what @kubernetes/client-node throws (ApiException with a raw JSON body, Watch errors
 * with `statusCode`, undici network failures) onto the ports' tagged {@link ClusterError}.
 */
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import { isJsonArray, isJsonObject, type JsonValue, parseJsonText } from '../../core/json/json.js';
import type { ObjectRef } from '../../core/model/resource.js';
import { clusterError, tagForStatus, type ClusterError, type ErrorCause } from '../../core/ports/errors.js';
import { redactEchoedObjects } from '../../core/sensitive/echo.js';
import { defined } from '../../core/json/defined.js';

type StatusBody = {
  /** `details.kind` and `details.group`: the resource the failure concerns (`secrets`, ``). */
  readonly resource?: string;
  readonly group?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly causes?: ReadonlyArray<ErrorCause>;
  readonly retryAfterSeconds?: number;
};

const parseJson = (text: string): JsonValue | undefined => {
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
};

const causeOf = (value: JsonValue): ReadonlyArray<ErrorCause> => {
  if (!isJsonObject(value)) return [];
  const message = typeof value.message === 'string' ? value.message : '';
  return [
    {
      message,
      ...(typeof value.field === 'string' ? { field: value.field } : {}),
      ...(typeof value.reason === 'string' ? { reason: value.reason } : {}),
    },
  ];
};

/** Reads a `Status` object (or its JSON text; ApiException keeps the body as a raw string). */
export const parseStatus = (body: unknown): StatusBody => {
  const value: unknown = typeof body === 'string' ? parseJson(body) : body;
  if (!isJsonObject(value)) return typeof body === 'string' && body.trim() !== '' ? { message: body.trim() } : {};
  const details = isJsonObject(value.details) ? value.details : undefined;
  const causes = details && isJsonArray(details.causes) ? details.causes.flatMap(causeOf) : [];
  return {
    ...(details && typeof details.kind === 'string' ? { resource: details.kind } : {}),
    ...(details && typeof details.group === 'string' ? { group: details.group } : {}),
    ...(typeof value.reason === 'string' ? { reason: value.reason } : {}),
    ...(typeof value.message === 'string' ? { message: value.message } : {}),
    ...(causes.length > 0 ? { causes } : {}),
    ...(details && typeof details.retryAfterSeconds === 'number'
      ? { retryAfterSeconds: details.retryAfterSeconds }
      : {}),
  };
};

/** Whether the failure concerns a Secret: by the request's ref, or the server's `details` (core group `secrets`). */
const isSecretFailure = (status: StatusBody, ref: ObjectRef | undefined): boolean =>
  (ref !== undefined && ref.apiVersion === 'v1' && ref.kind === 'Secret') ||
  (status.resource === 'secrets' && (status.group ?? '') === '');

const redactedStatus = (status: StatusBody, secret: boolean): StatusBody => ({
  ...status,
  ...(status.message === undefined ? {} : { message: redactEchoedObjects(status.message, secret) }),
  ...(status.causes === undefined
    ? {}
    : { causes: status.causes.map((cause) => ({ ...cause, message: redactEchoedObjects(cause.message, secret) })) }),
});

/**
 * `error` known to concern a Secret (the request's ref; the REST layer that parsed the answer did
 * not know it): every quoted invalid value masked too, as `statusError` does for a Secret.
 */
export const withSecretValuesMasked = (error: ClusterError): ClusterError => ({
  ...error,
  message: redactEchoedObjects(error.message, true),
  ...(error.causes === undefined
    ? {}
    : { causes: error.causes.map((cause) => ({ ...cause, message: redactEchoedObjects(cause.message, true) })) }),
});

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export const retryAfterMs = (header: string | undefined, now: number = Date.now()): number | undefined => {
  if (header === undefined || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

const headerValue = (headers: Readonly<Record<string, string>> | undefined, name: string): string | undefined =>
  headers === undefined ? undefined : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

/**
 * The error for an HTTP status with its (raw or parsed) `Status` body. An object the server
 * echoes in its message (a 422 on a patch quotes the whole patched object) is cut out, and for a
 * Secret every quoted invalid value too: error text reaches conditions, Events and logs (issue 19).
 */
export const statusError = (
  code: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
  ref?: ObjectRef,
): ClusterError => {
  const parsed = parseStatus(body);
  const status = redactedStatus(parsed, isSecretFailure(parsed, ref));
  const retryAfter =
    retryAfterMs(headerValue(headers, 'retry-after')) ??
    (status.retryAfterSeconds === undefined ? undefined : status.retryAfterSeconds * 1000);
  return clusterError(
    tagForStatus(code, status.reason),
    status.message ?? `HTTP ${code}${status.reason ? ` ${status.reason}` : ''}`,
    {
      code,
      ...defined({ ref, causes: status.causes, retryAfterMs: retryAfter }),
    },
  );
};

const causeChain = (error: unknown): string => {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = 'code' in current ? current.code : undefined;
    parts.push(typeof code === 'string' ? `${current.message} (${code})` : current.message);
    current = current.cause;
  }
  return parts.join(': ');
};

type ApiExceptionShape = { readonly code: number; readonly body: unknown; readonly headers?: Record<string, string> };

// Structural as well as instanceof: a second copy of client-node in node_modules has its own class.
const isApiException = (error: unknown): error is ApiExceptionShape =>
  error instanceof ApiException ||
  (error instanceof Error && 'code' in error && typeof error.code === 'number' && 'body' in error);

const isAbortLike = (error: unknown, name: string): boolean =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === name;

/**
 * Any failure from the client as a ClusterError. Network failures (`TypeError: fetch failed`,
 * connection refused or reset) are `Unavailable` with code 0; client-side timeouts `Timeout`, code 0.
 */
export const toClusterError = (error: unknown, ref?: ObjectRef): ClusterError => {
  const withRef = ref === undefined ? {} : { ref };
  if (isApiException(error)) return statusError(error.code, error.body, error.headers, ref);
  if (typeof error === 'object' && error !== null && 'statusCode' in error && typeof error.statusCode === 'number')
    return statusError(error.statusCode, 'message' in error ? error.message : undefined, undefined, ref);
  if (isAbortLike(error, 'TimeoutError'))
    return clusterError('Timeout', `request timed out: ${causeChain(error)}`, { code: 0, ...withRef });
  if (isAbortLike(error, 'AbortError'))
    return clusterError('Unavailable', `request aborted: ${causeChain(error)}`, { code: 0, ...withRef });
  if (error instanceof Error) return clusterError('Unavailable', causeChain(error), { code: 0, ...withRef });
  return clusterError('Unavailable', String(error), { code: 0, ...withRef });
};
