/** ClusterWriter over REST: create, update (PUT), patch (explicit content type), delete (propagation policy). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { JsonValue } from '../../core/json/json.js';
import { refOf, type ObjectRef, type Resource } from '../../core/model/resource.js';
import { clusterScopedWriteProblem } from '../../core/model/scope.js';
import type { ClusterWriter, DeleteOptions, Patch, WriteOptions } from '../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';
import { withKind, type OperationContext } from './operation-context.js';
import { getObject } from './read-operations.js';
import { patchRequest } from './patch-request.js';
import { collectionPath, objectPath, type ResourceInfo } from './resource-paths.js';
import { isStatus, toResource } from './response-decoding.js';

/**
 * `objectPath` for a write, refusing an object whose namespace disagrees with the scope discovery
 * gives its kind: the server would silently drop the namespace of a cluster-scoped kind, so a plan
 * that believed the kind namespaced (and let its tenancy check pass) would write cluster-wide
 * (issue 19). The scope the URL is built from is the scope the write is judged by.
 */
const writePath = (info: ResourceInfo, ref: ObjectRef, subresource?: 'status'): E.Either<ClusterError, string> => {
  const problem = clusterScopedWriteProblem(info.namespaced ? 'Namespaced' : 'Cluster', ref);
  return problem === undefined
    ? objectPath(info, ref, subresource)
    : E.left(clusterError('Forbidden', problem, { ref }));
};

const writeQuery = (options: WriteOptions = {}): Readonly<Record<string, string | undefined>> => ({
  fieldManager: options.fieldManager,
  dryRun: options.dryRun ? 'All' : undefined,
  fieldValidation: options.fieldValidation,
});

export const createObject =
  (context: OperationContext) =>
  (object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> => {
    const ref = refOf(object);
    return withKind(context, object, ref, (info) =>
      pipe(
        // writePath only to enforce the namespace rules; POST goes to the collection.
        TE.fromEither(writePath(info, ref)),
        TE.flatMap(() =>
          context.rest.send({
            method: 'POST',
            path: collectionPath(info, ref.namespace),
            query: writeQuery(options),
            body: object,
          }),
        ),
        TE.flatMapEither((value) => toResource(value, object, ref)),
      ),
    );
  };

/** PUT to `subresource` (none or `status`); resourceVersion in the body is the precondition. */
export const putObject =
  (context: OperationContext, subresource?: 'status') =>
  (object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> => {
    const ref = refOf(object);
    return withKind(context, object, ref, (info) =>
      pipe(
        TE.fromEither(writePath(info, ref, subresource)),
        TE.flatMap((path) => context.rest.send({ method: 'PUT', path, query: writeQuery(options), body: object })),
        TE.flatMapEither((value) => toResource(value, object, ref)),
      ),
    );
  };

export const patchObject =
  (context: OperationContext, subresource?: 'status') =>
  (ref: ObjectRef, patch: Patch, options?: WriteOptions): TE.TaskEither<ClusterError, Resource> =>
    withKind(context, ref, ref, (info) =>
      pipe(
        TE.fromEither(writePath(info, ref, subresource)),
        TE.flatMap((path) => {
          const request = patchRequest(patch, options);
          return context.rest.send({
            method: 'PATCH',
            path,
            query: request.query,
            body: request.body,
            contentType: request.contentType,
          });
        }),
        TE.flatMapEither((value) => toResource(value, ref, ref)),
      ),
    );

// DELETE answers with a Status when the object is gone (built-in and custom kinds alike) and
// with the object while finalizers hold it. It also answers with an object that has no
// `metadata.finalizers` yet still exists: a Namespace (Terminating, held by `spec.finalizers`),
// a Pod in its grace period. Those are settled by reading the object again.
const heldByFinalizers = (object: Resource): boolean =>
  object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers?.length ?? 0) > 0;

const stillThere = (
  context: OperationContext,
  ref: ObjectRef,
  deleted: Resource,
): TE.TaskEither<ClusterError, O.Option<Resource>> =>
  pipe(
    getObject(context)(ref),
    // A different uid is a new object created since: the one we deleted is gone.
    TE.map(O.filter((current) => current.metadata.uid === undefined || current.metadata.uid === deleted.metadata.uid)),
  );

const deletionOutcome = (
  context: OperationContext,
  value: JsonValue,
  ref: ObjectRef,
): TE.TaskEither<ClusterError, O.Option<Resource>> =>
  isStatus(value)
    ? TE.right(O.none)
    : pipe(
        TE.fromEither(toResource(value, ref, ref)),
        TE.flatMap((object) =>
          heldByFinalizers(object) ? TE.right(O.some(object)) : stillThere(context, ref, object),
        ),
      );

export const deleteObject =
  (context: OperationContext) =>
  (ref: ObjectRef, options?: DeleteOptions): TE.TaskEither<ClusterError, O.Option<Resource>> =>
    withKind(context, ref, ref, (info) =>
      pipe(
        TE.fromEither(writePath(info, ref)),
        TE.flatMap((path) =>
          context.rest.send({
            method: 'DELETE',
            path,
            query: { propagationPolicy: options?.propagationPolicy },
            // DeleteOptions.preconditions: the server compares them with the stored object (409 when they differ).
            ...(options?.preconditions === undefined
              ? {}
              : { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: options.preconditions } }),
          }),
        ),
        TE.flatMap((value) => deletionOutcome(context, value, ref)),
      ),
    );

export const createWriter = (context: OperationContext): ClusterWriter => ({
  create: createObject(context),
  update: putObject(context),
  patch: patchObject(context),
  delete: deleteObject(context),
});
