/**
 * Lookups by position answer exactly as the indexes they stand in for (core/manifest/by-position.ts), whatever the
 * lists: lined up, lined up for a while, shuffled, with duplicates and extra objects after the desired ones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findByPosition, identifyByPosition } from '../../core/manifest/by-position.js';
import { identityIndex, inNamespace, resourceFinder } from '../../core/manifest/identity.js';
import { lastAppliedFromSpec, updateLastAppliedManifestFromSpec } from '../../core/manifest/last-applied.js';
import { createMemo } from '../../core/memo/memo.js';
import type { ObserverSchema } from '../../core/model/observer-schema.js';
import type { Resource } from '../../core/model/resource.js';
import { defaultObserverSchemas } from '../../core/schema/default.js';
import { collidingResource } from './colliding-resource.js';
import { indexSchemas, schemaFor } from '../../core/schema/lookup.js';

const RUNS = { numRuns: Math.max(1000, Number(process.env.KRECONCILE_PROPERTY_RUNS ?? 0)) };

/** Identities collide often. */
const resource = collidingResource(fc.nat(9));

const identity = (object: Resource): string => `${object.apiVersion}|${object.kind}|${object.metadata.name}`;

/** Queries no two of which share (apiVersion, kind, metadata.name). */
const distinctQueries = fc.uniqueArray(resource, { selector: identity, maxLength: 8 });

/** A copy of a query with its identity (another object, the namespace sometimes left out or spelled out). */
const entryFor = (query: Resource, variant: number): Resource => {
  const { namespace, ...metadata } = query.metadata;
  if (variant === 1) return { ...query, metadata };
  if (variant === 2) return { ...query, metadata: { ...metadata, namespace: namespace ?? 'x' } };
  return { ...query, metadata: { ...query.metadata } };
};

/** Entries made from the queries: lined up, then changed at random (replaced, removed, moved, extended). */
const scenario = distinctQueries.chain((queries) =>
  fc.record({
    queries: fc.constant(queries),
    entries: fc
      .tuple(
        fc.array(fc.nat(3), { minLength: queries.length, maxLength: queries.length }),
        fc.array(fc.tuple(fc.nat(7), resource), { maxLength: 3 }),
        fc.array(resource, { maxLength: 4 }),
        fc.boolean(),
      )
      .map(([variants, edits, extra, reverse]) => {
        const entries: Resource[] = queries.map((query, i) => entryFor(query, variants[i] ?? 0));
        for (const [at, replacement] of edits) entries.splice(at % (entries.length + 1), at % 2, replacement);
        const all = [...entries, ...extra];
        return reverse ? all.reverse() : all;
      }),
    namespace: fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
  }),
);

describe('lookups by position', () => {
  it('findByPosition answers as resourceFinder: the first entry that is the same resource', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), ({ queries, entries, namespace }, withMemo) => {
        const memo = withMemo ? createMemo() : undefined;
        const find = resourceFinder(entries, namespace);
        const at = findByPosition(entries, { distinct: queries }, namespace, memo);
        queries.forEach((query, index) => expect(at(index)).toBe(find(query)));
      }),
      RUNS,
    );
  });

  it('identifyByPosition answers as identityIndex: the last object with the identity', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), ({ queries, entries }, withMemo) => {
        const memo = withMemo ? createMemo() : undefined;
        const index = identityIndex(entries);
        const at = identifyByPosition(entries, { distinct: queries }, memo);
        queries.forEach((query, i) => expect(at(i)).toBe(index.of(query)));
      }),
      RUNS,
    );
  });

  it('lined-up lists are answered without an index: a lookup of a position past the lists finds nothing', () => {
    const queries = [resourceNamed('a'), resourceNamed('b')];
    const entries = queries.map((query) => entryFor(query, 0));
    expect(findByPosition(entries, { distinct: queries }, 'x')(1)).toBe(entries[1]);
    expect(identifyByPosition(entries, { distinct: queries })(0)).toBe(entries[0]);
    expect(findByPosition(entries, { distinct: queries }, 'x')(2)).toBeUndefined();
  });
});

const resourceNamed = (name: string): Resource => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

/** A custom schema for a resource's identity (a schema observes `data`). */
const schemaOf = (object: Resource): ObserverSchema => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  metadata: { name: object.metadata.name },
  data: null,
});

describe('defaultObserverSchemas', () => {
  it("gives each resource the schema schemaFor finds, and says whether the resources' identities are distinct", () => {
    fc.assert(
      fc.property(fc.array(resource, { maxLength: 8 }), fc.array(resource, { maxLength: 4 }), (manifest, custom) => {
        const { mangled, perResource, distinct } = defaultObserverSchemas({
          manifest,
          observerSchema: custom.map(schemaOf),
        });
        const index = indexSchemas(mangled);
        manifest.forEach((object, i) => expect(perResource[i]).toBe(schemaFor(index, object)));
        expect(distinct).toBe(new Set(manifest.map(identity)).size === manifest.length);
      }),
      RUNS,
    );
  });
});

/** A resource the manifest could hold: a ConfigMap, or a Service (sometimes a LoadBalancer), namespace or not. */
const manifestResource: fc.Arbitrary<Resource> = fc
  .record({
    kind: fc.constantFrom('ConfigMap', 'Service'),
    name: fc.constantFrom('a', 'b', 'c'),
    namespace: fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
    loadBalancer: fc.boolean(),
    value: fc.constantFrom('1', '2'),
  })
  .map(({ kind, name, namespace, loadBalancer, value }) => ({
    apiVersion: 'v1',
    kind,
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), labels: { app: value } },
    ...(kind === 'Service'
      ? { spec: { ...(loadBalancer ? { type: 'LoadBalancer' } : {}), ports: [{ port: 80 }] } }
      : { data: { key: value } }),
  }));

/** What an earlier reconcile learned of a resource: values it did not write (namespace, status, a port's nodePort). */
const learnedOf = (resource: Resource, tag: number): Resource => ({
  ...resource,
  metadata: { ...resource.metadata, namespace: resource.metadata.namespace ?? 'x', uid: `u${tag}` },
  status: { loadBalancer: { ingress: [{ ip: `10.0.0.${tag}` }] } },
  ...(resource.kind === 'Service' ? { spec: { ports: [{ port: 80, nodePort: 30000 + tag }] } } : {}),
});

describe('updateLastAppliedManifestFromSpec by position', () => {
  it('keeps what the index-based merge keeps, namespaces set or dropped, custom schemas and duplicates included', () => {
    fc.assert(
      fc.property(
        fc.array(manifestResource, { maxLength: 6 }),
        fc.array(fc.option(fc.constantFrom('x', 'z'), { nil: undefined }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(7), fc.nat(9)), { maxLength: 6 }),
        fc.array(manifestResource, { maxLength: 2 }),
        (written, namespaces, learned, custom) => {
          const schemas = defaultObserverSchemas({ manifest: written, observerSchema: custom.map(schemaOf) });
          const manifest = written.map((resource, i) => inNamespace(resource, namespaces[i]));
          const lastAppliedManifest = learned.flatMap(([at, tag]) => {
            const resource = written[at % Math.max(1, written.length)];
            return resource === undefined ? [] : [learnedOf(resource, tag)];
          });
          const args = { manifest, mangledObserverSchema: schemas.mangled, lastAppliedManifest, namespace: 'x' };
          expect(lastAppliedFromSpec({ ...args, byPosition: schemas })).toEqual(
            updateLastAppliedManifestFromSpec(args),
          );
        },
      ),
      RUNS,
    );
  });
});
