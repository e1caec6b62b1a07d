/** Arbitraries of whole Applications for the test kit (manifests and schemas come from the core's). */
import fc from 'fast-check';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Application } from '../../core/internal.js';
import { manifestArbitrary } from '../../core/model/resource.arbitrary.js';
import { customSchemasArbitrary } from '../../core/model/observer-schema.arbitrary.js';

/** An Application in `namespace`: a manifest of 1–`maxResources` resources and some custom schemas. */
export const applicationArbitrary = (
  options: { readonly namespace?: string; readonly maxResources?: number } = {},
): fc.Arbitrary<Application> =>
  fc
    .tuple(fc.constantFrom('shop', 'blog', 'wiki', 'api'), manifestArbitrary(options.maxResources ?? 4))
    .chain(([name, manifest]) =>
      customSchemasArbitrary(manifest).map((observerSchema): Application => ({
        apiVersion: APPLICATION_API_VERSION,
        kind: APPLICATION_KIND,
        metadata: { name, namespace: options.namespace ?? 'default' },
        spec: { manifest, ...(observerSchema.length > 0 ? { observerSchema } : {}) },
      })),
    );
