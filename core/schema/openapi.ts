/**
 * Manifest resources checked against the cluster's OpenAPI v3 schemas (`/openapi/v3/apis/<group>/<version>`):
 * what the API server would refuse (wrong types, values outside an enum, missing required fields)
 * or silently drop (unknown fields: a typo in a manifest is never stored, so an observed typo
 * would be patched forever). Pure: the documents are fetched by the shell.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { showPath, type Path } from '../json/path.js';
import { closestName, type SuggestionBudget } from '../model/closest-name.js';
import { describeValue, type Issue } from '../model/decode.js';
import { hasSchemaType } from './structural/schema-type.js';

/** One group-version's OpenAPI v3 document, as the API server serves it. */
export type OpenApiDocument = JsonObject;

/** The component schemas references point into, the kind being checked, and whose schema it is (for messages). */
export type SchemaContext = {
  readonly schemas: JsonObject;
  readonly what: string;
  readonly source: string;
  /**
   * Only unknown fields are reported: the value is checked by the structural validator
   * (core/schema/structural), as a custom resource is.
   */
  readonly unknownOnly?: boolean;
  /** What the "did you mean" suggestions of one run may cost (shared by all its resources). */
  readonly suggestions?: SuggestionBudget;
};

/** Enum values listed in a message; a tenant's enum can have thousands. */
const LISTED_OPTIONS = 32;

const listed = (options: ReadonlyArray<JsonValue>): string =>
  options
    .slice(0, LISTED_OPTIONS)
    .map((option) => JSON.stringify(option))
    .join(', ') + (options.length > LISTED_OPTIONS ? `, … (${options.length - LISTED_OPTIONS} more)` : '');

const ROOT = 'spec.manifest';

export const issueAt = (path: Path, message: string): Issue => ({ path: showPath(path, ROOT), message });

/** `apps/v1` → `{ group: 'apps', version: 'v1' }`; `v1` → the core group `''`. */
const groupVersionOf = (apiVersion: string): { readonly group: string; readonly version: string } => {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
};

/** The path of a group-version's document in the API server's `/openapi/v3` index (`api/v1`, `apis/apps/v1`). */
export const openApiPathOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;

/** The schema of a kind in its group-version document, found by `x-kubernetes-group-version-kind`. */
const kindSchema = (schemas: JsonObject, apiVersion: string, kind: string): JsonObject | undefined => {
  const { group, version } = groupVersionOf(apiVersion);
  return Object.values(schemas).find((schema): schema is JsonObject => {
    const kinds = isJsonObject(schema) ? getOwn(schema, 'x-kubernetes-group-version-kind') : undefined;
    return (
      isJsonArray(kinds) &&
      kinds.some((gvk) => isJsonObject(gvk) && gvk.group === group && gvk.version === version && gvk.kind === kind)
    );
  });
};

/**
 * Every problem of every manifest resource whose group-version document is given (others are
 * skipped: an unknown kind is the plan's `UnknownKind`). `status` is not checked (never written).
 */
export const openApiIssues = (args: {
  readonly manifest: ReadonlyArray<JsonValue>;
  /** By apiVersion. */
  readonly documents: ReadonlyMap<string, OpenApiDocument>;
}): ReadonlyArray<Issue> =>
  args.manifest.flatMap((resource, index) => {
    if (!isJsonObject(resource) || typeof resource.apiVersion !== 'string' || typeof resource.kind !== 'string')
      return [];
    const components = getOwn(args.documents.get(resource.apiVersion) ?? {}, 'components');
    const schemas = isJsonObject(components) ? getOwn(components, 'schemas') : undefined;
    if (!isJsonObject(schemas)) return [];
    const schema = kindSchema(schemas, resource.apiVersion, resource.kind);
    if (schema === undefined) return [];
    const body = Object.fromEntries(Object.entries(resource).filter(([key]) => key !== 'status'));
    return valueIssues(body, schema, [index], {
      schemas,
      what: `${resource.apiVersion} ${resource.kind}`,
      source: "the cluster's schema",
    });
  });

/** A schema with its `$ref` and `allOf` members merged in (Kubernetes wraps every reference in `allOf`). */
export const resolved = (schema: JsonObject, schemas: JsonObject, depth = 0): JsonObject => {
  if (depth > 16) return schema;
  const ref = getOwn(schema, '$ref');
  const target = typeof ref === 'string' ? getOwn(schemas, ref.replace('#/components/schemas/', '')) : undefined;
  const base = isJsonObject(target)
    ? { ...resolved(target, schemas, depth + 1), ...withoutKeys(schema, ['$ref']) }
    : schema;
  const allOf = getOwn(base, 'allOf');
  if (!isJsonArray(allOf)) return base;
  return allOf.reduce<JsonObject>(
    (merged, member) => (isJsonObject(member) ? mergeSchemas(merged, resolved(member, schemas, depth + 1)) : merged),
    withoutKeys(base, ['allOf']),
  );
};

