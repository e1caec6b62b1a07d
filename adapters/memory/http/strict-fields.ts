/**
 * `fieldValidation` on writes, as kube-apiserver 1.36 answers it: `Strict` refuses a body with a
 * field the kind's schema does not have (400, `strict decoding error: unknown field "spec.replica"`,
 * every field named); `Warn` (the default) and `Ignore` accept it. Built-in kinds are checked
 * against the committed Kubernetes schemas, custom resources against their CRD in the cluster.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { Resource } from '../../../core/model/resource.js';
import type { Cluster } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import {
  catalogOfCompact,
  catalogOfCrds,
  mergeCatalogs,
  unknownFieldPaths,
  type SchemaCatalog,
} from '../../../core/schema/catalog.js';
import { builtinSchemas } from '../../schemas/builtin-schemas.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const DIRECTIVES: ReadonlyArray<FieldValidation> = ['Strict', 'Warn', 'Ignore'];

/** The request's directive; an unknown one is refused (400) as the API server does. */
export const fieldValidationOf = (query: URLSearchParams): E.Either<ClusterError, FieldValidation | undefined> => {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return E.right(undefined);
  const directive = DIRECTIVES.find((known) => known === value);
  return directive === undefined
    ? E.left(
        clusterError(
          'BadRequest',
          `fieldValidation: invalid fieldValidation directive: ${value}: supported values: "Ignore", "Warn", "Strict"`,
        ),
      )
    : E.right(directive);
};

let builtinCatalog: SchemaCatalog | undefined;

/** The built-in kinds' catalog, built once (the file is immutable). */
const builtin = (): SchemaCatalog => (builtinCatalog ??= catalogOfCompact(builtinSchemas()));

/** Built-in kinds, plus the cluster's CRDs when the object is not of a built-in kind. */
export const catalogForKind = (cluster: Cluster, object: Resource): TE.TaskEither<ClusterError, SchemaCatalog> =>
  builtin().kinds.get(object.apiVersion)?.has(object.kind) === true
    ? TE.right(builtin())
    : pipe(
        cluster.list({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }),
        TE.map((crds) => mergeCatalogs(builtin(), catalogOfCrds(crds.items))),
      );

/** Under `Strict`, refuses an object with fields its kind does not have; anything else passes. */
export const strictFields = (
  cluster: Cluster,
  directive: FieldValidation | undefined,
  object: Resource,
): TE.TaskEither<ClusterError, void> =>
  directive !== 'Strict'
    ? TE.right(undefined)
    : pipe(
        catalogForKind(cluster, object),
        TE.flatMap((catalog) => {
          const unknown = unknownFieldPaths(object, catalog);
          return unknown.length === 0
            ? TE.right(undefined)
            : TE.left(
                clusterError(
                  'BadRequest',
                  `strict decoding error: ${unknown.map((path) => `unknown field "${path}"`).join(', ')}`,
                ),
              );
        }),
      );
