/** Turns JSON answers into Resources: list items and watch objects may lack apiVersion/kind. */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonObject, withKey, type JsonValue } from '../../core/json/json.js';
import { isResource, type ObjectRef, type Resource } from '../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';

type TypeMeta = { readonly apiVersion: string; readonly kind: string };

/**
 * The answer as a Resource. Items of a built-in list come without `apiVersion`/`kind` (the
 * list carries them), so they are filled in from the request.
 */
export const toResource = (value: JsonValue, type: TypeMeta, ref?: ObjectRef): E.Either<ClusterError, Resource> => {
  if (!isJsonObject(value))
    return E.left(
      clusterError('Internal', 'the server answered with a non-object', { code: 200, ...(ref ? { ref } : {}) }),
    );
  const withType = withKey(
    withKey(value, 'apiVersion', typeof value.apiVersion === 'string' ? value.apiVersion : type.apiVersion),
    'kind',
    typeof value.kind === 'string' ? value.kind : type.kind,
  );
  return isResource(withType)
    ? E.right(withType)
    : E.left(
        clusterError('Internal', `the server answered with something that is not a ${type.kind}`, {
          code: 200,
          ...(ref ? { ref } : {}),
        }),
      );
};

/** Whether a JSON answer is a `Status` (what DELETE returns once an object is gone). */
export const isStatus = (value: JsonValue): boolean =>
  isJsonObject(value) && value.kind === 'Status' && (value.apiVersion === 'v1' || value.apiVersion === undefined);
