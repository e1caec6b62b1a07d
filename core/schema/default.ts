/** Default observer schemas (docs/behaviour.md §3): observe exactly what the manifest writes. */
import {
  getIn,
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  setOwn,
  withKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { makeListControl, type ObserverSchema } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import { nameOf } from './lookup.js';

/**
 * The mangled schema: custom schemas first (in the user's order), then a generated schema for
 * every manifest resource without one (in manifest order). Expects validated input.
 */
export const generateDefaultObserverSchema = (args: {
  readonly manifest: ReadonlyArray<Resource>;
  readonly observerSchema: ReadonlyArray<ObserverSchema> | undefined;
}): ReadonlyArray<ObserverSchema> => defaultObserverSchemas(args).mangled;

/** What is known of the resources of a list by position, for lookups without an index. */
export type ByPosition = {
  /** The schema of each manifest resource, by position: what `schemaFor` finds for it in `mangled`. */
  readonly perResource: ReadonlyArray<ObserverSchema>;
  /**
   * Whether the schema at a position was generated from the resource at it (neither a custom schema nor an earlier
   * resource's, and not one a LoadBalancer's status was added to): it observes no key that resource does not write,
   * so nothing can be learned into it (core/manifest/last-applied.ts).
   */
  readonly ownSchema: ReadonlyArray<boolean>;
  /** No two manifest resources share (apiVersion, kind, metadata.name) (core/manifest/by-position.ts). */
  readonly distinct: boolean;
};

/** The mangled schema, with what generating it learned of the manifest (of its resources, by position). */
export type DefaultSchemas = ByPosition & { readonly mangled: ReadonlyArray<ObserverSchema> };

/**
 * `generateDefaultObserverSchema`, with the schema of each resource: its claim records the first
 * schema of each (apiVersion, kind, metadata.name), custom ones first, which is the one `schemaFor`
 * finds; a resource finding a schema a resource before it found or generated shares its identity.
 */
export const defaultObserverSchemas = (args: {
  readonly manifest: ReadonlyArray<Resource>;
  readonly observerSchema: ReadonlyArray<ObserverSchema> | undefined;
}): DefaultSchemas => {
  const custom = args.observerSchema ?? [];
  const claimsOf = schemaClaims();
  for (const schema of custom) {
    const claims = claimsOf(schema);
    const name = nameOf(schema);
    if (!claims.has(name)) claims.set(name, schema);
  }
  const generated: ObserverSchema[] = [];
  // Custom schemas found by a manifest resource: a second one finding it shares that resource's identity.
  const customFound = new Set<ObserverSchema>();
  const customs = new Set(custom);
  const perResource = new Array<ObserverSchema>(args.manifest.length);
  const ownSchema = new Array<boolean>(args.manifest.length).fill(false);
  let distinct = true;
  // An indexed loop: an array iterator's results are allocated until the loop is optimized (once per plan).
  for (let i = 0; i < args.manifest.length; i++) {
    const resource = args.manifest[i];
    if (resource === undefined) continue;
    const claims = claimsOf(resource);
    const name = nameOf(resource);
    let schema = claims.get(name);
    if (schema === undefined) {
      schema = defaultSchemaForResource(resource);
      claims.set(name, schema);
      generated.push(schema);
      ownSchema[i] = !isLoadBalancer(resource);
    } else if (customFound.has(schema) || !customs.has(schema)) distinct = false;
    else customFound.add(schema);
    perResource[i] = schema;
  }
  // `concat`, not a spread: no array iterator over every generated schema.
  return { mangled: custom.concat(generated), perResource, ownSchema, distinct };
};

type Claims = Map<JsonValue | undefined, ObserverSchema>;

/**
 * The first schema claimed for each (apiVersion, kind, metadata.name): per (apiVersion, kind), the
 * claims by name. Nested maps keyed by the values, as `schemaFor` matches: no key string per resource.
 */
const schemaClaims = (): ((object: JsonObject) => Claims) => {
  const byVersion = new Map<JsonValue | undefined, Map<JsonValue | undefined, Claims>>();
  return (object) => {
    const version = getOwn(object, 'apiVersion');
    let kinds = byVersion.get(version);
    if (kinds === undefined) byVersion.set(version, (kinds = new Map<JsonValue | undefined, Claims>()));
    const kind = getOwn(object, 'kind');
    let claims = kinds.get(kind);
    if (claims === undefined) kinds.set(kind, (claims = new Map<JsonValue | undefined, ObserverSchema>()));
    return claims;
  };
};

/**
 * The default schema `generateDefaultObserverSchema` gives one resource: what the stored status
 * regenerates instead of keeping (core/manifest/stored-status.ts).
 */
export const defaultSchemaForResource = (resource: Resource): ObserverSchema => {
  const identified = identifiedNodeOf(resource);
  // identifiedNodeOf set apiVersion, kind and metadata.name from the resource: an ObserverSchema.
  return (isLoadBalancer(resource) ? withLoadBalancerStatus(identified) : identified) as ObserverSchema;
};

/**
 * The schema node of a resource with its identification values set. The node is new and not
 * yet shared, so it is completed in place instead of being copied four times.
 */
const identifiedNodeOf = (resource: Resource): JsonObject => {
  const node = objectNodeOf(resource);
  setOwn(node, 'apiVersion', resource.apiVersion);
  setOwn(node, 'kind', resource.kind);
  const metadata = getOwn(node, 'metadata');
  setOwn(node, 'metadata', withKey(isJsonObject(metadata) ? metadata : {}, 'name', resource.metadata.name));
  return node;
};

/**
 * Every leaf becomes null; every list keeps one schema per element and ends with the control
 * `m = M = length`. An empty manifest list becomes `[{m: 0, M: 0}]`: with `M = 0` meaning
 * "no maximum", nothing about it is enforced (the API server drops empty lists anyway).
 */
const schemaNodeOf = (value: JsonValue): JsonValue => {
  if (typeof value !== 'object' || value === null) return null;
  if (isJsonArray(value)) {
    const list: JsonValue[] = new Array<JsonValue>(value.length + 1);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      list[i] = item === undefined ? null : leafOrNodeOf(item);
    }
    list[value.length] = makeListControl(value.length, value.length);
    return list;
  }
  return objectNodeOf(value);
};

