/**
 * The write fence: a cluster whose writes are refused (without reaching the API server) whenever
 * `mayWrite` says no — a leader that cannot prove its lease is still valid writes nothing, whatever
 * reconcile it was in the middle of. Reads, watches and discovery pass through.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { clusterError, type Cluster, type ClusterError, type ObjectRef } from '../../core/internal.js';
import { defined } from '../../core/json/defined.js';

const refused = (ref: ObjectRef, why: string): ClusterError =>
  clusterError('Unavailable', `not sent: ${why}`, { code: 0, ref });

const refOf = (object: {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly namespace?: string; readonly name: string };
}): ObjectRef => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  name: object.metadata.name,
  ...defined({ namespace: object.metadata.namespace }),
});

/** `cluster` with every write checked against `mayWrite` at the moment it would be sent; refusals say `why`. */
export const fenced = (cluster: Cluster, mayWrite: () => boolean, why: string): Cluster => {
  const guard =
    <T>(ref: ObjectRef, write: () => TE.TaskEither<ClusterError, T>): TE.TaskEither<ClusterError, T> =>
    () =>
      mayWrite() ? write()() : Promise.resolve(E.left(refused(ref, why)));
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

/**
 * The licence a group of reconciles writes under: valid until revoked, revoked for good (a stopped
 * loop's abandoned reconciles, then nothing they still try is sent). One owner revokes it; every
 * fence built on it reads it at each write.
 */
export class WriteLicence {
  private revoked = false;

  get valid(): boolean {
    return !this.revoked;
  }

  revoke(): void {
    this.revoked = true;
  }
}
