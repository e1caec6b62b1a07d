/**
 * Read-your-own-writes in the write path: a cluster whose every write's answer is handed to the
 * runtime's caches the moment it comes back, before the reconcile that sent it goes on. A reconcile is
 * given this client and reports nothing itself: what it wrote is in the caches before its own watch
 * events for the same writes are processed, and those echoes are then duplicates the stores drop
 * (Store.event) instead of changes that queue the key again. Applied from the reconcile's result
 * instead, after its status write, an echo arriving during that write would be announced, and every
 * reconcile that wrote a child would be followed by one more for nothing. Reads pass through.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import type {
  Cluster,
  ClusterError,
  DeleteOptions,
  ListQuery,
  ObjectRef,
  Patch,
  Resource,
  ResourceList,
  Scope,
  WatchHandle,
  WatchQuery,
  WatchSink,
  WriteOptions,
} from '../../core/internal.js';

/** Where write answers go: the caches of the runtime that wrote them. */
export type WriteAnswers = {
  /** An object as a write answered with it (created, patched, a status written, or still terminating). */
  readonly written: (object: Resource) => void;
  /** An object a delete removed (or found gone). */
  readonly deleted: (ref: ObjectRef) => void;
};

/** `cluster` with each write's answer handed to `answers` as it arrives (a refused write hands on nothing). */
export class OwnWrites implements Cluster {
  constructor(
    private readonly cluster: Cluster,
    private readonly answers: WriteAnswers,
  ) {}

  get(ref: ObjectRef): TE.TaskEither<ClusterError, O.Option<Resource>> {
    return this.cluster.get(ref);
  }

  list(query: ListQuery): TE.TaskEither<ClusterError, ResourceList> {
    return this.cluster.list(query);
  }

  watch(query: WatchQuery, sink: WatchSink): WatchHandle {
    return this.cluster.watch(query, sink);
  }

  scopeOf(apiVersion: string, kind: string): TE.TaskEither<ClusterError, Scope> {
    return this.cluster.scopeOf(apiVersion, kind);
  }

  create(object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> {
    return this.answered(this.cluster.create(object, options), options);
  }

  update(object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> {
    return this.answered(this.cluster.update(object, options), options);
  }

  patch(ref: ObjectRef, patch: Patch, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> {
    return this.answered(this.cluster.patch(ref, patch, options), options);
  }

  updateStatus(object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> {
    return this.answered(this.cluster.updateStatus(object, options), options);
  }

  patchStatus(ref: ObjectRef, patch: Patch, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> {
    return this.answered(this.cluster.patchStatus(ref, patch, options), options);
  }

  /** A delete answered with the object is one kept by finalizers (still there); none, or 404, is one gone. */
  delete(ref: ObjectRef, options?: DeleteOptions): TE.TaskEither<ClusterError, O.Option<Resource>> {
    const write = this.cluster.delete(ref, options);
    return async () => {
      const result = await write();
      if (E.isRight(result) && O.isSome(result.right)) this.answers.written(result.right.value);
      else if (E.isRight(result) || result.left._tag === 'NotFound') this.answers.deleted(ref);
      return result;
    };
  }

  /** A dry run's answer is what the object would be, not what it is: the caches are not told. */
  private answered(
    write: TE.TaskEither<ClusterError, Resource>,
    options: WriteOptions | undefined,
  ): TE.TaskEither<ClusterError, Resource> {
    if (options?.dryRun === true) return write;
    return async () => {
      const result = await write();
      if (E.isRight(result)) this.answers.written(result.right);
      return result;
    };
  }
}
