/**
 * The live objects of each Application, found through one index of the view (issue 26: matching
 * every object against every Application made 4 000 Application files cost 13 s), are exactly
 * those the planner's `live` input is defined to hold: objects of a desired identity and objects
 * carrying the Application's owner mark, in the view's order.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { indexLive, liveObjectsIn, desiredRefs } from '../../app/cli/planning/live-objects.js';
import {
  builtinScopes,
  decodeApplication,
  isOwnedBy,
  refKey,
  refOf,
  type Application,
  type Resource,
} from '../../core/internal.js';

const NAMES = ['a', 'b', 'c'];
const NAMESPACES = ['shop', 'default', 'other'];

const applicationOf = (namespace: string, name: string, manifest: ReadonlyArray<string>): Application => {
  const decoded = decodeApplication({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec: { manifest: manifest.map((child) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: child } })) },
  });
  if (E.isLeft(decoded)) throw new Error('the test Application does not decode');
  return decoded.right;
};

const arbitraryObject: fc.Arbitrary<Resource> = fc
  .record({
    kind: fc.constantFrom('ConfigMap', 'Secret'),
    name: fc.constantFrom(...NAMES),
    namespace: fc.constantFrom(...NAMESPACES),
    owner: fc.option(fc.constantFrom('shop/web', 'shop/api', 'default/web', 'shop/web2'), { nil: undefined }),
    version: fc.nat(3),
  })
  .map(({ kind, name, namespace, owner, version }) => ({
    apiVersion: 'v1',
    kind,
    metadata: {
      name,
      namespace,
      resourceVersion: String(version),
      ...(owner === undefined ? {} : { annotations: { 'kreconcile.io/owner': owner } }),
    },
  }));

/** The definition: every object of the view tested against the Application (what the index replaces). */
const byScan = (application: Application, objects: ReadonlyArray<Resource>): ReadonlyArray<Resource> => {
  const desired = new Set(desiredRefs(application, builtinScopes).map(refKey));
  const owner = { namespace: application.metadata.namespace ?? 'default', name: application.metadata.name };
  return objects.filter((object) => desired.has(refKey(refOf(object))) || isOwnedBy(object, owner));
};

describe('live objects of an Application', () => {
  it('through the index are those of a scan of the view, in its order, duplicates kept', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryObject, { maxLength: 30 }),
        fc.constantFrom('web', 'api'),
        fc.constantFrom(...NAMESPACES),
        fc.subarray(NAMES),
        (objects, name, namespace, manifest) => {
          const application = applicationOf(namespace, name, manifest);
          // Positions in the view: the same objects (not copies), in the same order.
          const positions = (found: ReadonlyArray<Resource>) => found.map((object) => objects.indexOf(object));
          expect(positions(liveObjectsIn(application, indexLive(objects), builtinScopes))).toEqual(
            positions(byScan(application, objects)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an object both desired and owned is found once', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'shop', annotations: { 'kreconcile.io/owner': 'shop/web' } },
    } as Resource;
    expect(liveObjectsIn(applicationOf('shop', 'web', ['a']), indexLive([object]), builtinScopes)).toEqual([object]);
  });
});
