/**
 * The Go types of the built-in kinds of Kubernetes 1.36, as kube-apiserver decodes and stores
 * them: go-types.generated.ts, written by tools/go-types (`npm run schemas:go-types`), which walks
 * k8s.io/api's structs by reflection and checks each rule below against the real encoders
 * (docs/decisions/0021-storage-model-from-go-types.md). This module compiles that table, once
 * when it loads, into shapes a walk of an object reads without parsing anything.
 */
import type { JsonObject, JsonValue } from '../json/json.js';
import type { GoTypeTable } from './go-type-table.js';
import { GO_TYPES } from './go-types.generated.js';

export type LeafKind =
  | 'string'
  | 'bool'
  | 'int'
  | 'float'
  | 'bytes'
  | 'quantity'
  | 'resourceList'
  | 'intOrString'
  | 'time'
  | 'microTime'
  | 'duration'
  | 'raw';

export type ValueShape =
  | { readonly kind: LeafKind }
  | { readonly kind: 'list'; readonly items: ValueShape }
  | { readonly kind: 'map'; readonly values: ValueShape }
  | { readonly kind: 'struct'; readonly struct: StructShape };

export type FieldShape = {
  readonly name: string;
  readonly type: ValueShape;
  readonly pointer: boolean;
  /** Not stored at its zero value (a nil pointer for a pointer; `false`, `0`, `""`, empty otherwise). */
  readonly dropped: boolean;
  /** What is stored at its zero value when it is stored. */
  readonly zero: JsonValue;
};

export type StructShape = { readonly name: string; readonly fields: ReadonlyMap<string, FieldShape> };

const LEAVES: ReadonlySet<string> = new Set<LeafKind>([
  'string',
  'bool',
  'int',
  'float',
  'bytes',
  'quantity',
  'resourceList',
  'intOrString',
  'time',
  'microTime',
  'duration',
  'raw',
]);

const isLeaf = (type: string): type is LeafKind => LEAVES.has(type);

/** Every struct of a table compiled, references between them resolved (types may refer to themselves). */
export const compileTable = (table: GoTypeTable): ReadonlyMap<string, StructShape> => {
  const fields = new Map<string, Map<string, FieldShape>>();
  const structs = new Map<string, StructShape>();
  for (const name of Object.keys(table.types)) {
    const own = new Map<string, FieldShape>();
    fields.set(name, own);
    structs.set(name, { name, fields: own });
  }
  const shapeOf = (type: string): ValueShape => {
    if (type.startsWith('[]')) return { kind: 'list', items: shapeOf(type.slice(2)) };
    if (type.startsWith('map[]')) return { kind: 'map', values: shapeOf(type.slice(5)) };
    const struct = type.startsWith('@') ? structs.get(type.slice(1)) : undefined;
    if (struct !== undefined) return { kind: 'struct', struct };
    // The generator writes no other type (a test checks it): anything else is left as written.
    return { kind: isLeaf(type) ? type : 'raw' };
  };
  for (const [name, list] of Object.entries(table.types))
    for (const [field, type, flags, zero] of list)
      fields.get(name)?.set(field, {
        name: field,
        type: shapeOf(type),
        pointer: flags.includes('p'),
        dropped: flags.includes('d'),
        zero: zero ?? null,
      });
  return structs;
};

const STRUCTS: ReadonlyMap<string, StructShape> = compileTable(GO_TYPES);

/**
 * A kind's struct as the root of an object: without TypeMeta's `apiVersion` and `kind`, which
 * the server's encoder writes on every answer whatever was sent (they identify the object).
 */
const rootOf = (struct: StructShape): StructShape => ({
  name: struct.name,
  fields: new Map([...struct.fields].filter(([name]) => name !== 'apiVersion' && name !== 'kind')),
});

/** `apiVersion/Kind` → the kind's struct (constant: compiled when the module loads). */
const KINDS: ReadonlyMap<string, StructShape> = new Map(
  Object.entries(GO_TYPES.kinds).flatMap(([key, name]) => {
    const struct = STRUCTS.get(name);
    return struct === undefined ? [] : [[key, rootOf(struct)] as const];
  }),
);

/** `group/Kind` → the struct of one of its versions (the last listed: the newest where there are two). */
const GROUP_KINDS: ReadonlyMap<string, StructShape> = new Map(
  [...KINDS].map(([key, struct]) => {
    const slash = key.lastIndexOf('/');
    const version = key.slice(0, slash);
    const group = version.includes('/') ? version.slice(0, version.indexOf('/')) : '';
    return [`${group}/${key.slice(slash + 1)}`, struct] as const;
  }),
);

/** The Go struct objects of a built-in kind decode into (as a root), by `apiVersion` and kind; undefined for others. */
export const kindStruct = (apiVersion: string, kind: string): StructShape | undefined =>
  KINDS.get(`${apiVersion}/${kind}`);

/** The Go struct of a built-in kind by API group (`apps/Deployment`, `/ConfigMap`), any served version. */
export const groupKindStruct = (group: string, kind: string): StructShape | undefined =>
  GROUP_KINDS.get(`${group}/${kind}`);

/** Every built-in kind the table holds, `apiVersion/Kind`. */
export const goKinds = (): ReadonlyArray<string> => [...KINDS.keys()];

/** A struct of the table by its Go name (`core/v1.PodSpec`). */
export const goStruct = (name: string): StructShape | undefined => STRUCTS.get(name);

/** `metav1.ObjectMeta`: the metadata of every object, custom resources' too. */
export const OBJECT_META: StructShape | undefined = STRUCTS.get('meta/v1.ObjectMeta');

/** What the encoder writes for a struct's zero value: its fields that are stored at zero. */
export const zeroStruct = (struct: StructShape): JsonObject =>
  Object.fromEntries([...struct.fields.values()].filter((f) => !f.dropped).map((f) => [f.name, f.zero]));
