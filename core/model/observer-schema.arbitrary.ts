/**
 * fast-check arbitraries of observer schemas derived from a manifest: random subsets of the
 * written fields, fields the manifest leaves to the cluster, list controls consistent with the
 * validation rules (M = 0 or M >= max(m, observed elements)). Test-only.
 */
import fc from 'fast-check';
import { getOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { makeListControl, type ObserverSchema, type SchemaNode } from './observer-schema.js';
import type { Resource } from './resource.js';

/** Keys a schema may observe although the manifest does not set them (learned from the cluster). */
const UNSET_KEYS = ['clusterIP', 'key3', 'defaulted', 'app.kubernetes.io/version'] as const;

/**
 * A list control for a list schema with `observed` element schemas, for a manifest list of
 * `length` elements: `min` up to length + 1, `max` 0 (no maximum) or at least max(min, observed).
 */
export const listControlArbitrary = (observed: number, length: number): fc.Arbitrary<JsonObject> =>
  fc
    .nat({ max: length + 1 })
    .chain((min) =>
      fc
        .oneof(fc.constant(0), fc.integer({ min: Math.max(min, observed, 1), max: Math.max(min, observed, 1) + 2 }))
        .map((max) => makeListControl(min, max)),
    );

/** An observed marker: Krake's `null` or the merge-patch-safe `true` (validation turns both into `null`). */
const markerArbitrary: fc.Arbitrary<SchemaNode> = fc.constantFrom(null, true);

/**
 * A schema node observing part of `value` (or all of it: a marker). An empty subset of an object
 * observes the whole object instead: an empty schema object is invalid (it is what a JSON merge
 * patch leaves of null markers).
 */
export const schemaNodeArbitrary = (value: JsonValue | undefined): fc.Arbitrary<SchemaNode> => {
  if (isJsonArray(value))
    return fc.oneof({ weight: 1, arbitrary: markerArbitrary }, { weight: 4, arbitrary: listSchemaArbitrary(value) });
  if (isJsonObject(value)) {
    const part = objectSchemaArbitrary(value).map((node) =>
      isJsonObject(node) && Object.keys(node).length === 0 ? null : node,
    );
    return fc.oneof({ weight: 1, arbitrary: markerArbitrary }, { weight: 4, arbitrary: part });
  }
  return markerArbitrary;
};

/** Observed positions 0..k-1 (k may exceed the manifest list by one: a position learned later). */
const listSchemaArbitrary = (list: ReadonlyArray<JsonValue>): fc.Arbitrary<SchemaNode> =>
  fc
    .nat({ max: list.length + 1 })
    .chain((observed) =>
      fc
        .tuple(
          fc.tuple(...Array.from({ length: observed }, (_, i) => schemaNodeArbitrary(list[i]))),
          listControlArbitrary(observed, list.length),
        )
        .map(([elements, control]) => [...elements, control]),
    );

/** A random subset of the object's keys, each observed in part, plus maybe keys it does not set. */
const objectSchemaArbitrary = (object: JsonObject): fc.Arbitrary<SchemaNode> =>
  fc
    .tuple(
      fc.tuple(
        ...Object.entries(object).map(([key, child]) =>
          fc.option(schemaNodeArbitrary(child), { nil: undefined, freq: 3 }).map((node) => [key, node] as const),
        ),
      ),
      fc.subarray(
        UNSET_KEYS.filter((key) => getOwn(object, key) === undefined),
        { maxLength: 1 },
      ),
    )
    .map(([written, unset]) =>
      objectFromEntries([
        ...written.filter((entry): entry is readonly [string, SchemaNode] => entry[1] !== undefined),
        ...unset.map((key) => [key, null] as const),
      ]),
    );

/**
 * A valid custom schema for `resource`: its identification, and a random part of the rest (at
 * least one field: a schema observing only the identity is invalid; `status` when nothing else).
 */
export const observerSchemaArbitrary = (resource: Resource): fc.Arbitrary<ObserverSchema> => {
  const metadata: JsonObject = resource.metadata;
  const rest = objectFromEntries(
    Object.entries(resource).filter(([key]) => key !== 'apiVersion' && key !== 'kind' && key !== 'metadata'),
  );
  const observedMetadata = objectFromEntries(
    Object.entries(metadata).filter(([key]) => key === 'labels' || key === 'annotations'),
  );
  return fc
    .record(
      {
        body: objectSchemaArbitrary(rest),
        metadata: objectSchemaArbitrary(observedMetadata),
        namespace: fc.boolean(),
        status: fc.constantFrom(undefined, null, { phase: null }),
      },
      { noNullPrototype: true },
    )
    .map(({ body: bodyNode, metadata: observedNode, namespace, status }) => {
      // objectSchemaArbitrary of an object is an object schema: these fallbacks are never taken.
      const body = isJsonObject(bodyNode) ? bodyNode : {};
      const observed = isJsonObject(observedNode) ? observedNode : {};
      // apiVersion, kind and metadata.name come from the resource: an ObserverSchema.
      return objectFromEntries([
        ['apiVersion', resource.apiVersion],
        ['kind', resource.kind],
        [
          'metadata',
          objectFromEntries([
            ['name', resource.metadata.name],
            ...(namespace ? [['namespace', null] as const] : []),
            ...Object.entries(observed),
          ]),
        ],
        ...Object.entries(body),
        ...(status === undefined || getOwn(body, 'status') !== undefined ? [] : [['status', status] as const]),
        ...(status === undefined && Object.keys(body).length === 0 && Object.keys(observed).length === 0
          ? [['status', null] as const]
          : []),
      ]) as ObserverSchema;
    });
};

/**
 * Custom schemas for a random subset of a manifest's resources (at most one per resource, in
 * manifest order); the others get default schemas.
 */
export const customSchemasArbitrary = (
  manifest: ReadonlyArray<Resource>,
): fc.Arbitrary<ReadonlyArray<ObserverSchema>> =>
  fc
    .tuple(...manifest.map((resource) => fc.option(observerSchemaArbitrary(resource), { nil: undefined })))
    .map((schemas) => schemas.filter((schema): schema is ObserverSchema => schema !== undefined));
