import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemo } from '../../core/memo/memo.js';
import { identityIndex, lazyIdentityIndex, resourceFinder, sameResource } from '../../core/manifest/identity.js';
import type { ObjectRef, Resource } from '../../core/model/resource.js';
import { collidingResource } from './colliding-resource.js';

/** Names, kinds and namespaces collide often (shared names, duplicates). */
const resource = collidingResource();

const refOf = (object: Resource): ObjectRef => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  name: object.metadata.name,
  ...(object.metadata.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
});

/** The definition: the last object with that identity, a missing namespace read as ''. */
const lastWith = (objects: ReadonlyArray<Resource>, ref: ObjectRef): Resource | undefined =>
  objects.findLast(
    (object) =>
      object.apiVersion === ref.apiVersion &&
      object.kind === ref.kind &&
      object.metadata.name === ref.name &&
      (object.metadata.namespace ?? '') === (ref.namespace ?? ''),
  );

describe('identityIndex', () => {
  it('finds the last object with the identity asked for, by reference or by resource (built now or lazily)', () => {
    fc.assert(
      fc.property(fc.array(resource, { maxLength: 12 }), fc.array(resource, { maxLength: 6 }), (objects, queries) => {
        for (const index of [identityIndex(objects), lazyIdentityIndex(objects)])
          for (const query of [...objects, ...queries]) {
            expect(index.get(refOf(query))).toBe(lastWith(objects, refOf(query)));
            expect(index.of(query)).toBe(lastWith(objects, refOf(query)));
          }
      }),
      { numRuns: 500 },
    );
  });
});

describe('resourceFinder', () => {
  it('finds the first entry that is the same resource as the query (sameResource), with or without a memo', () => {
    fc.assert(
      fc.property(
        fc.array(resource, { maxLength: 12 }),
        fc.array(resource, { maxLength: 6 }),
        fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
        (entries, queries, defaultNamespace) => {
          const finders = [
            resourceFinder(entries, defaultNamespace),
            resourceFinder(entries, defaultNamespace, createMemo()),
          ];
          for (const find of finders)
            for (const query of [...entries, ...queries])
              expect(find(query)).toBe(entries.find((entry) => sameResource(entry, query, defaultNamespace)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
