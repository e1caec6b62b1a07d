/**
 * The Promise facade of a `Cluster` for tests written with async/await: every call runs at
 * once and resolves with the answer or rejects with a {@link ClusterCallError} carrying the
 * tagged `ClusterError`. The fp-ts port stays as it is; this only removes the trap of a
 * `TaskEither` that is awaited without being called (`await cluster.create(obj)` did nothing).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import type { ObjectRef, Resource } from '../../core/model/resource.js';
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
import { showClusterError, type ClusterError } from '../../core/ports/errors.js';

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

/** The Cluster port with Promises: absence on `get` and a finished `delete` are `undefined`. */
export interface PromiseCluster {
  get(ref: ObjectRef): Promise<Resource | undefined>;
  list(query: ListQuery): Promise<ResourceList>;
  create(object: Resource, options?: WriteOptions): Promise<Resource>;
  update(object: Resource, options?: WriteOptions): Promise<Resource>;
  patch(ref: ObjectRef, patch: Patch, options?: WriteOptions): Promise<Resource>;
  /** Resolves with the object while finalizers hold it, `undefined` once it is gone; NotFound rejects. */
  delete(ref: ObjectRef, options?: { readonly propagationPolicy?: PropagationPolicy }): Promise<Resource | undefined>;
  updateStatus(object: Resource): Promise<Resource>;
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

/** The Promise view of `cluster` (the same cluster: writes through either view are the same writes). */
export const promiseCluster = (cluster: Cluster): PromiseCluster => ({
  get: (ref) => orUndefined(cluster.get(ref)),
  list: (query) => run(cluster.list(query)),
  create: (object, options) => run(cluster.create(object, options)),
  update: (object, options) => run(cluster.update(object, options)),
  patch: (ref, patch, options) => run(cluster.patch(ref, patch, options)),
  delete: (ref, options) => orUndefined(cluster.delete(ref, options)),
  updateStatus: (object) => run(cluster.updateStatus(object)),
  patchStatus: (ref, patch) => run(cluster.patchStatus(ref, patch)),
  scopeOf: (apiVersion, kind) => run(cluster.scopeOf(apiVersion, kind)),
  watch: (query, sink) => cluster.watch(query, sink),
});
