/**
 * The key order of objects as kube-apiserver answers them. It encodes every answer (create, get,
 * list, watch, update, patch, status) through Go's `encoding/json`, which writes a map's keys
 * sorted by their bytes and a struct's fields in declaration order:
 * - a custom resource is unstructured (`map[string]interface{}` at every depth, metadata
 *   included), so every key of it comes back sorted;
 * - a built-in kind is a Go struct: its map-typed fields come back sorted (labels, annotations,
 *   ConfigMap and Secret data, selectors and matchLabels, nodeSelector, resource limits and
 *   requests, …). The struct fields' own order is not reproduced. Go maps that neither typing
 *   list describes are named below (StorageClass parameters, CSI and flex volume attributes, a
 *   CRD's schema).
 * The memory server stores objects in this order (once, when it stores them), so a client that
 * depends on the order it wrote (a status rebuilt because conditions come back with sorted keys)
 * fails against it as against a real server. Keys that read as array indexes (`"0"`, `"10"`)
 * are the exception JavaScript imposes: an object lists them first, in numeric order, whatever
 * the order they were set in; a client parsing the real server's JSON sees the same.
 */
import { canonicalFieldsOf, EACH_ITEM, EACH_VALUE } from '../../../core/canonical/fields.js';
import { DEFAULT_JSON_BOUNDS } from '../../../core/json/bounds.js';
import type { KeyOrder, KeyPlaces } from '../json/index.js';
import { builtinKinds, type KindInfo } from '../kinds/index.js';
import { objectStruct, type FieldType } from './builtin-field-types.js';

/** `below`: the order from here down, built already (a CRD's schema; nothing else is at its place). */
type Place = { sorted: boolean; fields: Map<string, Place>; items?: Place; values?: Place; below?: KeyPlaces };

const place = (): Place => ({ sorted: false, fields: new Map() });

const field = (at: Place, name: string): Place => {
  const next = at.fields.get(name) ?? place();
  at.fields.set(name, next);
  return next;
};

/** The map-typed fields the typing of built-in kinds describes (builtin-field-types.ts). */
const fromType = (at: Place, type: FieldType): void => {
  switch (type.type) {
    case 'map':
      at.sorted = true;
      fromType((at.values ??= place()), type.values);
      return;
    case 'list':
      fromType((at.items ??= place()), type.items);
      return;
    case 'struct':
      for (const [name, inner] of Object.entries(type.fields)) fromType(field(at, name), inner);
      return;
    default:
      return;
  }
};

/**
 * The maps core/canonical/fields.ts knows of: the container of every `{}` step (resource lists
 * of containers, pods, claims, quotas…) and every `omitempty` field, a Go map or slice (only an
 * object is sorted).
 */
const fromCanonical = (root: Place, group: string, kind: string): void => {
  for (const { path, type } of canonicalFieldsOf(group, kind)) {
    let at = root;
    for (const step of path) {
      if (step === EACH_VALUE) {
        at.sorted = true;
        at = at.values ??= place();
      } else at = step === EACH_ITEM ? (at.items ??= place()) : field(at, step);
    }
    if (type === 'omitEmpty') at.sorted = true;
  }
};

type Step = string | typeof EACH_ITEM;

/** The place at the end of a path, created as needed. */
const placeAt = (root: Place, path: ReadonlyArray<Step>): Place =>
  path.reduce((at, step) => (step === EACH_ITEM ? (at.items ??= place()) : field(at, step)), root);

/** Where a kind has a pod spec (its own, its template's, its job template's). */
const podSpecPaths: ReadonlyMap<string, ReadonlyArray<string>> = new Map<string, ReadonlyArray<string>>([
  ['/Pod', ['spec']],
  ['/PodTemplate', ['template', 'spec']],
  ...[
    '/ReplicationController',
    'apps/Deployment',
    'apps/ReplicaSet',
    'apps/DaemonSet',
    'apps/StatefulSet',
    'batch/Job',
  ].map((key): [string, ReadonlyArray<string>] => [key, ['spec', 'template', 'spec']]),
  ['batch/CronJob', ['spec', 'jobTemplate', 'spec', 'template', 'spec']],
]);

/** Go maps of volume sources: `CSIVolumeSource.volumeAttributes`, `FlexVolumeSource.options` (and the PV's). */
const volumeMaps: ReadonlyArray<ReadonlyArray<string>> = [
  ['csi', 'volumeAttributes'],
  ['flexVolume', 'options'],
];

/** Map-typed fields of built-in kinds that neither builtin-field-types.ts nor core/canonical/fields.ts names. */
const otherMaps = (group: string, kind: string): ReadonlyArray<ReadonlyArray<Step>> => {
  const key = `${group}/${kind}`;
  const podSpec = podSpecPaths.get(key);
  if (podSpec !== undefined) return volumeMaps.map((path) => [...podSpec, 'volumes', EACH_ITEM, ...path]);
  if (key === '/PersistentVolume') return volumeMaps.map((path) => ['spec', ...path]);
  if (key === 'storage.k8s.io/StorageClass') return [['parameters']];
  return [];
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
    ...(values === undefined ? {} : { values }),
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

/** The places below which something is sorted (the rest is copied as it is). */
const pruned = (at: Place): KeyPlaces | undefined => {
  if (at.below !== undefined) return at.below;
  const fields = new Map(
    [...at.fields].flatMap(([name, inner]) => {
      const kept = pruned(inner);
      return kept === undefined ? [] : [[name, kept] as const];
    }),
  );
  const items = at.items === undefined ? undefined : pruned(at.items);
  const values = at.values === undefined ? undefined : pruned(at.values);
  if (!at.sorted && fields.size === 0 && items === undefined && values === undefined) return undefined;
  return {
    sorted: at.sorted,
    fields,
    ...(items === undefined ? {} : { items }),
    ...(values === undefined ? {} : { values }),
  };
};

/** A built-in kind's order, derived from the typing tables (builtin-field-types.ts, core/canonical/fields.ts). */
const builtinKeyOrder = (group: string, kind: string): KeyOrder | undefined => {
  const root = place();
  fromType(root, objectStruct(group, kind, false));
  fromCanonical(root, group, kind);
  for (const path of otherMaps(group, kind)) placeAt(root, path).sorted = true;
  if (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition')
    placeAt(root, ['spec', 'versions', EACH_ITEM, 'schema', 'openAPIV3Schema']).below = CRD_SCHEMA_ORDER;
  return pruned(root);
};

/** Every built-in kind's order: constant tables, derived once when the module loads (no cache filled later). */
const BUILTIN_ORDERS: ReadonlyMap<string, KeyOrder | undefined> = new Map(
  builtinKinds().map(({ group, kind }) => [`${group}/${kind}`, builtinKeyOrder(group, kind)] as const),
);

/** The key order kube-apiserver answers objects of the kind with (see the module comment). */
export const serverKeyOrder = (info: Pick<KindInfo, 'group' | 'kind' | 'custom'>): KeyOrder | undefined => {
  if (info.custom) return 'sorted';
  const key = `${info.group}/${info.kind}`;
  // A built-in kind outside the table (none today) is derived at each call rather than cached.
  return BUILTIN_ORDERS.has(key) ? BUILTIN_ORDERS.get(key) : builtinKeyOrder(info.group, info.kind);
};
