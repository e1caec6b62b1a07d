/**
 * Bounds on a CRD's schema, checked before anything is compiled or walked: a CRD is tenant input
 * (a pull request, an Application's manifest), and the checks after this are linear in what these
 * bound. One clear error per CRD over a bound, naming the bound and where it was crossed.
 * The size bound is etcd's request limit: a larger CRD cannot be stored by any cluster.
 * docs/decisions/0024-custom-resource-schema.md.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import { compileRegex } from './regex.js';
import * as E from 'fp-ts/lib/Either.js';

export const CRD_SCHEMA_BOUNDS = {
  /** etcd's default request limit (1.5 MiB): the API server cannot store a larger object. */
  maxBytes: 1_572_864,
  /** Schema nodes nested in schema nodes (real CRDs, PodSpecs inlined, stay under 40). */
  maxDepth: 64,
  maxEnum: 5_000,
  maxProperties: 10_000,
  maxPatternLength: 4_096,
  /** A CEL rule or message expression. */
  maxRuleLength: 8_192,
  maxRulesPerNode: 64,
} as const;

/** A bound crossed: where (a field path in the CRD; `''` for the whole) and what. */
export type BoundProblem = { readonly field: string; readonly message: string };

/** The sub-schemas of a schema node, with the step that names each in a path. */
const subSchemas = (schema: JsonObject): ReadonlyArray<readonly [string, JsonValue]> => {
  const found: Array<readonly [string, JsonValue]> = [];
  const properties = getOwn(schema, 'properties');
  if (isJsonObject(properties))
    for (const key of Object.keys(properties)) found.push([`properties[${key}]`, getOwn(properties, key) ?? null]);
  for (const key of ['items', 'additionalProperties', 'not'])
    if (isJsonObject(getOwn(schema, key))) found.push([key, getOwn(schema, key) ?? null]);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const list = getOwn(schema, key);
    if (isJsonArray(list)) list.forEach((member, index) => found.push([`${key}[${index}]`, member]));
  }
  return found;
};

const ruleProblem = (schema: JsonObject): string | undefined => {
  const rules = getOwn(schema, 'x-kubernetes-validations');
  if (!isJsonArray(rules)) return undefined;
  if (rules.length > CRD_SCHEMA_BOUNDS.maxRulesPerNode)
    return `x-kubernetes-validations: ${rules.length} rules, more than ${CRD_SCHEMA_BOUNDS.maxRulesPerNode}`;
  for (const rule of rules) {
    const texts = isJsonObject(rule) ? [getOwn(rule, 'rule'), getOwn(rule, 'messageExpression')] : [];
    for (const text of texts)
      if (typeof text === 'string' && text.length > CRD_SCHEMA_BOUNDS.maxRuleLength)
        return `x-kubernetes-validations: a rule of ${text.length} characters, more than ${CRD_SCHEMA_BOUNDS.maxRuleLength}`;
  }
  return undefined;
};

/** A node's own problem: `$ref`, an enum, property list or pattern over its bound, a pattern that is no RE2. */
const nodeProblem = (schema: JsonObject): string | undefined => {
  if (getOwn(schema, '$ref') !== undefined) return '$ref: Forbidden: $ref is not supported in a CRD schema';
  if (getOwn(schema, 'uniqueItems') === true)
    return 'uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic';
  const options = getOwn(schema, 'enum');
  if (isJsonArray(options) && options.length > CRD_SCHEMA_BOUNDS.maxEnum)
    return `enum: ${options.length} values, more than ${CRD_SCHEMA_BOUNDS.maxEnum}`;
  const properties = getOwn(schema, 'properties');
  const count = isJsonObject(properties) ? Object.keys(properties).length : 0;
  if (count > CRD_SCHEMA_BOUNDS.maxProperties)
    return `properties: ${count} properties, more than ${CRD_SCHEMA_BOUNDS.maxProperties}`;
  const pattern = getOwn(schema, 'pattern');
  if (typeof pattern === 'string') {
    if (pattern.length > CRD_SCHEMA_BOUNDS.maxPatternLength)
      return `pattern: ${pattern.length} characters, more than ${CRD_SCHEMA_BOUNDS.maxPatternLength}`;
    const compiled = compileRegex(pattern);
    if (E.isLeft(compiled))
      return `pattern: Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: ${compiled.left}`;
  }
  return ruleProblem(schema);
};

