/**
 * The status as stored (docs/decisions/0023-status-size.md): what can be regenerated from the
 * desired state is not kept. A schema the default generation gives (docs/behaviour.md §3) is kept
 * as a reference to the `lastAppliedManifest` entry it is generated from; an observed entry equal
 * to that entry's projection on its schema (a child in sync) likewise. Everything else (custom and
 * hook schemas, drifted or learned observations, resources no longer desired) is kept whole. A
 * reference is written only when regenerating it gives the very same JSON (checked when packing),
 * so unpacking gives back exactly the status that was packed: plans do not change.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import { isResource, type Resource } from '../model/resource.js';
import { defaultSchemaForResource } from '../schema/default.js';
import { observeResource } from './project.js';

/** The three lists the packing works on (the rest of the status is stored as it is). */
export type StatusManifests = {
  readonly mangledObserverSchema?: ReadonlyArray<ObserverSchema>;
  readonly lastAppliedManifest?: ReadonlyArray<Resource>;
  readonly lastObservedManifest?: ReadonlyArray<JsonObject>;
};

/** The packed form's version: what `unpackManifests` reads. */
export const PACKED_MANIFESTS_FORMAT = 1;

/** A schema generated from `lastAppliedManifest[generatedFrom]` (without its namespace when `namespaced` is false). */
type GeneratedRef = { readonly generatedFrom: number; readonly namespaced?: false };
/** An observed entry equal to `lastAppliedManifest[projectedFrom]` projected on its schema. */
type ProjectedRef = { readonly projectedFrom: number };

/** The packed lists: plain JSON, ready to be stored (or compressed by the shell). */
export type PackedManifests = {
  readonly format: typeof PACKED_MANIFESTS_FORMAT;
  readonly lastAppliedManifest?: ReadonlyArray<Resource>;
  readonly mangledObserverSchema?: ReadonlyArray<ObserverSchema | GeneratedRef>;
  readonly lastObservedManifest?: ReadonlyArray<JsonObject | ProjectedRef>;
};

/** Same JSON, key order included: a reference must give back exactly what it replaces. */
const sameText = (a: JsonValue, b: JsonValue): boolean => JSON.stringify(a) === JSON.stringify(b);

const withoutNamespace = (resource: Resource): Resource => {
  if (getOwn(resource.metadata, 'namespace') === undefined) return resource;
  const { namespace: _dropped, ...metadata } = resource.metadata;
  return { ...resource, metadata: { ...metadata, name: resource.metadata.name } };
};

/** The identity key of an object (apiVersion, kind, name) as schemas are matched (core/schema/lookup.ts). */
const schemaMatchKey = (object: JsonObject): string => {
  const metadata = getOwn(object, 'metadata');
  return JSON.stringify([
    getOwn(object, 'apiVersion'),
    getOwn(object, 'kind'),
    isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined,
  ]);
};

/** The first object per (apiVersion, kind, name), as the planner looks schemas up (core/schema/lookup.ts). */
const firstByKey = (objects: ReadonlyArray<JsonObject>): ReadonlyMap<string, JsonObject> => {
  const first = new Map<string, JsonObject>();
  for (const object of objects) {
    const key = schemaMatchKey(object);
    if (!first.has(key)) first.set(key, object);
  }
  return first;
};

/** The index of the applied entry each (apiVersion, kind, name) names first. */
const appliedIndex = (applied: ReadonlyArray<Resource>): ReadonlyMap<string, number> => {
  const index = new Map<string, number>();
  applied.forEach((resource, i) => {
    const key = schemaMatchKey(resource);
    if (!index.has(key)) index.set(key, i);
  });
  return index;
};

/** A schema as a reference to the applied entry it is the default of, or itself. */
const packSchema = (
  schema: ObserverSchema,
  applied: ReadonlyArray<Resource>,
  index: ReadonlyMap<string, number>,
): ObserverSchema | GeneratedRef => {
  const at = index.get(schemaMatchKey(schema));
  const source = at === undefined ? undefined : applied[at];
  if (at === undefined || source === undefined) return schema;
  if (sameText(defaultSchemaForResource(source), schema)) return { generatedFrom: at };
  if (sameText(defaultSchemaForResource(withoutNamespace(source)), schema))
    return { generatedFrom: at, namespaced: false };
  return schema;
};