const withoutKeys = (object: JsonObject, keys: ReadonlyArray<string>): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));

const mergeSchemas = (a: JsonObject, b: JsonObject): JsonObject => {
  const properties = {
    ...(isJsonObject(a.properties) ? a.properties : {}),
    ...(isJsonObject(b.properties) ? b.properties : {}),
  };
  const required = [...(isJsonArray(a.required) ? a.required : []), ...(isJsonArray(b.required) ? b.required : [])];
  return {
    ...a,
    ...b,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
};

/** The types a schema allows: its `type`, the types of its `oneOf` alternatives, int-or-string; none = any. */
const allowedTypes = (schema: JsonObject): ReadonlyArray<string> => {
  if (schema['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  if (typeof schema.type === 'string') return [schema.type];
  const alternatives = getOwn(schema, 'oneOf');
  if (!isJsonArray(alternatives)) return [];
  const types = alternatives.map((alternative) =>
    isJsonObject(alternative) ? getOwn(alternative, 'type') : undefined,
  );
  return types.every((type): type is string => typeof type === 'string') ? types : [];
};

/** Issues of a value under a schema; `null` is accepted anywhere (the API server reads it as unset). */
export const valueIssues = (
  value: JsonValue,
  written: JsonObject,
  path: Path,
  context: SchemaContext,
): ReadonlyArray<Issue> => {
  if (value === null) return [];
  const schema = resolved(written, context.schemas);
  if (context.unknownOnly === true) return childIssues(value, schema, path, context);
  const types = allowedTypes(schema);
  const where = `(${context.source} of ${context.what})`;
  if (types.length > 0 && !types.some((type) => hasSchemaType(value, type)))
    return [issueAt(path, `expected ${types.join(' or ')}, got ${describeValue(value)} ${where}`)];
  const allowed = getOwn(schema, 'enum');
  if (isJsonArray(allowed) && !allowed.some((option) => option === value)) {
    return [issueAt(path, `${JSON.stringify(value)} is not one of ${listed(allowed)} ${where}`)];
  }
  return childIssues(value, schema, path, context);
};

const childIssues = (
  value: JsonValue,
  schema: JsonObject,
  path: Path,
  context: SchemaContext,
): ReadonlyArray<Issue> => {
  if (isJsonArray(value)) return arrayIssues(value, schema, path, context);
  if (isJsonObject(value)) return objectIssues(value, schema, path, context);
  return [];
};

const arrayIssues = (
  value: ReadonlyArray<JsonValue>,
  schema: JsonObject,
  path: Path,
  context: SchemaContext,
): ReadonlyArray<Issue> => {
  const items = getOwn(schema, 'items');
  return isJsonObject(items) ? value.flatMap((item, index) => valueIssues(item, items, [...path, index], context)) : [];
};

/** Required fields first, then every field: checked by its property schema, its map schema, or reported unknown. */
const objectIssues = (
  value: JsonObject,
  schema: JsonObject,
  path: Path,
  context: SchemaContext,
): ReadonlyArray<Issue> => {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const additional = getOwn(schema, 'additionalProperties');
  const known = Object.keys(properties);
  // Free-form: preserved unknown fields, any map, or an object schema that names no field (RawExtension).
  const free = schema['x-kubernetes-preserve-unknown-fields'] === true || additional === true || known.length === 0;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const missing = (isJsonArray(schema.required) && context.unknownOnly !== true ? schema.required : []).flatMap(
    (name) => (typeof name === 'string' && getOwn(value, name) === undefined ? [name] : []),
  );
  return [
    ...missing.map((name) =>
      issueAt([...path, name], `missing required field ${name} (${context.source} of ${context.what})`),
    ),
    ...Object.entries(value).flatMap(([key, child]) => {
      const property = getOwn(properties, key);
      if (isJsonObject(property)) return valueIssues(child, property, [...path, key], context);
      if (isJsonObject(additional)) return valueIssues(child, additional, [...path, key], context);
      if (free || (embedded && ['apiVersion', 'kind', 'metadata'].includes(key))) return [];
      const suggestion = closestName(key, known, context.suggestions);
      const hint = suggestion === undefined ? 'remove it' : `did you mean \`${suggestion}\`?`;
      return [
        issueAt([...path, key], `unknown field of ${context.what} (the API server would refuse or drop it): ${hint}`),
      ];
    }),
  ];
};
