/**
 * A cluster whose writes for one Application are refused (never sent) once this replica no longer
 * owns that Application's shard: ownership can be lost in the middle of a reconcile, and a write
 * after that could race the new owner's. Reads and watches pass through.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { clusterError, type Cluster, type ClusterError, type ObjectRef } from '../../../core/index.js';

const refOf = (object: { readonly apiVersion: string; readonly kind: string; readonly metadata: { readonly namespace?: string; readonly name: string } }): ObjectRef =>
  ({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name, ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }) });

/** `cluster` with every write checked against `owned()` at the moment it would be sent. */
export const fencedByOwnership = (cluster: Cluster, owned: () => boolean, key: string): Cluster => {
  const guard = <T>(ref: ObjectRef, write: () => TE.TaskEither<ClusterError, T>): TE.TaskEither<ClusterError, T> =>
    () => (owned() ? write()() : Promise.resolve(E.left(clusterError('Unavailable', `not sent: this replica no longer owns the shard of ${key}`, { code: 0, ref }))));
  return {
    get: (ref) => cluster.get(ref),
    list: (query) => cluster.list(query),
    watch: (query, sink) => cluster.watch(query, sink),
    scopeOf: (apiVersion, kind) => cluster.scopeOf(apiVersion, kind),
    create: (object, options) => guard(refOf(object), () => cluster.create(object, options)),
    update: (object, options) => guard(refOf(object), () => cluster.update(object, options)),
    patch: (ref, patch, options) => guard(ref, () => cluster.patch(ref, patch, options)),
    delete: (ref, options) => guard(ref, () => cluster.delete(ref, options)),
    updateStatus: (object) => guard(refOf(object), () => cluster.updateStatus(object)),
    patchStatus: (ref, patch) => guard(ref, () => cluster.patchStatus(ref, patch)),
  };
};
