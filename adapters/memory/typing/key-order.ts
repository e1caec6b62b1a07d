/**
 * The key order of objects as kube-apiserver answers them. It encodes every answer (create, get,
 * list, watch, update, patch, status) through Go's `encoding/json`, which writes a map's keys
 * sorted by their bytes and a struct's fields in declaration order:
 * - a custom resource is unstructured (`map[string]interface{}` at every depth, metadata
 *   included), so every key of it comes back sorted;
 * - a built-in kind is a Go struct: its map-typed fields come back sorted (labels, annotations,
 *   ConfigMap and Secret data, selectors, resource lists, StorageClass parameters, CSI volume
 *   attributes, …: every Go map at every depth, from the Go types generated from k8s.io/api,
 *   core/canonical/go-types.ts). The struct fields' own order is not reproduced. A CRD's schema
 *   (a struct inside itself) is described below.
 * The memory server stores objects in this order (once, when it stores them), so a client that
 * depends on the order it wrote (a status rebuilt because conditions come back with sorted keys)
 * fails against it as against a real server. Keys that read as array indexes (`"0"`, `"10"`)
 * are the exception JavaScript imposes: an object lists them first, in numeric order, whatever
 * the order they were set in; a client parsing the real server's JSON sees the same.
 */
import { groupKindStruct, type StructShape, type ValueShape } from '../../../core/canonical/go-types.js';
import { DEFAULT_JSON_BOUNDS } from '../../../core/json/bounds.js';
import type { KeyOrder, KeyPlaces } from '../json/index.js';
import { builtinKinds, type KindInfo } from '../kinds/index.js';
import { defined } from '../../../core/json/defined.js';

/**
 * The places below a value of a Go type where a map is (sorted), from the generated Go types
 * (core/canonical/go-types.ts): every map and resource list at every depth. `memo` holds each
 * struct's places once built (a value of the one derivation that owns it); a struct met again
 * inside itself (only a CRD's JSONSchemaProps) stops there, and its order is given below.
 */
const placesOf = (
  type: ValueShape,
  memo: Map<StructShape, KeyPlaces | undefined | 'building'>,
): KeyPlaces | undefined => {
  switch (type.kind) {
    case 'map':
    case 'resourceList': {
      const values = type.kind === 'map' ? placesOf(type.values, memo) : undefined;
      return { sorted: true, fields: nothing, ...defined({ values }) };
    }
    case 'list': {
      const items = placesOf(type.items, memo);
      return items === undefined ? undefined : { sorted: false, fields: nothing, items };
    }
    case 'struct':
      return structPlaces(type.struct, memo);
    default:
      return undefined;
  }
};

const structPlaces = (
  struct: StructShape,
  memo: Map<StructShape, KeyPlaces | undefined | 'building'>,
): KeyPlaces | undefined => {
  const known = memo.get(struct);
  if (known === 'building') return undefined;
  if (memo.has(struct)) return known;
  memo.set(struct, 'building');
  const fields = new Map(
    [...struct.fields.values()].flatMap((field) => {
      const below = placesOf(field.type, memo);
      return below === undefined ? [] : [[field.name, below] as const];
    }),
  );
  const places = fields.size === 0 ? undefined : { sorted: false, fields };
  memo.set(struct, places);
  return places;
};

/**
 * How deep the schema order goes: every schema level is at least one level of JSON deeper than
 * the one holding it, and the memory HTTP server refuses objects nested deeper than
 * DEFAULT_JSON_BOUNDS (core/json/bounds.ts), so no schema it accepts is deeper. Past it (an object
 * created in process, deeper still) keys keep their written order.
 */
const SCHEMA_LEVELS = DEFAULT_JSON_BOUNDS.maxDepth;

const nothing: ReadonlyMap<string, KeyPlaces> = new Map();

