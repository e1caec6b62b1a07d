/**
 * From the API server's OpenAPI v3 documents to the committed compact schema file: only what
 * offline validation reads (types, enums, required fields, properties, maps, lists, the
 * int-or-string, preserve-unknown-fields and embedded-resource extensions, references) and what
 * the in-memory API server's strategic merge patch and server-side apply read (patch strategies
 * and merge keys, list types and map keys, map types, scalar defaults), only the schemas reachable from a kind's root.
 * `status` is kept: a
 * strategic merge patch of the status subresource merges conditions by type. Pure, so the generator
 * and the test that compares the committed file with a live server share it.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../core/json/json.js';
import type { CompactSchemas } from '../../core/schema/catalog.js';

/** The keywords and extensions copied as they are. */
const KEPT = [
  'type',
  'enum',
  'required',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  // How a strategic merge patch merges the field (docs/testing.md), and what server-side apply keys lists by.
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  // Whether server-side apply owns a struct or map as a whole (`atomic`) or field by field
  // (adapters/memory/field-manager).
  'x-kubernetes-map-type',
] as const;

const REF_PREFIX = '#/components/schemas/';

/** One schema node, compacted; `allOf` members (how Kubernetes wraps every reference) are merged into it. */
export const compactNode = (node: JsonObject): JsonObject => {
  const out: Record<string, JsonValue> = {};
  const ref = getOwn(node, '$ref');
  if (typeof ref === 'string') out.$ref = ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref;
  const allOf = getOwn(node, 'allOf');
  if (isJsonArray(allOf)) for (const member of allOf) if (isJsonObject(member)) Object.assign(out, compactNode(member));
  for (const key of KEPT) {
    const value = getOwn(node, key);
    if (value !== undefined) out[key] = value;
  }
  if (getOwn(node, 'format') === 'int-or-string') out.format = 'int-or-string';
  // A scalar default names a list item whose key field is omitted (a port's `protocol: TCP`), as server-side apply keys
  // it.
  const fallback = getOwn(node, 'default');
  if (typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean')
    out.default = fallback;
  const properties = getOwn(node, 'properties');
  if (isJsonObject(properties))
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, isJsonObject(child) ? compactNode(child) : child]),
    );
  const additional = getOwn(node, 'additionalProperties');
  if (typeof additional === 'boolean') out.additionalProperties = additional;
  else if (isJsonObject(additional)) out.additionalProperties = compactNode(additional);
  const items = getOwn(node, 'items');
  if (isJsonObject(items)) out.items = compactNode(items);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alternatives = getOwn(node, key);
    if (isJsonArray(alternatives))
      out[key] = alternatives.map((alternative) =>
        isJsonObject(alternative) ? compactNode(alternative) : alternative,
      );
  }
  return out;
};

/** The names a compacted schema refers to, at any depth. */
const referencesOf = (value: JsonValue, found: Set<string>): void => {
  if (isJsonArray(value)) for (const item of value) referencesOf(item, found);
  else if (isJsonObject(value))
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.add(child);
      else referencesOf(child, found);
    }
};

const sortedObject = <V>(entries: ReadonlyArray<readonly [string, V]>): Record<string, V> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The compact file of a server: `documents` by apiVersion (`v1`, `apps/v1`), `resourceKinds` the
 * kinds its discovery lists as resources (not subresources) by apiVersion. A kind without a
 * schema in its document is left out.
 */
export const compactSchemas = (args: {
  readonly kubernetesVersion: string;
  readonly documents: ReadonlyMap<string, JsonObject>;
  readonly resourceKinds: ReadonlyMap<string, ReadonlySet<string>>;
}): CompactSchemas => {
  const all = new Map<string, JsonObject>();
  const kinds: Array<readonly [string, Record<string, string>]> = [];
  for (const [apiVersion, document] of args.documents) {
    const components = getOwn(document, 'components');
    const schemas = isJsonObject(components) ? getOwn(components, 'schemas') : undefined;
    if (!isJsonObject(schemas)) continue;
    const wanted = args.resourceKinds.get(apiVersion) ?? new Set<string>();
    const slash = apiVersion.lastIndexOf('/');
    const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
    const byKind: Array<readonly [string, string]> = [];
    for (const [name, schema] of Object.entries(schemas)) {
      if (!isJsonObject(schema)) continue;
      all.set(name, compactNode(schema));
      const gvks = getOwn(schema, 'x-kubernetes-group-version-kind');
      if (!isJsonArray(gvks)) continue;
      for (const gvk of gvks)
        if (isJsonObject(gvk) && gvk.group === group && gvk.version === version && typeof gvk.kind === 'string')
          if (wanted.has(gvk.kind)) byKind.push([gvk.kind, name]);
    }
    if (byKind.length > 0) kinds.push([apiVersion, sortedObject(byKind)]);
  }
  const roots = new Set(kinds.flatMap(([, byKind]) => Object.values(byKind)));
  const kept = new Map<string, JsonObject>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    const schema = all.get(name);
    if (kept.has(name) || schema === undefined) continue;
    kept.set(name, schema);
    const references = new Set<string>();
    referencesOf(schema, references);
    pending.push(...references);
  }
  return {
    kubernetesVersion: args.kubernetesVersion,
    kinds: sortedObject(kinds),
    schemas: sortedObject([...kept]),
  };
};

/** The file's text: one line per kind list and per schema, so a Kubernetes upgrade diffs by schema. */
export const showCompactSchemas = (file: CompactSchemas): string => {
  const lines = (object: Readonly<Record<string, JsonValue>>): string =>
    Object.entries(object)
      .map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      .join(',\n');
  return `{\n  "kubernetesVersion": ${JSON.stringify(file.kubernetesVersion)},\n  "kinds": {\n${lines(file.kinds)}\n  },\n  "schemas": {\n${lines(file.schemas)}\n  }\n}\n`;
};
