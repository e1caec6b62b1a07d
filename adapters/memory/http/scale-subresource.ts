/**
 * The `scale` subresource of the built-in workloads (`kubectl scale`, HorizontalPodAutoscaler):
 * an autoscaling/v1 `Scale` read from the object, and writes of `spec.replicas` through it (GET,
 * PUT, and PATCH as a merge patch, JSON patch or strategic merge patch of the Scale).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { getIn, isJsonObject, type JsonObject, type JsonValue, parseJsonText } from '../../../core/json/json.js';
import type { ObjectRef, Resource } from '../../../core/model/resource.js';
import type { Cluster } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { applyJsonPatch } from '../json/index.js';
import type { KindAt } from './api-routes.js';
import { defined } from '../../../core/json/defined.js';

/** `matchLabels` as a label selector string (`app=web,tier=front`); expressions are left out. */
const selectorText = (object: Resource): string => {
  const selector = getIn(object, ['spec', 'selector']);
  const labels = isJsonObject(selector) && isJsonObject(selector.matchLabels) ? selector.matchLabels : selector;
  return isJsonObject(labels)
    ? Object.entries(labels)
        .flatMap(([key, value]) => (typeof value === 'string' ? [`${key}=${value}`] : []))
        .join(',')
    : '';
};

const scaleOf = (object: Resource): JsonObject => {
  const replicas = getIn(object, ['spec', 'replicas']);
  const observed = getIn(object, ['status', 'replicas']);
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name,
      ...defined({ namespace, uid, resourceVersion, creationTimestamp }),
    },
    spec: { replicas: typeof replicas === 'number' ? replicas : 1 },
    status: { replicas: typeof observed === 'number' ? observed : 0, selector: selectorText(object) },
  };
};

const badRequest = (message: string): ClusterError => clusterError('BadRequest', message);

/** The Scale a write asks for: the PUT body, or the current Scale with the PATCH applied. */
const requestedScale = (
  method: string,
  contentType: string,
  body: string,
  current: JsonObject,
): E.Either<ClusterError, JsonValue> => {
  let parsed: JsonValue;
  try {
    parsed = parseJsonText(body);
  } catch (error) {
    return E.left(badRequest(`the request body is not valid JSON: ${error instanceof Error ? error.message : ''}`));
  }
  if (method === 'PUT') return E.right(parsed);
  if (contentType === 'application/json-patch+json') return applyJsonPatch(current, parsed);
  if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') {
    // Scale has no lists: a strategic merge patch of it is a merge patch.
    const replicas = getIn(parsed, ['spec', 'replicas']);
    return E.right(replicas === undefined ? current : { ...current, spec: { replicas } });
  }
  return E.left(
    clusterError('UnsupportedMediaType', `the body of the request was in an unknown format (${contentType})`, {
      code: 415,
    }),
  );
};

const replicasOf = (scale: JsonValue): E.Either<ClusterError, number> => {
  const replicas = getIn(scale, ['spec', 'replicas']);
  return typeof replicas === 'number' && Number.isInteger(replicas) && replicas >= 0
    ? E.right(replicas)
    : E.left(
        clusterError(
          'Invalid',
          'Scale.autoscaling "" is invalid: spec.replicas: Invalid value: must be greater than or equal to 0',
          {
            code: 422,
            causes: [
              { field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'must be a non-negative integer' },
            ],
          },
        ),
      );
};

/** Answers a request on `<workload>/scale`. */
export const answerScale = async (
  cluster: Cluster,
  request: { readonly method: string; readonly contentType: string; readonly body: string },
  target: { readonly kind: KindAt; readonly name: string; readonly namespace?: string },
): Promise<E.Either<ClusterError, JsonObject>> => {
  const ref: ObjectRef = {
    apiVersion: target.kind.apiVersion,
    kind: target.kind.kind,
    name: target.name,
    ...defined({ namespace: target.namespace }),
  };
  const read = await cluster.get(ref)();
  if (E.isLeft(read)) return read;
  if (O.isNone(read.right))
    return E.left(
      clusterError('NotFound', `${target.kind.plural}.${target.kind.group || 'core'} "${target.name}" not found`, {
        ref,
      }),
    );
  const current = scaleOf(read.right.value);
  if (request.method === 'GET') return E.right(current);
  if (request.method !== 'PUT' && request.method !== 'PATCH')
    return E.left(
      clusterError('BadRequest', `${request.method} is not supported on the scale subresource`, { code: 405 }),
    );
  const wanted = requestedScale(request.method, request.contentType, request.body, current);
  if (E.isLeft(wanted)) return wanted;
  const replicas = replicasOf(wanted.right);
  if (E.isLeft(replicas)) return replicas;
  const expected = getIn(wanted.right, ['metadata', 'resourceVersion']);
  if (
    request.method === 'PUT' &&
    typeof expected === 'string' &&
    expected !== read.right.value.metadata.resourceVersion
  )
    return E.left(
      clusterError(
        'Conflict',
        `Operation cannot be fulfilled on ${target.kind.plural}.${target.kind.group} "${target.name}": the object has been modified; please apply your changes to the latest version and try again`,
        { ref },
      ),
    );
  const patched = await cluster.patch(ref, { type: 'merge', body: { spec: { replicas: replicas.right } } })();
  return E.map(scaleOf)(patched);
};
