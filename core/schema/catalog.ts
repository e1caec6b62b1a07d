/**
 * Offline schema validation of manifest resources, as kubeconform does: a catalog of kind schemas
 * (Kubernetes' built-in kinds from the committed schema file, CRD-defined kinds from CRDs, or a
 * cluster's OpenAPI documents) checked without a cluster. Every problem is reported at once:
 * wrong types, values outside an enum, missing required fields, unknown fields and unknown kinds,
 * with the closest known name. Pure: the shell reads the file, the CRDs and the cluster.
 */
import * as t from 'io-ts';
import { getOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { closestName, suggestionBudget } from '../model/closest-name.js';
import type { Issue } from '../model/decode.js';
import { issueAt, resolved, valueIssues } from './openapi.js';
import { crdBoundProblem, versionSchemas } from './structural/bounds.js';
import type { CrdRules } from './structural/rules.js';
import { structuralCauses } from './structural/validate.js';
import type { ErrorCause } from '../ports/errors.js';
import { showPath } from '../json/path.js';
import { REMOVED_APIS, removedApiMessage } from './removed-apis.js';
import { serverRuleIssues } from './server-rules/rules.js';
import { jsonText } from '../json/text.js';
import { defined } from '../json/defined.js';

/** A kind's schema and whose it is, named in messages ("the Kubernetes v1.36.3 schema"). */
export type KindSchema = {
  readonly schema: JsonObject;
  readonly source: string;
  /** A CRD's structural schema: checked as the API server checks custom resources (core/schema/structural). */
  readonly structural?: boolean;
};

/** Kind schemas by apiVersion then kind, with the component schemas their `$ref`s name. */
export type SchemaCatalog = {
  readonly kinds: ReadonlyMap<string, ReadonlyMap<string, KindSchema>>;
  /** Component schemas by name; a `$ref` is the bare name or `#/components/schemas/<name>`. */
  readonly schemas: JsonObject;
  /** Groups whose every kind is in the catalog (Kubernetes' own): an unknown kind there is a mistake. */
  readonly completeGroups: ReadonlySet<string>;
};

/**
 * The committed schema file (`schemas/kubernetes-<minor>.json`, written by tools/openapi): every
 * kind's root schema name by apiVersion and kind, and the schemas with only what validation reads.
 */
export type CompactSchemas = {
  readonly kubernetesVersion: string;
  readonly kinds: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly schemas: JsonObject;
};

export const EMPTY_CATALOG: SchemaCatalog = { kinds: new Map(), schemas: {}, completeGroups: new Set() };

/** The catalog of a compact schema file; every kind names its file's Kubernetes version as its source. */
export const catalogOfCompact = (file: CompactSchemas): SchemaCatalog => {
  const source = `the Kubernetes ${file.kubernetesVersion} schema`;
  const kinds = new Map<string, ReadonlyMap<string, KindSchema>>();
  for (const [apiVersion, byKind] of Object.entries(file.kinds)) {
    const entries = Object.entries(byKind).flatMap(([kind, name]) => {
      const schema = getOwn(file.schemas, name);
      return isJsonObject(schema) ? [[kind, { schema, source }] as const] : [];
    });
    kinds.set(apiVersion, new Map(entries));
  }
  return { kinds, schemas: file.schemas, completeGroups: new Set([...kinds.keys()].map(groupOfApiVersion)) };
};

/** Later catalogs win for the same apiVersion and kind (a cluster over the input's CRDs over the built-in file). */
export const mergeCatalogs = (...catalogs: ReadonlyArray<SchemaCatalog>): SchemaCatalog => {
  const kinds = new Map<string, Map<string, KindSchema>>();
  for (const catalog of catalogs)
    for (const [apiVersion, byKind] of catalog.kinds) {
      const merged = kinds.get(apiVersion) ?? new Map<string, KindSchema>();
      for (const [kind, schema] of byKind) merged.set(kind, schema);
      kinds.set(apiVersion, merged);
    }
  return {
    kinds,
    schemas: objectFromEntries(catalogs.flatMap((catalog) => Object.entries(catalog.schemas))),
    completeGroups: new Set(catalogs.flatMap((catalog) => [...catalog.completeGroups])),
  };
};

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The kinds a CustomResourceDefinition defines, one per served version with a schema. The root
 * gets `apiVersion`, `kind` and `metadata` (ObjectMeta) as the API server publishes them; a
 * version without `openAPIV3Schema` is left out (nothing to check against).
 */
export const catalogOfCrds = (crds: ReadonlyArray<JsonValue>): SchemaCatalog => {
  const kinds = new Map<string, Map<string, KindSchema>>();
  for (const crd of crds) {
    if (!isJsonObject(crd)) continue;
    const spec = getOwn(crd, 'spec');
    const metadata = getOwn(crd, 'metadata');
    if (!isJsonObject(spec) || !isJsonObject(metadata)) continue;
    const group = getOwn(spec, 'group');
    const names = getOwn(spec, 'names');
    const kind = isJsonObject(names) ? getOwn(names, 'kind') : undefined;
    const versions = getOwn(spec, 'versions');
    if (typeof group !== 'string' || typeof kind !== 'string' || !isJsonArray(versions)) continue;
    if (crdBoundProblem(crd) !== undefined) continue; // reported by crdIssues, never walked
    const source = `the schema of CustomResourceDefinition ${jsonText(getOwn(metadata, 'name'))}`;
    for (const version of versions) {
      const schema = crdVersionSchema(version);
      const name = isJsonObject(version) ? getOwn(version, 'name') : undefined;
      if (schema === undefined || typeof name !== 'string') continue;
      const apiVersion = `${group}/${name}`;
      const byKind = kinds.get(apiVersion) ?? new Map<string, KindSchema>();
      byKind.set(kind, { schema, source, structural: true });
      kinds.set(apiVersion, byKind);
    }
  }
  return { kinds, schemas: {}, completeGroups: new Set() };
};

const crdVersionSchema = (version: JsonValue): JsonObject | undefined => {
  if (!isJsonObject(version) || getOwn(version, 'served') === false) return undefined;
  const validation = getOwn(version, 'schema');
  const root = isJsonObject(validation) ? getOwn(validation, 'openAPIV3Schema') : undefined;
  if (!isJsonObject(root)) return undefined;
  const properties = getOwn(root, 'properties');
  return {
    ...root,
    type: 'object',
    properties: {
      ...(isJsonObject(properties) ? properties : {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: OBJECT_META },
    },
  };
};

/** `apps/v1` → `apps`; `v1` → the core group `''`. */
const groupOfApiVersion = (apiVersion: string): string => {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
};

/**
 * The kinds of OpenAPI v3 documents as the API server serves them (`/openapi/v3/apis/<group>/<version>`):
 * each schema named by `x-kubernetes-group-version-kind`, its references into its document.
 */
export const catalogOfDocuments = (
  documents: ReadonlyMap<string, JsonObject>,
  source = "the cluster's schema",
): SchemaCatalog => {
  const kinds = new Map<string, Map<string, KindSchema>>();
  const schemas: Record<string, JsonValue> = {};
  for (const [apiVersion, document] of documents) {
    const components = getOwn(document, 'components');
    const named = isJsonObject(components) ? getOwn(components, 'schemas') : undefined;
    if (!isJsonObject(named)) continue;
    Object.assign(schemas, named);
    const group = groupOfApiVersion(apiVersion);
    const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
    const byKind = kinds.get(apiVersion) ?? new Map<string, KindSchema>();
    for (const schema of Object.values(named)) {
      const gvks = isJsonObject(schema) ? getOwn(schema, 'x-kubernetes-group-version-kind') : undefined;
      if (!isJsonObject(schema) || !isJsonArray(gvks)) continue;
      for (const gvk of gvks)
        if (isJsonObject(gvk) && gvk.group === group && gvk.version === version && typeof gvk.kind === 'string')
          byKind.set(gvk.kind, { schema, source });
    }
    kinds.set(apiVersion, byKind);
  }
  return { kinds, schemas, completeGroups: new Set() };
};

/**
 * Every problem of every manifest resource under the catalog. A resource of a group the catalog
 * knows nothing about is skipped (a custom resource whose CRD is not given: the plan reports
 * `UnknownKind`); one of a known group with an unknown apiVersion or kind is reported with the
 * closest known one. `status` is not checked (never written).
 */
export const catalogIssues = (args: {
  readonly manifest: ReadonlyArray<JsonValue>;
  readonly catalog: SchemaCatalog;
  /** CEL `x-kubernetes-validations` of CRD schemas; without, the rules are not checked. */
  readonly rules?: CrdRules;
}): ReadonlyArray<Issue> => {
  const suggestions = suggestionBudget();
  return args.manifest.flatMap((resource, index) => {
    if (!isJsonObject(resource) || typeof resource.apiVersion !== 'string' || typeof resource.kind !== 'string')
      return [];
    const { apiVersion, kind } = resource;
    const found = args.catalog.kinds.get(apiVersion)?.get(kind);
    const crd = crdIssues(resource, index, args.rules);
    const removed = REMOVED_APIS.get(`${apiVersion}/${kind}`);
    if (found === undefined && removed !== undefined)
      return [issueAt([index, 'apiVersion'], removedApiMessage(apiVersion, kind, removed))];
    if (found === undefined) return [...crd, ...unknownKindIssues(args.catalog, apiVersion, kind, index)];
    const body = Object.fromEntries(Object.entries(resource).filter(([key]) => key !== 'status'));
    const context = { schemas: args.catalog.schemas, what: `${apiVersion} ${kind}`, source: found.source, suggestions };
    if (found.structural !== true)
      return [...crd, ...valueIssues(body, found.schema, [index], context), ...serverRuleIssues(body, index)];
    return [
      ...valueIssues(body, found.schema, [index], { ...context, unknownOnly: true }),
      ...structuralCauses({
        object: body,
        schema: found.schema,
        ...defined({ rules: args.rules }),
      }).map((cause) => causeIssue(index, cause, `(${found.source} of ${apiVersion} ${kind})`)),
    ];
  });
};

/**
 * What the API server refuses in a manifest without any schema catalog: removed API versions and
 * the field rules beyond the schema (core/schema/server-rules). `plan` reports these (it checks
 * no schemas); `catalogIssues` includes them.
 */
export const serverRefusalIssues = (manifest: ReadonlyArray<JsonValue>): ReadonlyArray<Issue> =>
  manifest.flatMap((resource, index) => {
    if (!isJsonObject(resource) || typeof resource.apiVersion !== 'string' || typeof resource.kind !== 'string')
      return [];
    const removed = REMOVED_APIS.get(`${resource.apiVersion}/${resource.kind}`);
    if (removed !== undefined)
      return [issueAt([index, 'apiVersion'], removedApiMessage(resource.apiVersion, resource.kind, removed))];
    return serverRuleIssues(resource, index);
  });

/** A cause of the server's, as an issue of the manifest entry: `spec.manifest[0].spec.size: Invalid value: …`. */
const causeIssue = (index: number, cause: ErrorCause, where: string): Issue => {
  const field = cause.field === undefined || cause.field === '<nil>' || cause.field === '' ? '' : `.${cause.field}`;
  return { path: `${showPath([index], 'spec.manifest')}${field}`, message: `${cause.message} ${where}` };
};

const isCrd = (resource: JsonObject): boolean =>
  resource.kind === 'CustomResourceDefinition' &&
  typeof resource.apiVersion === 'string' &&
  resource.apiVersion.startsWith('apiextensions.k8s.io/');

/** A manifest CRD over a bound (one issue), else its rules' problems, as the API server would refuse them. */
const crdIssues = (resource: JsonObject, index: number, rules: CrdRules | undefined): ReadonlyArray<Issue> => {
  if (!isCrd(resource)) return [];
  const bound = crdBoundProblem(resource);
  const where = '(the bounds of offline validation, docs/decisions/0024-custom-resource-schema.md)';
  if (bound !== undefined) return [causeIssue(index, { field: bound.field, message: bound.message }, where)];
  if (rules === undefined) return [];
  return versionSchemas(resource).flatMap(({ schema, root }) =>
    rules
      .schemaProblems(schema, root)
      .map((cause) => causeIssue(index, cause, '(as the API server would refuse the CRD)')),
  );
};

const unknownKindIssues = (
  catalog: SchemaCatalog,
  apiVersion: string,
  kind: string,
  index: number,
): ReadonlyArray<Issue> => {
  const group = groupOfApiVersion(apiVersion);
  if (!catalog.completeGroups.has(group)) return [];
  const inGroup = [...catalog.kinds.keys()].filter((known) => groupOfApiVersion(known) === group);
  const servedAs = [...catalog.kinds].flatMap(([known, byKind]) => (byKind.has(kind) ? [known] : []));
  const where =
    servedAs.length > 0 ? `: ${kind} is served as ${servedAs.map((v) => `apiVersion ${v}`).join(', ')}` : '';
  const byKind = catalog.kinds.get(apiVersion);
  if (byKind === undefined) {
    const fix = where === '' ? `: use one of ${inGroup.join(', ')}` : where;
    return [issueAt([index, 'apiVersion'], `apiVersion ${apiVersion} is not served${fix}`)];
  }
  if (where !== '') return [issueAt([index, 'apiVersion'], `${kind} is not a kind of ${apiVersion}${where}`)];
  const suggestion = closestName(kind, [...byKind.keys()]);
  const hint =
    suggestion === undefined
      ? `the kinds of ${apiVersion} are listed by kubectl api-resources --api-group=${group === '' ? "''" : group}`
      : `did you mean \`${suggestion}\`?`;
  return [issueAt([index, 'kind'], `unknown kind ${kind} in ${apiVersion}: ${hint}`)];
};

const jsonObjectCodec = new t.Type<JsonObject, JsonObject, unknown>(
  'object',
  (u): u is JsonObject => isJsonObject(u),
  (u, c) => (isJsonObject(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

/** The compact schema file's shape, decoded where the file is read. */
export const CompactSchemasCodec: t.Type<CompactSchemas, CompactSchemas, unknown> = t.type({
  kubernetesVersion: t.string,
  kinds: t.record(t.string, t.record(t.string, t.string)),
  schemas: jsonObjectCodec,
});

/** A manifest path shown relative to its resource: `spec.manifest[0].spec.replicas` → `spec.replicas`. */
const relativeToResource = (issue: Issue): Issue => ({
  ...issue,
  path: issue.path.replace(/^spec\.manifest\[0\]\.?/, '') || '(the object)',
});

/** One object's problems under the catalog, paths relative to the object (a saved plan's create bodies). */
export const objectSchemaIssues = (object: JsonObject, catalog: SchemaCatalog): ReadonlyArray<Issue> =>
  catalogIssues({ manifest: [object], catalog }).map(relativeToResource);

const unescapePointer = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * The problems of a JSON patch operation's value under its kind's schema (a saved plan's patches):
 * the schema is followed along the operation's path (an unknown field on the way is reported with
 * the closest known name), then the value is checked there. Paths are relative to the object.
 */
export const patchValueIssues = (args: {
  readonly apiVersion: string;
  readonly kind: string;
  readonly path: string;
  readonly value: JsonValue;
  readonly catalog: SchemaCatalog;
}): ReadonlyArray<Issue> => {
  const found = args.catalog.kinds.get(args.apiVersion)?.get(args.kind);
  if (found === undefined) return [];
  const segments = args.path.split('/').slice(1).map(unescapePointer);
  const context = { schemas: args.catalog.schemas, what: `${args.apiVersion} ${args.kind}`, source: found.source };
  let schema: JsonObject = found.schema;
  const walked: Array<string | number> = [0];
  for (const segment of segments) {
    const current = resolved(schema, args.catalog.schemas);
    const properties = isJsonObject(current.properties) ? current.properties : {};
    const property = getOwn(properties, segment);
    const additional = getOwn(current, 'additionalProperties');
    const items = getOwn(current, 'items');
    const index = /^(\d+|-)$/.test(segment) ? (segment === '-' ? segment : Number(segment)) : undefined;
    walked.push(index === undefined || index === '-' ? segment : index);
    if (isJsonObject(property)) schema = property;
    else if (isJsonObject(additional)) schema = additional;
    else if (isJsonObject(items) && index !== undefined) schema = items;
    else if (isUnknownField(current, segment)) {
      const suggestion = closestName(segment, Object.keys(properties));
      const hint = suggestion === undefined ? 'remove it' : `did you mean \`${suggestion}\`?`;
      return [
        relativeToResource(
          issueAt(walked, `unknown field of ${context.what} (the API server would refuse or drop it): ${hint}`),
        ),
      ];
    } else return [];
  }
  return valueIssues(args.value, schema, walked, context).map(relativeToResource);
};

/** Whether a field is unknown to an object schema that names its fields (not free-form, not a list). */
const isUnknownField = (schema: JsonObject, field: string): boolean => {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  if (Object.keys(properties).length === 0) return false;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true || getOwn(schema, 'additionalProperties') === true)
    return false;
  return getOwn(properties, field) === undefined;
};

const UNKNOWN_FIELD = 'unknown field of ';

/**
 * The paths of the fields an object has that its kind's schema does not (what kube-apiserver
 * refuses under `fieldValidation=Strict` and drops otherwise), relative to the object.
 */
export const unknownFieldPaths = (object: JsonObject, catalog: SchemaCatalog): ReadonlyArray<string> =>
  objectSchemaIssues(object, catalog).flatMap((issue) => (issue.message.startsWith(UNKNOWN_FIELD) ? [issue.path] : []));
