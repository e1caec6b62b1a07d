/**
 * `/openapi/v2` and `/openapi/v3` (index and one document per group-version) from the same
 * schemas offline validation uses: the committed Kubernetes schemas of the built-in kinds the
 * memory cluster serves, and its CRDs' schemas. Shaped as kube-apiserver serves them: every
 * reference wrapped in `allOf`, kind roots named by `x-kubernetes-group-version-kind`.
 */
import { createHash } from 'node:crypto';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import type { Cluster } from '../../../core/ports/cluster.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import {
  catalogOfCompact,
  catalogOfCrds,
  mergeCatalogs,
  type KindSchema,
  type SchemaCatalog,
} from '../../../core/schema/catalog.js';
import { builtinSchemas } from '../../schemas/builtin-schemas.js';
import type { ServedKind } from '../memory-cluster.js';

export type OpenApiRoute =
  | { readonly type: 'openapiV2' }
  | { readonly type: 'openapiV3Index' }
  | { readonly type: 'openapiV3Document'; readonly apiVersion: string };

/** `/openapi/v2`, `/openapi/v3`, `/openapi/v3/api/v1`, `/openapi/v3/apis/{group}/{version}`; else undefined. */
export const openApiRouteOf = (segments: ReadonlyArray<string>): OpenApiRoute | undefined => {
  if (segments[0] !== 'openapi') return undefined;
  const [, version, root, first, second, ...rest] = segments;
  if (version === 'v2' && root === undefined) return { type: 'openapiV2' };
  if (version !== 'v3' || rest.length > 0) return undefined;
  if (root === undefined) return { type: 'openapiV3Index' };
  if (root === 'api' && first !== undefined && second === undefined)
    return { type: 'openapiV3Document', apiVersion: first };
  if (root === 'apis' && first !== undefined && second !== undefined)
    return { type: 'openapiV3Document', apiVersion: `${first}/${second}` };
  return undefined;
};

type Served = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly schema: JsonObject;
  readonly plural: string;
  readonly namespaced: boolean;
};

const groupVersionOf = (apiVersion: string): readonly [string, string] => {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
};

/** The kind roots the memory cluster serves that the catalog has a schema for, with their schema names. */
const servedKinds = (catalog: SchemaCatalog, kinds: ReadonlyArray<ServedKind>): ReadonlyArray<Served> =>
  [...catalog.kinds].flatMap(([apiVersion, byKind]) => {
    const [group, version] = groupVersionOf(apiVersion);
    return [...byKind].flatMap(([kind, entry]: readonly [string, KindSchema]) => {
      const served = kinds.find(
        (k) => k.group === group && k.kind === kind && (k.versions === 'any' || k.versions.has(version)),
      );
      return served === undefined
        ? []
        : [
            {
              apiVersion,
              kind,
              name: schemaName(group, version, kind),
              schema: entry.schema,
              plural: served.plural,
              namespaced: served.scope === 'Namespaced',
            },
          ];
    });
  });

/** A built-in root keeps its Go name (found in the compact file); a CRD's is named as the server names it. */
const schemaName = (group: string, version: string, kind: string): string => {
  const builtin = builtinSchemas().kinds[group === '' ? version : `${group}/${version}`]?.[kind];
  return builtin ?? [...group.split('.').reverse(), version, kind].join('.');
};

/** A compact schema with references as the server writes them (`allOf: [{$ref: prefix+name}]`). */
const served = (node: JsonObject, prefix: string): JsonObject => {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.allOf = [{ $ref: `${prefix}${value}` }];
    else if (key === 'properties' && isJsonObject(value))
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, isJsonObject(child) ? served(child, prefix) : child]),
      );
    else if ((key === 'additionalProperties' || key === 'items') && isJsonObject(value))
      out[key] = served(value, prefix);
    else if ((key === 'oneOf' || key === 'anyOf') && isJsonArray(value))
      out[key] = value.map((child) => (isJsonObject(child) ? served(child, prefix) : child));
    else out[key] = value;
  }
  return out;
};

/** The names a schema refers to, at any depth (properties named `$ref` are fields, not references). */
const references = (node: JsonObject, found: Set<string>): void => {
  const ref = getOwn(node, '$ref');
  if (typeof ref === 'string') found.add(ref);
  const properties = getOwn(node, 'properties');
  if (isJsonObject(properties))
    for (const child of Object.values(properties)) if (isJsonObject(child)) references(child, found);
  for (const key of ['additionalProperties', 'items']) if (isJsonObject(node[key])) references(node[key], found);
  for (const key of ['oneOf', 'anyOf']) {
    const alternatives = getOwn(node, key);
    if (isJsonArray(alternatives)) for (const child of alternatives) if (isJsonObject(child)) references(child, found);
  }
};