/** The schema node of an object, new and unshared (its caller may complete it in place). */
const objectNodeOf = (value: JsonObject): Record<string, JsonValue> => {
  // Built key by key (no entry arrays): this runs for every resource of every fresh spec.
  const node: Record<string, JsonValue> = {};
  for (const key in value) {
    const child = value[key];
    if (hasOwn(value, key)) setOwn(node, key, child === undefined ? null : leafOrNodeOf(child));
  }
  return node;
};

/** `schemaNodeOf`, with a scalar (most values) answered without the call. */
const leafOrNodeOf = (value: JsonValue): JsonValue =>
  typeof value === 'object' && value !== null ? schemaNodeOf(value) : null;

const isLoadBalancer = (resource: Resource): boolean =>
  resource.kind === 'Service' && resource.apiVersion === 'v1' && getIn(resource, ['spec', 'type']) === 'LoadBalancer';

/** A LoadBalancer Service also reports its address (camelCase key, as the API serves it). */
const withLoadBalancerStatus = (schema: JsonObject): JsonObject => {
  const status = getOwn(schema, 'status');
  const statusNode = isJsonObject(status) ? status : {};
  const loadBalancer = getOwn(statusNode, 'loadBalancer');
  const loadBalancerNode = withKey(isJsonObject(loadBalancer) ? loadBalancer : {}, 'ingress', null);
  return withKey(schema, 'status', withKey(statusNode, 'loadBalancer', loadBalancerNode));
};
