/** Tagged errors every port returns: the API server's failure modes as data (docs/architecture.md example 2). */
import type { ObjectRef } from '../model/resource.js';

export type ClusterErrorTag =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Gone'
  | 'UnknownKind'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'Unavailable'
  | 'Timeout'
  | 'Internal';

/** A field-level cause reported by the server (`details.causes`). */
export type ErrorCause = { readonly field?: string; readonly reason?: string; readonly message: string };

export type ClusterError = {
  readonly _tag: ClusterErrorTag;
  /** HTTP status code (0 for network failures). */
  readonly code: number;
  readonly message: string;
  readonly ref?: ObjectRef;
  readonly causes?: ReadonlyArray<ErrorCause>;
  /** From `Retry-After` (TooManyRequests, some 5xx). */
  readonly retryAfterMs?: number;
};

const tagByCode: ReadonlyArray<readonly [number, ClusterErrorTag]> = [
  [400, 'BadRequest'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'NotFound'],
  [409, 'Conflict'],
  [410, 'Gone'],
  [415, 'UnsupportedMediaType'],
  [422, 'Invalid'],
  [429, 'TooManyRequests'],
  [500, 'Internal'],
  [503, 'Unavailable'],
  [504, 'Timeout'],
];

/** The tag for an HTTP status (reason refines 409 into AlreadyExists vs Conflict). */
export const tagForStatus = (code: number, reason?: string): ClusterErrorTag => {
  if (code === 409 && reason === 'AlreadyExists') return 'AlreadyExists';
  if (code === 0) return 'Unavailable';
  return tagByCode.find(([c]) => c === code)?.[1] ?? (code >= 500 ? 'Internal' : 'BadRequest');
};

export const clusterError = (
  _tag: ClusterErrorTag,
  message: string,
  extra: Partial<Omit<ClusterError, '_tag' | 'message'>> = {},
): ClusterError => ({ _tag, code: extra.code ?? codeFor(_tag), message, ...extra });

const codeFor = (tag: ClusterErrorTag): number =>
  tag === 'AlreadyExists' ? 409 : tag === 'UnknownKind' ? 404 : (tagByCode.find(([, t]) => t === tag)?.[0] ?? 500);

/** Whether retrying later can succeed (everything but input and permission errors). */
export const isRetryable = (error: ClusterError): boolean =>
  [
    'Conflict',
    'TooManyRequests',
    'Unavailable',
    'Timeout',
    'Internal',
    'Gone',
    'UnknownKind',
    'AlreadyExists',
    'NotFound',
  ].includes(error._tag);

/** One line: `Conflict (409) apps/v1 Deployment ns/web: the object has been modified`. */
export const showClusterError = (error: ClusterError): string => {
  const ref = error.ref
    ? ` ${error.ref.apiVersion} ${error.ref.kind} ${error.ref.namespace ? `${error.ref.namespace}/` : ''}${error.ref.name}`
    : '';
  const causes = error.causes?.length
    ? ` (${error.causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join('; ')})`
    : '';
  return `${error._tag} (${error.code})${ref}: ${error.message}${causes}`;
};
