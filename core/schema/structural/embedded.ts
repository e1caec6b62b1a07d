/**
 * `x-kubernetes-embedded-resource`: an object that is itself a Kubernetes object needs a
 * non-empty `apiVersion` and `kind` (the server's embedded ObjectMeta check).
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import type { ErrorCause } from '../../ports/errors.js';
import { required } from './go-text.js';
import { childPath, forEachNode } from './walk.js';

const nonEmpty = (value: JsonValue | undefined): boolean => typeof value === 'string' && value !== '';

export const embeddedCauses = (value: JsonValue, schema: JsonObject): ReadonlyArray<ErrorCause> => {
  const causes: ErrorCause[] = [];
  forEachNode(value, schema, '', (node, nodeSchema, path) => {
    if (path === '' || !isJsonObject(node) || getOwn(nodeSchema, 'x-kubernetes-embedded-resource') !== true) return;
    if (!nonEmpty(getOwn(node, 'kind'))) causes.push(required(childPath(path, 'kind')));
    if (!nonEmpty(getOwn(node, 'apiVersion'))) causes.push(required(childPath(path, 'apiVersion')));
  });
  return causes;
};