/** Packs the three lists; the result unpacks to exactly them. */
export const packManifests = (manifests: StatusManifests): PackedManifests => {
  const applied = manifests.lastAppliedManifest ?? [];
  const index = appliedIndex(applied);
  const schemas = manifests.mangledObserverSchema;
  const lookup = firstByKey(schemas ?? []);
  const packObserved = (entry: JsonObject): JsonObject | ProjectedRef => {
    const at = index.get(schemaMatchKey(entry));
    const source = at === undefined ? undefined : applied[at];
    const schema = source === undefined ? undefined : lookup.get(schemaMatchKey(source));
    if (at === undefined || source === undefined || schema === undefined) return entry;
    return sameText(observeResource(source, schema), entry) ? { projectedFrom: at } : entry;
  };
  return {
    format: PACKED_MANIFESTS_FORMAT,
    ...(manifests.lastAppliedManifest === undefined ? {} : { lastAppliedManifest: applied }),
    ...(schemas === undefined ? {} : { mangledObserverSchema: schemas.map((s) => packSchema(s, applied, index)) }),
    ...(manifests.lastObservedManifest === undefined
      ? {}
      : { lastObservedManifest: manifests.lastObservedManifest.map(packObserved) }),
  };
};

/** A list of objects, or why not. */
const objectList = (value: JsonValue | undefined, field: string): E.Either<string, ReadonlyArray<JsonObject>> => {
  if (value === undefined) return E.right([]);
  if (!isJsonArray(value) || !value.every(isJsonObject)) return E.left(`${field}: expected a list of objects`);
  return E.right(value.filter(isJsonObject));
};

const referenceTo = (entry: JsonObject, key: string, applied: ReadonlyArray<Resource>): Resource | undefined => {
  const at = getOwn(entry, key);
  return typeof at === 'number' && Number.isInteger(at) ? applied[at] : undefined;
};

/** Whether an entry is a reference (`generatedFrom`/`projectedFrom` and nothing an object has). */
const isReference = (entry: JsonObject, key: string): boolean =>
  getOwn(entry, key) !== undefined && getOwn(entry, 'kind') === undefined;

const unpackSchema = (entry: JsonObject, applied: ReadonlyArray<Resource>): E.Either<string, JsonObject> => {
  if (!isReference(entry, 'generatedFrom')) return E.right(entry);
  const source = referenceTo(entry, 'generatedFrom', applied);
  if (source === undefined) return E.left('mangledObserverSchema: a reference to no lastAppliedManifest entry');
  return E.right(defaultSchemaForResource(getOwn(entry, 'namespaced') === false ? withoutNamespace(source) : source));
};

/** The three lists back from their packed form, or why it is not one (a path-named line). */
export const unpackManifests = (packed: JsonObject): E.Either<string, Record<string, ReadonlyArray<JsonObject>>> => {
  if (getOwn(packed, 'format') !== PACKED_MANIFESTS_FORMAT)
    return E.left(`format: expected ${PACKED_MANIFESTS_FORMAT} (written by a newer kreconcile?)`);
  const appliedList = objectList(getOwn(packed, 'lastAppliedManifest'), 'lastAppliedManifest');
  if (E.isLeft(appliedList)) return appliedList;
  if (!appliedList.right.every(isResource)) return E.left('lastAppliedManifest: expected resources');
  const applied = appliedList.right.filter(isResource);
  const schemaEntries = objectList(getOwn(packed, 'mangledObserverSchema'), 'mangledObserverSchema');
  if (E.isLeft(schemaEntries)) return schemaEntries;
  const schemas: JsonObject[] = [];
  for (const entry of schemaEntries.right) {
    const schema = unpackSchema(entry, applied);
    if (E.isLeft(schema)) return schema;
    schemas.push(schema.right);
  }
  const observed = unpackObserved(getOwn(packed, 'lastObservedManifest'), applied, schemas);
  if (E.isLeft(observed)) return observed;
  return E.right({
    ...(getOwn(packed, 'lastAppliedManifest') === undefined ? {} : { lastAppliedManifest: applied }),
    ...(getOwn(packed, 'mangledObserverSchema') === undefined ? {} : { mangledObserverSchema: schemas }),
    ...(getOwn(packed, 'lastObservedManifest') === undefined ? {} : { lastObservedManifest: observed.right }),
  });
};

const unpackObserved = (
  value: JsonValue | undefined,
  applied: ReadonlyArray<Resource>,
  schemas: ReadonlyArray<JsonObject>,
): E.Either<string, ReadonlyArray<JsonObject>> => {
  const entries = objectList(value, 'lastObservedManifest');
  if (E.isLeft(entries)) return entries;
  const lookup = firstByKey(schemas);
  const out: JsonObject[] = [];
  for (const entry of entries.right) {
    if (!isReference(entry, 'projectedFrom')) {
      out.push(entry);
      continue;
    }
    const source = referenceTo(entry, 'projectedFrom', applied);
    const schema = source === undefined ? undefined : lookup.get(schemaMatchKey(source));
    if (source === undefined || schema === undefined)
      return E.left('lastObservedManifest: a reference to no lastAppliedManifest entry with a schema');
    out.push(observeResource(source, schema));
  }
  return E.right(out);
};
