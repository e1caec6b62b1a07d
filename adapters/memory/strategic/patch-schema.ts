/**
 * Where a strategic merge patch reads how to merge each field: the `x-kubernetes-patch-strategy`
 * and `x-kubernetes-patch-merge-key` of the kind's OpenAPI schema (the committed
 * `schemas/kubernetes-<minor>.json`, generated from the real server's OpenAPI by
 * tools/openapi). The server reads the same from its Go struct tags (`patchStrategy`,
 * `patchMergeKey`), which its OpenAPI is generated from. A field the schema does not know (a
 * custom resource's, or one inside a preserve-unknown-fields object) has no strategy: maps merge,
 * lists are replaced.
 */
import { getOwn, isJsonObject, type JsonObject } from '../../../core/json/json.js';

/** A position in a kind's schema: the node there (undefined once outside it) and the file's named schemas. */
export type PatchSchema = { readonly node: JsonObject | undefined; readonly schemas: JsonObject };

/** A field's strategies (`merge`, `replace`, `retainKeys`; a field may carry two) and list merge key. */
export type PatchMeta = { readonly strategies: ReadonlyArray<string>; readonly mergeKey: string };

export type FieldLookup = { readonly schema: PatchSchema; readonly meta: PatchMeta };

const NO_META: PatchMeta = { strategies: [], mergeKey: '' };

/** The node a `$ref` names (a few levels at most: the file names schemas directly). */
const resolved = (node: JsonObject | undefined, schemas: JsonObject): JsonObject | undefined => {
  let current = node;
  for (let depth = 0; depth < 8 && current !== undefined; depth++) {
    const ref = getOwn(current, '$ref');
    if (typeof ref !== 'string') return current;
    const target = getOwn(schemas, ref);
    current = isJsonObject(target) ? target : undefined;
  }
  return current;
};

const metaOf = (node: JsonObject): PatchMeta => {
  const strategy = getOwn(node, 'x-kubernetes-patch-strategy');
  const mergeKey = getOwn(node, 'x-kubernetes-patch-merge-key');
  return {
    strategies: typeof strategy === 'string' && strategy !== '' ? strategy.split(',') : [],
    mergeKey: typeof mergeKey === 'string' ? mergeKey : '',
  };
};

/** The schema of a kind's root, by its name in the file. */
export const rootSchema = (schemas: JsonObject, name: string | undefined): PatchSchema => {
  const node = name === undefined ? undefined : getOwn(schemas, name);
  return { node: isJsonObject(node) ? node : undefined, schemas };
};

/** The field `key` of an object (a struct's property, or a map's value type) and how it merges. */
export const lookupField = (schema: PatchSchema, key: string): FieldLookup => {
  const node = resolved(schema.node, schema.schemas);
  if (node === undefined) return { schema: { node: undefined, schemas: schema.schemas }, meta: NO_META };
  const properties = getOwn(node, 'properties');
  const property = isJsonObject(properties) ? getOwn(properties, key) : undefined;
  if (isJsonObject(property)) return { schema: { node: property, schemas: schema.schemas }, meta: metaOf(property) };
  const additional = getOwn(node, 'additionalProperties');
  return {
    schema: { node: isJsonObject(additional) ? additional : undefined, schemas: schema.schemas },
    meta: NO_META,
  };
};

/** The list field `key`: its items' schema and how the list merges. */
export const lookupList = (schema: PatchSchema, key: string): FieldLookup => {
  const field = lookupField(schema, key);
  const node = resolved(field.schema.node, schema.schemas);
  const items = node === undefined ? undefined : getOwn(node, 'items');
  return { schema: { node: isJsonObject(items) ? items : undefined, schemas: schema.schemas }, meta: field.meta };
};

/** `reflect.Kind` of the schema's type, as the server names it in "cannot merge lists without merge key for …". */
export const kindName = (schema: PatchSchema): string => {
  const node = resolved(schema.node, schema.schemas);
  const type = node === undefined ? undefined : getOwn(node, 'type');
  if (type === 'array') return 'slice';
  if (type === 'object' && getOwn(node ?? {}, 'properties') === undefined) return 'map';
  return type === 'string' ? 'string' : 'struct';
};
