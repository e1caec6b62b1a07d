/**
 * `fieldValidation: Strict` on writes, as kube-apiserver 1.36 answers it: a body (or, for a
 * patch, the patched object) with a field the kind's schema does not have is refused with 400
 * `strict decoding error: unknown field "spec.replica"`, every field named; `Warn` (the default)
 * and `Ignore` accept it. Built-in kinds are checked against the committed Kubernetes schemas,
 * custom resources against their CRD in the cluster.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Resource } from '../../../core/model/resource.js';
import type { WriteOptions } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import {
  catalogOfCompact,
  catalogOfCrds,
  mergeCatalogs,
  unknownFieldPaths,
  type SchemaCatalog,
} from '../../../core/schema/catalog.js';
import { builtinSchemas } from '../../schemas/builtin-schemas.js';
import { listObjects } from './read-verbs.js';
import type { ServerState } from '../server-state.js';

let builtinCatalog: SchemaCatalog | undefined;

/** The built-in kinds' catalog, built once (the file is immutable). */
const builtin = (): SchemaCatalog => (builtinCatalog ??= catalogOfCompact(builtinSchemas()));

/** Built-in kinds, plus the cluster's CRDs when the object is not of a built-in kind. */
export const catalogForKind = (state: ServerState, object: Resource): SchemaCatalog => {
  if (builtin().kinds.get(object.apiVersion)?.has(object.kind) === true) return builtin();
  const crds = listObjects(state, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
  return E.isLeft(crds) ? builtin() : mergeCatalogs(builtin(), catalogOfCrds(crds.right.items));
};

/** How the object reached the server: a create or update body, a patch's result, a server-side apply's. */
export type WritePath = 'body' | 'patch' | 'apply';

/**
 * Under `Strict`, refuses an object with fields its kind does not have; anything else passes.
 * kube-apiserver 1.36's answers, by path: a body 400 BadRequest; a patched object 422 Invalid on
 * the field `patch`, carrying the object; a server-side apply of a built-in kind 500
 * InternalError (`failed to create typed patch object (…): .spec.replica: field not declared in
 * schema`, the first field only).
 */
export const strictFields = (
  state: ServerState,
  options: WriteOptions | undefined,
  object: Resource,
  path: WritePath = 'body',
): E.Either<ClusterError, Resource> => {
  if (options?.fieldValidation !== 'Strict') return E.right(object);
  const unknown = unknownFieldPaths(object, catalogForKind(state, object));
  if (unknown.length === 0) return E.right(object);
  const message = `strict decoding error: ${unknown.map((field) => `unknown field "${field}"`).join(', ')}`;
  if (path === 'body') return E.left(clusterError('BadRequest', message));
  if (path === 'apply' && builtin().kinds.get(object.apiVersion)?.has(object.kind) === true) {
    const where = `${object.metadata.namespace ?? ''}/${object.metadata.name}; ${object.apiVersion}, Kind=${object.kind}`;
    return E.left(
      clusterError(
        'Internal',
        `failed to create typed patch object (${where}): .${unknown[0] ?? ''}: field not declared in schema`,
      ),
    );
  }
  const cause = `Invalid value: ${JSON.stringify(JSON.stringify(object))}: ${message}`;
  return E.left(
    clusterError('Invalid', ` "" is invalid: patch: ${cause}`, {
      causes: [{ field: 'patch', reason: 'FieldValueInvalid', message: cause }],
    }),
  );
};
