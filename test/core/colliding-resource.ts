/** Resources with few values per identity part, so that names, kinds and namespaces collide often. */
import fc from 'fast-check';
import type { Resource } from '../../core/model/resource.js';

export const collidingResource = (tag: fc.Arbitrary<number> = fc.nat()): fc.Arbitrary<Resource> =>
  fc
    .record({
      apiVersion: fc.constantFrom('v1', 'apps/v1'),
      kind: fc.constantFrom('ConfigMap', 'Deployment'),
      name: fc.constantFrom('a', 'b', 'c'),
      namespace: fc.option(fc.constantFrom('', 'x', 'y'), { nil: undefined }),
      tag,
    })
    .map(({ apiVersion, kind, name, namespace, tag }) => ({
      apiVersion,
      kind,
      metadata: { name, ...(namespace === undefined ? {} : { namespace }), labels: { tag: String(tag) } },
    }));
