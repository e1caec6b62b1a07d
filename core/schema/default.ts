/** Default observer schemas (SPEC section 3): observe exactly what the manifest writes. */
import { getIn, getOwn, isJsonArray, isJsonObject, objectFromEntries, withKey, type JsonObject, type JsonValue } from '../json/json.js';
import { makeListControl, type ObserverSchema } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import { schemaKeyOf } from './lookup.js';

/**
 * The mangled schema: custom schemas first (in the user's order), then a generated schema for
 * every manifest resource without one (in manifest order). Expects validated input.
 */
export const generateDefaultObserverSchema = (args: {
  readonly manifest: ReadonlyArray<Resource>;
  readonly observerSchema: ReadonlyArray<ObserverSchema> | undefined;
}): ReadonlyArray<ObserverSchema> => {
  const custom = args.observerSchema ?? [];
  const covered = new Set(custom.map(schemaKeyOf));
  const generated = args.manifest.filter((resource) => {
    const key = schemaKeyOf(resource);
    if (covered.has(key)) return false;
    covered.add(key);
    return true;
  });
  return [...custom, ...generated.map(defaultSchemaOf)];
};

/** The default schema of one resource. */
export const defaultSchemaOf = (resource: Resource): ObserverSchema => {
  const observed = schemaNodeOf(resource) as JsonObject;
  const identified = withIdentification(observed, resource);
  return (isLoadBalancer(resource) ? withLoadBalancerStatus(identified) : identified) as ObserverSchema;
};

/**
 * Every leaf becomes null; every list keeps one schema per element and ends with the control
 * `m = M = length`. An empty manifest list becomes `[{m: 0, M: 0}]`: with `M = 0` meaning
 * "no maximum", nothing about it is enforced (the API server drops empty lists anyway).
 */
const schemaNodeOf = (value: JsonValue): JsonValue => {
  if (isJsonArray(value)) return [...value.map(schemaNodeOf), makeListControl(value.length, value.length)];
  if (isJsonObject(value)) return objectFromEntries(Object.entries(value).map(([key, child]) => [key, schemaNodeOf(child)] as const));
  return null;
};

const withIdentification = (schema: JsonObject, resource: Resource): JsonObject => {
  const metadata = getOwn(schema, 'metadata');
  const identifiedMetadata = withKey(isJsonObject(metadata) ? metadata : {}, 'name', resource.metadata.name);
  return withKey(withKey(withKey(schema, 'apiVersion', resource.apiVersion), 'kind', resource.kind), 'metadata', identifiedMetadata);
};

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
