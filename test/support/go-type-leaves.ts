/** The values of an object at the places its Go type (core/canonical/go-types.ts) holds a given leaf type. */
import { groupKindStruct, type LeafKind, type StructShape, type ValueShape } from '../../core/canonical/go-types.js';
import { getOwn, isJsonArray, isJsonObject, type JsonValue } from '../../core/json/json.js';
import { groupOf, type Resource } from '../../core/model/resource.js';

type Leaf = readonly [path: string, value: JsonValue];

const leavesIn = (type: ValueShape, value: JsonValue, wanted: ReadonlySet<LeafKind>, path: string): Leaf[] => {
  if (type.kind === 'struct') return isJsonObject(value) ? structLeaves(type.struct, value, wanted, path) : [];
  if (type.kind === 'list')
    return isJsonArray(value) ? value.flatMap((item, i) => leavesIn(type.items, item, wanted, `${path}[${i}]`)) : [];
  if (type.kind === 'map' || (type.kind === 'resourceList' && !wanted.has('resourceList'))) {
    const values: ValueShape = type.kind === 'map' ? type.values : { kind: 'quantity' };
    return isJsonObject(value)
      ? Object.keys(value).flatMap((key) => leavesIn(values, getOwn(value, key) ?? null, wanted, `${path}.${key}`))
      : [];
  }
  return wanted.has(type.kind) ? [[path, value]] : [];
};

const structLeaves = (struct: StructShape, object: JsonValue, wanted: ReadonlySet<LeafKind>, path: string): Leaf[] =>
  isJsonObject(object)
    ? [...struct.fields.values()].flatMap((field) => {
        const value = getOwn(object, field.name);
        return value === undefined
          ? []
          : leavesIn(field.type, value, wanted, path === '' ? field.name : `${path}.${field.name}`);
      })
    : [];

/** Every value of the wanted types in a built-in object, `path → value` (a resource list's values as quantities). */
export const goLeaves = (object: Resource, wanted: ReadonlySet<LeafKind>): ReadonlyArray<Leaf> => {
  const struct = groupKindStruct(groupOf(object.apiVersion), object.kind);
  return struct === undefined ? [] : structLeaves(struct, object, wanted, '');
};
