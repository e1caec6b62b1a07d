/**
 * The Promise facade of a `Cluster` for tests written with async/await: every call runs at
 * once and resolves with the answer or rejects with a {@link ClusterCallError} carrying the
 * tagged `ClusterError`. The fp-ts port stays as it is; this only removes the trap of a
 * `TaskEither` that is awaited without being called (`await cluster.create(obj)` did nothing).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { Resource, type ObjectRef } from '../../core/model/resource.js';
import { issuesOf, showIssue } from '../../core/model/decode.js';
import type { ManifestObject } from '../runtime/kubernetes-object.js';
import type { Scope } from '../../core/model/scope.js';
import type {
  Cluster,
  ListQuery,
  Patch,
  PropagationPolicy,
  ResourceList,
  WatchHandle,
  WatchQuery,
  WatchSink,
  WriteOptions,
} from '../../core/ports/cluster.js';
import { clusterError, showClusterError, type ClusterError } from '../../core/ports/errors.js';

/** A failed cluster call as an exception: `error` is the tagged value (`error._tag`, `error.code`). */
export class ClusterCallError extends Error {
  override readonly name = 'ClusterCallError';
  constructor(readonly error: ClusterError) {
    super(showClusterError(error));
  }
}

/** Whether `thrown` is a failed cluster call, optionally with one of the given tags. */
export const isClusterCallError = (
  thrown: unknown,
  ...tags: ReadonlyArray<ClusterError['_tag']>
): thrown is ClusterCallError =>
  thrown instanceof ClusterCallError && (tags.length === 0 || tags.includes(thrown.error._tag));

/**
 * The Cluster port with Promises: absence on `get` and a finished `delete` are `undefined`. Writes
 * take client-node's models (`V1ConfigMap`, …) or object literals; they are decoded as JSON objects
 * with apiVersion, kind and metadata.name (a `Date` becomes its RFC 3339 text, as client-node sends
 * it), and one that does not decode rejects with `Invalid`, naming the field, before any call.
 */
export interface PromiseCluster {
  get(ref: ObjectRef): Promise<Resource | undefined>;
  list(query: ListQuery): Promise<ResourceList>;
  create(object: ManifestObject, options?: WriteOptions): Promise<Resource>;
  update(object: ManifestObject, options?: WriteOptions): Promise<Resource>;
  patch(ref: ObjectRef, patch: Patch, options?: WriteOptions): Promise<Resource>;
  /** Resolves with the object while finalizers hold it, `undefined` once it is gone; NotFound rejects. */
  delete(ref: ObjectRef, options?: { readonly propagationPolicy?: PropagationPolicy }): Promise<Resource | undefined>;
  updateStatus(object: ManifestObject): Promise<Resource>;
  patchStatus(ref: ObjectRef, patch: Patch): Promise<Resource>;
  scopeOf(apiVersion: string, kind: string): Promise<Scope>;
  /** The port's watch as it is (it already calls back rather than returning a task). */
  watch(query: WatchQuery, sink: WatchSink): WatchHandle;
}

const run = async <A>(task: TE.TaskEither<ClusterError, A>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new ClusterCallError(result.left);
  return result.right;
};

const orUndefined = async (task: TE.TaskEither<ClusterError, O.Option<Resource>>): Promise<Resource | undefined> =>
  O.toUndefined(await run(task));

/** `object` as the port's `Resource`: plain JSON (as it would go over the wire), with the fields every call needs. */
const decodeObject = (object: ManifestObject): Resource => {
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(object));
  } catch (error) {
    throw invalid(`the object is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const decoded = Resource.decode(json);
  if (E.isRight(decoded)) return decoded.right;
  throw invalid(`the object does not decode: ${issuesOf(decoded.left, '').map(showIssue).join('; ')}`);
};

const invalid = (message: string): ClusterCallError => new ClusterCallError(clusterError('Invalid', message));

/** The Promise view of `cluster` (the same cluster: writes through either view are the same writes). */
export const promiseCluster = (cluster: Cluster): PromiseCluster => ({
  get: (ref) => orUndefined(cluster.get(ref)),
  list: (query) => run(cluster.list(query)),
  create: async (object, options) => run(cluster.create(decodeObject(object), options)),
  update: async (object, options) => run(cluster.update(decodeObject(object), options)),
  patch: (ref, patch, options) => run(cluster.patch(ref, patch, options)),
  delete: (ref, options) => orUndefined(cluster.delete(ref, options)),
  updateStatus: async (object) => run(cluster.updateStatus(decodeObject(object))),
  patchStatus: (ref, patch) => run(cluster.patchStatus(ref, patch)),
  scopeOf: (apiVersion, kind) => run(cluster.scopeOf(apiVersion, kind)),
  watch: (query, sink) => cluster.watch(query, sink),
});
