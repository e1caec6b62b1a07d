/** A value walked with its schema, node by node: what the checks after kube-openapi's validators share. */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';

export const childPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
export const indexPath = (path: string, index: number | string): string => `${path}[${index}]`;

/** The schema of an object's member: its property, else `additionalProperties`, with the member's path. */
export const memberSchema = (
  schema: JsonObject,
  key: string,
  path: string,
): { readonly schema: JsonObject; readonly path: string } | undefined => {
  const properties = getOwn(schema, 'properties');
  const property = isJsonObject(properties) ? getOwn(properties, key) : undefined;
  if (isJsonObject(property)) return { schema: property, path: childPath(path, key) };
  const additional = getOwn(schema, 'additionalProperties');
  // A map's member is named like a property (`spec.labels.app`), as kube-openapi names it.
  return isJsonObject(additional) ? { schema: additional, path: childPath(path, key) } : undefined;
};

/** Visits every node that has a schema, parents before children. */
export const forEachNode = (
  value: JsonValue,
  schema: JsonObject,
  path: string,
  visit: (value: JsonValue, schema: JsonObject, path: string) => void,
): void => {
  visit(value, schema, path);
  if (isJsonArray(value)) {
    const items = getOwn(schema, 'items');
    if (isJsonObject(items)) value.forEach((item, index) => forEachNode(item, items, indexPath(path, index), visit));
  } else if (isJsonObject(value))
    for (const key of Object.keys(value)) {
      const member = memberSchema(schema, key, path);
      if (member !== undefined) forEachNode(getOwn(value, key) ?? null, member.schema, member.path, visit);
    }
};
