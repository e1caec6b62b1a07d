/**
 * Fields the API server refuses to change once set (ValidateDeploymentUpdate, ValidateJobUpdate):
 * 422 Invalid with one `FieldValueInvalid` cause per field, `field is immutable`, as kube-apiserver
 * words it (the kind qualified by its group, the new value after `Invalid value:`).
 */
import * as E from 'fp-ts/lib/Either.js';
import { getIn, jsonEqual } from '../../../core/json/json.js';
import { groupOf, refOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';

/** `Job.batch`, `Deployment.apps`, `Service`: how the server names a kind in messages. */
export const qualifiedKind = (object: Resource): string => {
  const group = groupOf(object.apiVersion);
  return group === '' ? object.kind : `${object.kind}.${group}`;
};

/** A 422 naming `field` (dotted path) as unchangeable, with the server's wording `text`. */
export const unchangeable = (object: Resource, field: string, value: unknown, text: string): ClusterError => {
  const message = `Invalid value: ${JSON.stringify(value)}: ${text}`;
  return clusterError(
    'Invalid',
    `${qualifiedKind(object)} "${object.metadata.name}" is invalid: ${field}: ${message}`,
    {
      ref: refOf(object),
      causes: [{ field, reason: 'FieldValueInvalid', message }],
    },
  );
};

/**
 * A `prepareUpdate` step refusing changes to `paths` (under `spec`, compared after defaulting).
 * A field the new object leaves out is not a change (the server keeps it).
 */
export const immutableSpecFields =
  (paths: ReadonlyArray<string>) =>
  (stored: Resource, next: Resource): E.Either<ClusterError, Resource> => {
    const changed = paths.find((path) => {
      const after = getIn(next, ['spec', path]);
      return after !== undefined && !jsonEqual(getIn(stored, ['spec', path]), after);
    });
    return changed === undefined
      ? E.right(next)
      : E.left(unchangeable(next, `spec.${changed}`, getIn(next, ['spec', changed]), 'field is immutable'));
  };