/**
 * A CRD's `JSONSchemaProps`, `levels` schemas deep: `properties`, `patternProperties`,
 * `definitions` and `dependencies` are Go maps of further schemas; `items` (a schema or a list of
 * them), `additionalProperties`, `additionalItems`, `not` and the items of `allOf`, `anyOf` and
 * `oneOf` are further schemas. `default`, `example` and `enum` items are `JSON`, which the server
 * converts to `interface{}` and back (the internal apiextensions types), so they come back sorted
 * at every depth. Built bottom-up, one node per level shared by the level above: linear in depth.
 */
const schemaOrder = (levels: number): KeyPlaces | undefined => {
  // The schema and a JSON value (sorted at every depth) one level below the level being built.
  let inner: KeyPlaces | undefined;
  let json: KeyPlaces | undefined;
  for (let level = 1; level <= levels; level++) {
    const schema = schemaNode(inner, json);
    json = { sorted: true, fields: nothing, ...(json === undefined ? {} : { items: json, values: json }) };
    inner = schema;
  }
  return inner;
};

/** One schema level, given the schema and the JSON value one level below it. */
const schemaNode = (inner: KeyPlaces | undefined, json: KeyPlaces | undefined): KeyPlaces => {
  const mapOf = (values: KeyPlaces | undefined): KeyPlaces => ({
    sorted: true,
    fields: nothing,
    ...defined({ values }),
  });
  const listOf = (items: KeyPlaces): KeyPlaces => ({ sorted: false, fields: nothing, items });
  const fields = new Map<string, KeyPlaces>(
    ['properties', 'patternProperties', 'definitions', 'dependencies'].map((name) => [name, mapOf(inner)]),
  );
  if (inner !== undefined) {
    fields.set('items', { ...inner, items: inner });
    for (const name of ['additionalProperties', 'additionalItems', 'not']) fields.set(name, inner);
    for (const name of ['allOf', 'anyOf', 'oneOf']) fields.set(name, listOf(inner));
  }
  if (json !== undefined) {
    fields.set('default', json);
    fields.set('example', json);
    fields.set('enum', listOf(json));
  }
  return { sorted: false, fields };
};

/** The order of a CRD's `openAPIV3Schema`: a constant, built once when the module loads. */
const CRD_SCHEMA_ORDER = schemaOrder(SCHEMA_LEVELS);

/** A place with `inner` put at `path` below it (each place on the way copied). */
const withPlaceAt = (at: KeyPlaces | undefined, path: ReadonlyArray<string>, inner: KeyPlaces): KeyPlaces => {
  const [step, ...rest] = path;
  if (step === undefined) return inner;
  const base = at ?? { sorted: false, fields: nothing };
  if (step === '[]') return { ...base, items: withPlaceAt(base.items, rest, inner) };
  return { ...base, fields: new Map([...base.fields, [step, withPlaceAt(base.fields.get(step), rest, inner)]]) };
};

const CRD_SCHEMA_PATH = ['spec', 'versions', '[]', 'schema', 'openAPIV3Schema'];

/** Every built-in kind's order: constant tables, derived once when the module loads (no cache filled later). */
const BUILTIN_ORDERS: ReadonlyMap<string, KeyOrder | undefined> = (() => {
  const memo = new Map<StructShape, KeyPlaces | undefined | 'building'>();
  const orderOf = (group: string, kind: string): KeyOrder | undefined => {
    const struct = groupKindStruct(group, kind);
    const order = struct === undefined ? undefined : structPlaces(struct, memo);
    const crd = group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition';
    return crd && CRD_SCHEMA_ORDER !== undefined ? withPlaceAt(order, CRD_SCHEMA_PATH, CRD_SCHEMA_ORDER) : order;
  };
  return new Map(builtinKinds().map(({ group, kind }) => [`${group}/${kind}`, orderOf(group, kind)] as const));
})();

/** The key order kube-apiserver answers objects of the kind with (see the module comment). */
export const serverKeyOrder = (info: Pick<KindInfo, 'group' | 'kind' | 'custom'>): KeyOrder | undefined =>
  info.custom ? 'sorted' : BUILTIN_ORDERS.get(`${info.group}/${info.kind}`);
