/** A ClusterError as the API server says it: an HTTP status and a `Status` body (reason, details, causes). */
import type { JsonObject } from '../../../core/json/json.js';
import { clusterError, type ClusterError, type ClusterErrorTag } from '../../../core/ports/errors.js';
import type { KindAt } from './api-routes.js';
import { defined } from '../../../core/json/defined.js';

const reasons: Record<ClusterErrorTag, string> = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Invalid: 'Invalid',
  BadRequest: 'BadRequest',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  Gone: 'Expired',
  UnknownKind: 'NotFound',
  UnsupportedMediaType: 'UnsupportedMediaType',
  TooManyRequests: 'TooManyRequests',
  Unavailable: 'ServiceUnavailable',
  Timeout: 'Timeout',
  Internal: 'InternalError',
};

export type ErrorAnswer = {
  /** HTTP status; 0 means the connection is dropped without an answer (a network failure). */
  readonly code: number;
  readonly body: JsonObject;
  readonly headers: Readonly<Record<string, string>>;
};

const detailsOf = (error: ClusterError, kind?: KindAt): JsonObject => ({
  ...(error.ref === undefined ? {} : { name: error.ref.name }),
  // kube-apiserver names the resource (plural) in details, but the Kind for Invalid (NewInvalid takes a GroupKind).
  ...(kind === undefined ? {} : { group: kind.group, kind: error._tag === 'Invalid' ? kind.kind : kind.plural }),
  ...(error.causes?.length
    ? {
        causes: error.causes.map((c) => ({
          message: c.message,
          ...defined({ field: c.field, reason: c.reason }),
        })),
      }
    : {}),
  ...(error.retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.max(1, Math.ceil(error.retryAfterMs / 1000)) }),
});

/** Reasons the tag alone does not give (codes outside the port's error table). */
const reasonByCode: ReadonlyMap<number, string> = new Map([
  [405, 'MethodNotAllowed'],
  [413, 'RequestEntityTooLarge'],
]);

/** The `Status` object for an error (also the `object` of a watch ERROR event). */
export const statusBody = (error: ClusterError, kind?: KindAt): JsonObject => {
  const details = detailsOf(error, kind);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: error.message,
    reason: reasonByCode.get(error.code) ?? reasons[error._tag],
    ...(Object.keys(details).length > 0 ? { details } : {}),
    code: error.code,
  };
};

export const errorAnswer = (error: ClusterError, kind?: KindAt): ErrorAnswer => ({
  code: error.code,
  body: statusBody(error, kind),
  headers:
    error.retryAfterMs === undefined
      ? {}
      : { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) },
});

/** What the real server answers for a path it does not serve. */
export const notServed = (): ClusterError =>
  clusterError('NotFound', 'the server could not find the requested resource', { code: 404 });

/** `Status` success body of a delete that removed the object at once. */
export const deletedStatus = (kind: KindAt, name: string, uid: string | undefined): JsonObject => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  details: { name, group: kind.group, kind: kind.plural, ...defined({ uid }) },
});