/** The component schemas of `roots` and everything they reference, references written with `prefix`. */
const componentsOf = (catalog: SchemaCatalog, roots: ReadonlyArray<Served>, prefix: string): JsonObject => {
  const out: Record<string, JsonValue> = {};
  const pending: Array<readonly [string, JsonObject]> = [];
  for (const root of roots) {
    const [group, version] = groupVersionOf(root.apiVersion);
    const gvk = { group, version, kind: root.kind };
    const known = out[root.name];
    const kinds =
      isJsonObject(known) && isJsonArray(known['x-kubernetes-group-version-kind'])
        ? known['x-kubernetes-group-version-kind']
        : [];
    out[root.name] = { ...served(root.schema, prefix), 'x-kubernetes-group-version-kind': [...kinds, gvk] };
    pending.push([root.name, root.schema]);
  }
  const seen = new Set(Object.keys(out));
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [, schema] = next;
    const found = new Set<string>();
    references(schema, found);
    for (const name of found) {
      const target = getOwn(catalog.schemas, name);
      if (seen.has(name) || !isJsonObject(target)) continue;
      seen.add(name);
      out[name] = served(target, prefix);
      pending.push([name, target]);
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
};

const info = (): JsonObject => ({ title: 'Kubernetes', version: builtinSchemas().kubernetesVersion });

const v3Document = (catalog: SchemaCatalog, roots: ReadonlyArray<Served>): JsonObject => ({
  openapi: '3.0.0',
  info: info(),
  paths: Object.fromEntries(roots.flatMap(writePaths)),
  components: { schemas: componentsOf(catalog, roots, '#/components/schemas/') },
});

/** The write query parameters this server honours on every write, as the real server lists them. */
const WRITE_PARAMETERS: ReadonlyArray<JsonObject> = ['dryRun', 'fieldManager', 'fieldValidation'].map((name) => ({
  name,
  in: 'query',
  schema: { type: 'string', uniqueItems: true },
}));

/**
 * A kind's write operations (create on its collection, replace and patch on an item), each named
 * with its group-version-kind. kubectl reads these to learn that the server validates fields itself
 * (`fieldValidation` on the PATCH operation): it then sends `fieldValidation=Strict` instead of
 * downloading the protobuf OpenAPI v2 document for client-side validation.
 */
const writePaths = (root: Served): ReadonlyArray<readonly [string, JsonObject]> => {
  const [group, version] = groupVersionOf(root.apiVersion);
  const operation = (verb: string): JsonObject => ({
    operationId: `${verb}${root.kind}`,
    parameters: [...WRITE_PARAMETERS],
    'x-kubernetes-action': verb,
    'x-kubernetes-group-version-kind': { group, version, kind: root.kind },
  });
  const collection = `/${pathOf(root.apiVersion)}${root.namespaced ? '/namespaces/{namespace}' : ''}/${root.plural}`;
  return [
    [collection, { post: operation('post') }],
    [`${collection}/{name}`, { put: operation('put'), patch: operation('patch') }],
  ];
};

const pathOf = (apiVersion: string): string => (apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`);

const answer = (
  catalog: SchemaCatalog,
  kinds: ReadonlyArray<ServedKind>,
  route: OpenApiRoute,
): JsonValue | undefined => {
  const roots = servedKinds(catalog, kinds);
  switch (route.type) {
    case 'openapiV2':
      return { swagger: '2.0', info: info(), paths: {}, definitions: componentsOf(catalog, roots, '#/definitions/') };
    case 'openapiV3Index': {
      const apiVersions = [...new Set(roots.map((root) => root.apiVersion))].sort();
      return {
        paths: Object.fromEntries(
          apiVersions.map((apiVersion) => {
            const document = v3Document(
              catalog,
              roots.filter((root) => root.apiVersion === apiVersion),
            );
            const hash = createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 64).toUpperCase();
            return [pathOf(apiVersion), { serverRelativeURL: `/openapi/v3/${pathOf(apiVersion)}?hash=${hash}` }];
          }),
        ),
      };
    }
    case 'openapiV3Document': {
      const mine = roots.filter((root) => root.apiVersion === route.apiVersion);
      return mine.length === 0 ? undefined : v3Document(catalog, mine);
    }
  }
};

/** The document of an OpenAPI route, or undefined when this server has none there (404). */
export const openApiAnswer = (
  cluster: Cluster,
  kinds: ReadonlyArray<ServedKind>,
  route: OpenApiRoute,
): TE.TaskEither<ClusterError, JsonValue | undefined> =>
  pipe(
    cluster.list({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }),
    TE.map((crds) =>
      answer(mergeCatalogs(catalogOfCompact(builtinSchemas()), catalogOfCrds(crds.items)), kinds, route),
    ),
  );
