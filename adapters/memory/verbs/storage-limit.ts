/**
 * etcd's request size limit, as kube-apiserver meets it: etcd refuses a write larger than its
 * `--max-request-bytes` (default 1.5 MiB) with `etcdserver: request is too large`, and
 * kube-apiserver answers that as a 500 InternalError with those words. The size is the object as
 * stored (JSON; kube-apiserver stores built-in kinds as protobuf, a little smaller) with its key:
 * a write close to the limit may pass here and fail there, by the few bytes of etcd's envelope.
 */
import * as E from 'fp-ts/lib/Either.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ServerState } from '../server-state.js';
import type { KindInfo } from '../kinds/index.js';

/** etcd's default `--max-request-bytes`. */
export const DEFAULT_MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** Bytes etcd's request adds to the object and its key (the transaction's compare and put). */
const ETCD_ENVELOPE_BYTES = 64;

/** The storage key's length as kube-apiserver writes it (`/registry/<group>/<resource>/<namespace>/<name>`). */
const keyBytes = (info: KindInfo, object: Resource): number =>
  `/registry/${info.group}/${info.plural}/${object.metadata.namespace ?? ''}/${object.metadata.name}`.length;

/** The object when etcd would store it, else the error kube-apiserver answers. */
export const withinStorageLimit = (
  state: ServerState,
  info: KindInfo,
  object: Resource,
): E.Either<ClusterError, Resource> => {
  const bytes = Buffer.byteLength(JSON.stringify(object)) + keyBytes(info, object) + ETCD_ENVELOPE_BYTES;
  return bytes > state.maxObjectBytes
    ? E.left(clusterError('Internal', 'etcdserver: request is too large', { code: 500 }))
    : E.right(object);
};

/** kube-apiserver's limit on a request body (`MaxRequestBodyBytes`, 3 MiB). */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** kube-apiserver's answer to a body over its limit: 413 RequestEntityTooLarge. */
export const requestTooLarge = (limit: number): ClusterError =>
  clusterError('BadRequest', `Request entity too large: limit is ${limit}`, { code: 413 });

/**
 * A call of the in-process port whose body (the object or patch, as a client sends it in JSON)
 * kube-apiserver would refuse before reading it; `write` runs only when it fits.
 */
export const withinRequestLimit = <A>(
  state: ServerState,
  body: unknown,
  write: () => E.Either<ClusterError, A>,
): E.Either<ClusterError, A> =>
  Buffer.byteLength(JSON.stringify(body) ?? '') > state.maxRequestBodyBytes
    ? E.left(requestTooLarge(state.maxRequestBodyBytes))
    : write();
