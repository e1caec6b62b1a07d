/**
 * Namespace lifecycle fields: the `kubernetes` finalizer, phase Active, and the `kubernetes.io/metadata.name` label.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonObject, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { KindHooks } from './kind-hook-types.js';

export const NAMESPACE_FINALIZER = 'kubernetes';
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

const withNameLabel = (object: Resource): Resource => ({
  ...object,
  metadata: {
    ...object.metadata,
    labels: { ...(object.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: object.metadata.name },
  },
});

const specOf = (object: Resource): JsonObject => {
  const spec = getOwn(object, 'spec');
  return isJsonObject(spec) ? spec : {};
};

export const namespaceHooks: KindHooks = {
  prepareCreate: (object) =>
    E.right({
      ...withNameLabel(object),
      spec: { ...specOf(object), finalizers: [NAMESPACE_FINALIZER] },
      status: { phase: 'Active' },
    }),
  // spec.finalizers only change through the /finalize subresource (the namespace controller's).
  prepareUpdate: (stored, next) =>
    E.right({
      ...withNameLabel(next),
      spec: { ...specOf(next), finalizers: getOwn(specOf(stored), 'finalizers') ?? [] },
    }),
};
