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
import { keep, memoTable, recall, type Memo } from '../memo/memo.js';

/**
 * The mangled schema: custom schemas first (in the user's order), then a generated schema for
 * every manifest resource without one (in manifest order). Expects validated input.
 */
export const generateDefaultObserverSchema = (
  args: {
    readonly manifest: ReadonlyArray<Resource>;
    readonly observerSchema: ReadonlyArray<ObserverSchema> | undefined;
  },
  /** Where to record which nodes mirror a manifest value (`mirrorsIn`); without one, nothing is recorded. */
  memo?: Memo,
): ReadonlyArray<ObserverSchema> => {
  const custom = args.observerSchema ?? [];
  const claim = schemaClaims();
  for (const schema of custom) claim(schema);
  const generated = args.manifest.filter(claim);
  const mirrored: Mirrored = new Map();
  // `concat`, not a spread: no array iterator over every generated schema.
  const mangled = custom.concat(generated.map((resource) => defaultSchemaOf(resource, mirrored)));
  keep(memo, MIRRORED, mangled, mirrored);
  return mangled;
};

/**
 * Claims the schema of an object's (apiVersion, kind, metadata.name): true for the first claim of
 * each. Nested maps keyed by the values, as `schemaFor` matches: no key string per resource.
 */
const schemaClaims = (): ((object: JsonObject) => boolean) => {
  const byVersion = new Map<JsonValue | undefined, Map<JsonValue | undefined, Set<JsonValue | undefined>>>();
  return (object) => {
    const version = getOwn(object, 'apiVersion');
    let kinds = byVersion.get(version);
    if (kinds === undefined)
      byVersion.set(version, (kinds = new Map<JsonValue | undefined, Set<JsonValue | undefined>>()));
    const kind = getOwn(object, 'kind');
    let names = kinds.get(kind);
    if (names === undefined) kinds.set(kind, (names = new Set()));
    const metadata = getOwn(object, 'metadata');
    const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
    if (names.has(name)) return false;
    names.add(name);
    return true;
  };
};

/**
 * The default schema `generateDefaultObserverSchema` gives one resource: what the stored status
 * regenerates instead of keeping (core/manifest/stored-status.ts).
 */
export const defaultSchemaForResource = (resource: Resource): ObserverSchema => defaultSchemaOf(resource, new Map());

/** The default schema of one resource; its generated nodes are recorded in `mirrored`. */
const defaultSchemaOf = (resource: Resource, mirrored: Mirrored): ObserverSchema => {
  const identified = identifiedNodeOf(resource, mirrored);
  // identifiedNodeOf set apiVersion, kind and metadata.name from the resource: an ObserverSchema.
  return (isLoadBalancer(resource) ? withLoadBalancerStatus(identified) : identified) as ObserverSchema;
};

/**
 * The schema node of a resource with its identification values set. The node is new and not
 * yet shared, so it is completed in place instead of being copied four times.
 */
const identifiedNodeOf = (resource: Resource, mirrored: Mirrored): JsonObject => {
  const node = objectNodeOf(resource);
  // Top-level nodes other than the identification are never completed in place: they mirror their value.
  for (const key in node) {
    const child = node[key];
    const value = resource[key];
    if (hasOwn(node, key) && key !== 'metadata' && typeof child === 'object' && child !== null && value !== undefined)
      mirrored.set(child, value);
  }
  setOwn(node, 'apiVersion', resource.apiVersion);
  setOwn(node, 'kind', resource.kind);
  const metadata = getOwn(node, 'metadata');
  setOwn(node, 'metadata', withKey(isJsonObject(metadata) ? metadata : {}, 'name', resource.metadata.name));
  return node;
};

/**
 * Generated schema nodes with the manifest value each was generated from (immutable both, so
 * this stays true): such a node observes exactly the keys of that value, at every depth.
 */
type Mirrored = Map<object, JsonValue>;

/**
 * The generated nodes of each list `generateDefaultObserverSchema` returned. Kept per list (one
 * weak entry per spec), not per node: on fresh objects a weak-map insertion costs about a
 * microsecond, ten times a map insertion.
 */
const MIRRORED = memoTable<ReadonlyArray<ObserverSchema>, ReadonlyMap<object, JsonValue>>(
  'generated schema nodes per schema list',
);

/** Never generated: what lists not made by `generateDefaultObserverSchema` mirror. */
const NOTHING_MIRRORED: ReadonlyMap<object, JsonValue> = new Map();

/**
 * Whether a node of `schemas` was generated from a value itself (`schemaNodeOf`): then it
 * observes exactly what that value writes, and nothing beyond it can have been learned. A cheap
 * identity check that lets a fresh spec skip the walk merging learned values
 * (core/manifest/last-applied.ts).
 */
export const mirrorsIn = (
  schemas: ReadonlyArray<ObserverSchema>,
  memo: Memo | undefined,
): ((schema: JsonValue, value: JsonValue) => boolean) => {
  const mirrored = recall(memo, MIRRORED, schemas) ?? NOTHING_MIRRORED;
  return (schema, value) => typeof schema === 'object' && schema !== null && mirrored.get(schema) === value;
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
