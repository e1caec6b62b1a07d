/**
 * Strategic merge patch of built-in kinds (strategic-merge.ts), with their patch strategies from the committed schemas.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { JsonObject } from '../../../core/json/json.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { builtinSchemas } from '../../schemas/builtin-schemas.js';
import type { MergeFailure } from './merge-failure.js';
import { rootSchema } from './patch-schema.js';
import { strategicMerge } from './strategic-merge.js';

export { strategicMerge } from './strategic-merge.js';
export type { MergeFailure } from './merge-failure.js';
export { rootSchema, type PatchSchema } from './patch-schema.js';

/** The media types kube-apiserver accepts for a patch of a built-in kind and of a custom resource. */
export const BUILTIN_PATCH_TYPES =
  'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml';
export const CUSTOM_PATCH_TYPES =
  'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

/**
 * 415 for a patch type the kind does not take: a strategic merge patch of a custom resource, as the real server answers
 * it.
 */
export const unsupportedPatchType = (custom: boolean): ClusterError =>
  clusterError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${custom ? CUSTOM_PATCH_TYPES : BUILTIN_PATCH_TYPES}`,
    { code: 415 },
  );

const asClusterError = (failure: MergeFailure): ClusterError =>
  failure.code === 400
    ? clusterError('BadRequest', failure.message)
    : failure.code === 422
      ? clusterError('Invalid', failure.message)
      : clusterError('Internal', failure.message);

/**
 * A strategic merge patch of a built-in kind's object, at the apiVersion it is served at: merged
 * by the strategies of that version's schema (none for a kind the file lacks: maps merge, lists
 * are replaced), failures answered as the server answers them.
 */
export const strategicPatched = (
  apiVersion: string,
  kind: string,
  base: JsonObject,
  patch: JsonObject,
): E.Either<ClusterError, JsonObject> => {
  const file = builtinSchemas();
  return pipe(
    strategicMerge(base, patch, rootSchema(file.schemas, file.kinds[apiVersion]?.[kind])),
    E.mapLeft(asClusterError),
  );
};