/**
 * The first bound a schema crosses, at its path (`openAPIV3Schema.properties[spec]…`), or
 * undefined. Iterative (no stack to overflow), and it stops at the first problem.
 */
export const schemaBoundProblem = (schema: JsonValue, root: string): BoundProblem | undefined => {
  const stack: Array<{ readonly node: JsonValue; readonly path: string; readonly depth: number }> = [
    { node: schema, path: root, depth: 1 },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, path, depth } = next;
    if (!isJsonObject(node)) continue;
    if (depth > CRD_SCHEMA_BOUNDS.maxDepth)
      return { field: path, message: `the schema nests more than ${CRD_SCHEMA_BOUNDS.maxDepth} levels deep` };
    const problem = nodeProblem(node);
    if (problem !== undefined) {
      const colon = problem.indexOf(': ');
      return { field: `${path}.${problem.slice(0, colon)}`, message: problem.slice(colon + 2) };
    }
    for (const [step, child] of subSchemas(node))
      stack.push({ node: child, path: `${path}.${step}`, depth: depth + 1 });
  }
  return undefined;
};

/** Bytes of a value's JSON, counted without building it, stopping as soon as `limit` is passed. */
export const jsonSizeOver = (value: JsonValue, limit: number): boolean => {
  let size = 0;
  const stack: JsonValue[] = [value];
  for (let next = stack.pop(); next !== undefined || stack.length > 0; next = stack.pop()) {
    if (next === undefined) continue;
    if (typeof next === 'string') size += next.length + 2;
    else if (typeof next !== 'object' || next === null) size += 5;
    else if (isJsonArray(next)) {
      size += 2;
      stack.push(...next);
    } else
      for (const key of Object.keys(next)) {
        size += key.length + 4;
        stack.push(getOwn(next, key) ?? null);
      }
    if (size > limit) return true;
  }
  return false;
};

/**
 * The schemas of a CRD's versions with the path the API server names them by: one schema shared
 * by every version is `spec.validation.openAPIV3Schema` (the server's internal form), distinct
 * ones `spec.versions[i].schema.openAPIV3Schema`.
 */
export const versionSchemas = (
  crd: JsonValue,
): ReadonlyArray<{ readonly schema: JsonValue; readonly root: string }> => {
  const spec = isJsonObject(crd) ? getOwn(crd, 'spec') : undefined;
  const list = isJsonObject(spec) ? getOwn(spec, 'versions') : undefined;
  const schemas = (isJsonArray(list) ? list : []).map((version, index) => {
    const holder = isJsonObject(version) ? getOwn(version, 'schema') : undefined;
    const schema = isJsonObject(holder) ? getOwn(holder, 'openAPIV3Schema') : undefined;
    return { schema, root: `spec.versions[${index}].schema.openAPIV3Schema` };
  });
  const first = schemas[0]?.schema;
  const shared =
    first !== undefined && schemas.every((entry) => JSON.stringify(entry.schema) === JSON.stringify(first));
  if (shared) return [{ schema: first, root: 'spec.validation.openAPIV3Schema' }];
  return schemas.flatMap(({ schema, root }) => (schema === undefined ? [] : [{ schema, root }]));
};

/** The problem of a whole CRD over a bound (its size, then each version's schema), or undefined. */
export const crdBoundProblem = (crd: JsonValue): BoundProblem | undefined => {
  if (jsonSizeOver(crd, CRD_SCHEMA_BOUNDS.maxBytes))
    return {
      field: '',
      message: `the CustomResourceDefinition is larger than ${CRD_SCHEMA_BOUNDS.maxBytes} bytes (etcd's request limit: no cluster can store it); split its versions or trim descriptions`,
    };
  for (const { schema, root } of versionSchemas(crd)) {
    const problem = schemaBoundProblem(schema, root);
    if (problem !== undefined) return problem;
  }
  return undefined;
};
