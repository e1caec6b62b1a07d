/** A one-version CustomResourceDefinition with a given schema: what the custom-resource tests install. */
import type { JsonObject } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';

export const crdWithSchema = (
  schema: JsonObject,
  names: { readonly group?: string; readonly plural?: string; readonly kind?: string } = {},
): Resource => {
  const { group = 'example.com', plural = 'widgets', kind = 'Widget' } = names;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
};
