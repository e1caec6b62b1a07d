/**
 * A custom resource validated against its CRD's structural schema, as apiextensions-apiserver
 * does (kube-openapi's validators, then embedded resources and list types, then the CEL rules):
 * every cause with the field path, the reason and the message the real server writes. One
 * implementation for the memory server and offline `validate`/`plan`.
 * docs/decisions/0024-custom-resource-schema.md.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonArray, isJsonObject, type JsonArray, type JsonObject, type JsonValue } from '../../json/json.js';
import type { ErrorCause } from '../../ports/errors.js';
import { hasFormat } from './formats.js';
import { hasSchemaType, SCHEMA_TYPES } from './schema-type.js';
import { goFloat, invalid, jsonTypeName, notSupported, required, tooLong, tooMany, typeInvalid } from './go-text.js';
import { compileRegex, type SafeRegex } from './regex.js';
import { listTypeCauses } from './list-types.js';
import { embeddedCauses } from './embedded.js';
import { ruleCauses, type SchemaRules } from './rules.js';
import { valueKey } from './value-key.js';
import { childPath, indexPath, memberSchema } from './walk.js';
import { jsonText } from '../../json/text.js';

/** What one validation walk keeps: the causes found, compiled patterns and enum sets (built once per walk). */
type Walk = {
  readonly causes: ErrorCause[];
  readonly regexes: Map<string, SafeRegex | undefined>;
  readonly enums: Map<JsonArray, ReadonlySet<string>>;
};

const num = (schema: JsonObject, key: string): number | undefined => {
  const value = getOwn(schema, key);
  return typeof value === 'number' ? value : undefined;
};

const typeMatches = (value: JsonValue, schema: JsonObject): boolean => {
  if (getOwn(schema, 'x-kubernetes-int-or-string') === true)
    return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  const type = getOwn(schema, 'type');
  if (SCHEMA_TYPES.has(type ?? null)) return hasSchemaType(value, type);
  return value !== null || getOwn(schema, 'x-kubernetes-preserve-unknown-fields') === true;
};

/** The type a value should have, as the type error names it. */
const expectedType = (schema: JsonObject): string => {
  const type = getOwn(schema, 'type');
  return getOwn(schema, 'x-kubernetes-int-or-string') === true ? 'integer,string' : jsonText(type ?? 'object');
};

/** Length, then pattern: kube-openapi stops at a string's first problem. */
const stringProblem = (value: string, schema: JsonObject, path: string, walk: Walk): ErrorCause | undefined => {
  const length = [...value].length;
  const max = num(schema, 'maxLength');
  const min = num(schema, 'minLength');
  if (max !== undefined && length > max) return tooLong(path, max);
  if (min !== undefined && length < min)
    return invalid(path, value, `${path} in body should be at least ${min} chars long`);
  const pattern = getOwn(schema, 'pattern');
  if (typeof pattern !== 'string') return undefined;
  if (!walk.regexes.has(pattern)) {
    const compiled = compileRegex(pattern);
    walk.regexes.set(pattern, E.isRight(compiled) ? compiled.right : undefined);
  }
  const regex = walk.regexes.get(pattern);
  return regex !== undefined && !regex.test(value)
    ? invalid(path, value, `${path} in body should match '${pattern}'`)
    : undefined;
};

const stringCauses = (value: string, schema: JsonObject, path: string, walk: Walk): void => {
  const problem = stringProblem(value, schema, path, walk);
  if (problem !== undefined) walk.causes.push(problem);
  const format = getOwn(schema, 'format');
  if (typeof format === 'string' && !hasFormat(format, value))
    walk.causes.push(typeInvalid(path, value, `${path} in body must be of type ${format}: ${JSON.stringify(value)}`));
};

const numberCauses = (value: number, schema: JsonObject, path: string, walk: Walk): void => {
  const multipleOf = num(schema, 'multipleOf');
  // kube-openapi checks an integer value against the factor made an integer: 0.25 becomes 0.
  const factor = multipleOf !== undefined && Number.isInteger(value) ? Math.trunc(multipleOf) : multipleOf;
  if (factor !== undefined && factor <= 0)
    walk.causes.push(
      invalid(path, factor, `factor MultipleOf declared for ${path} must be positive: ${goFloat(factor)}`),
    );
  else if (factor !== undefined && !Number.isInteger(value / factor))
    walk.causes.push(invalid(path, value, `${path} in body should be a multiple of ${goFloat(factor)}`));
  // As the factor, the bounds of an integer value are made integers first (0.5 becomes 0).
  const bound = (key: string): number | undefined => {
    const declared = num(schema, key);
    return declared !== undefined && Number.isInteger(value) ? Math.trunc(declared) : declared;
  };
  const max = bound('maximum');
  const exclusiveMax = getOwn(schema, 'exclusiveMaximum') === true;
  if (max !== undefined && (exclusiveMax ? value >= max : value > max))
    walk.causes.push(
      invalid(path, value, `${path} in body should be less than ${exclusiveMax ? '' : 'or equal to '}${goFloat(max)}`),
    );
  const min = bound('minimum');
  const exclusiveMin = getOwn(schema, 'exclusiveMinimum') === true;
  if (min !== undefined && (exclusiveMin ? value <= min : value < min))
    walk.causes.push(
      invalid(
        path,
        value,
        `${path} in body should be greater than ${exclusiveMin ? '' : 'or equal to '}${goFloat(min)}`,
      ),
    );
};

const arrayCauses = (value: JsonArray, schema: JsonObject, path: string, walk: Walk): void => {
  const min = num(schema, 'minItems');
  const max = num(schema, 'maxItems');
  if (min !== undefined && value.length < min)
    walk.causes.push(invalid(path, value.length, `${path} in body should have at least ${min} items`));
  if (max !== undefined && value.length > max) walk.causes.push(tooMany(path, value.length, max));
  const items = getOwn(schema, 'items');
  if (isJsonObject(items)) value.forEach((item, index) => validateNode(item, items, indexPath(path, index), walk));
};

const objectCauses = (value: JsonObject, schema: JsonObject, path: string, walk: Walk): void => {
  const count = Object.keys(value).length;
  const max = num(schema, 'maxProperties');
  const min = num(schema, 'minProperties');
  if (max !== undefined && count > max) walk.causes.push(tooMany(path, count, max));
  if (min !== undefined && count < min)
    walk.causes.push(invalid(path, count, `${path} in body should have at least ${min} properties`));
  const requiredNames = getOwn(schema, 'required');
  if (isJsonArray(requiredNames))
    for (const name of requiredNames)
      if (typeof name === 'string' && getOwn(value, name) === undefined)
        walk.causes.push(required(childPath(path, name)));
  for (const key of Object.keys(value)) {
    const member = memberSchema(schema, key, path);
    if (member !== undefined) validateNode(getOwn(value, key) ?? null, member.schema, member.path, walk);
  }
};

const enumCauses = (value: JsonValue, schema: JsonObject, path: string, walk: Walk): void => {
  const options = getOwn(schema, 'enum');
  if (!isJsonArray(options)) return;
  let keys = walk.enums.get(options);
  if (keys === undefined) walk.enums.set(options, (keys = new Set(options.map(valueKey))));
  if (!keys.has(valueKey(value))) walk.causes.push(notSupported(path, value, options));
};

/**
 * One node: its type first (on a wrong type only the enum is checked besides), then its own checks, then its members.
 */
const validateNode = (value: JsonValue, schema: JsonObject, path: string, walk: Walk): void => {
  if (value === null && getOwn(schema, 'nullable') === true) return;
  if (!typeMatches(value, schema)) {
    const type = jsonTypeName(value);
    walk.causes.push(
      typeInvalid(path, type, `${path} in body must be of type ${expectedType(schema)}: ${JSON.stringify(type)}`),
    );
    // kube-openapi's format check of an integer also fails on a fraction, with no field of its own.
    if (type === 'number' && getOwn(schema, 'type') === 'integer')
      walk.causes.push(invalid('<nil>', '', `Checked value must be of type integer (default format) in ${path}`));
    // kube-openapi's enum validator runs whatever the type (`f: 1` against `enum: [fast, slow]` gets both causes).
    enumCauses(value, schema, path, walk);
    return;
  }
  if (typeof value === 'string') stringCauses(value, schema, path, walk);
  else if (typeof value === 'number') numberCauses(value, schema, path, walk);
  if (isJsonArray(value)) arrayCauses(value, schema, path, walk);
  enumCauses(value, schema, path, walk);
  if (isJsonObject(value)) objectCauses(value, schema, path, walk);
};

/** What a check knows besides the object: the stored object on an update, and the CEL rules when they are modelled. */
export type ValidationInput = {
  readonly object: JsonObject;
  readonly schema: JsonObject;
  readonly old?: JsonObject;
  readonly rules?: SchemaRules;
};

/** The message kube-apiserver adds when schema errors kept the CEL rules from running. */
const RULES_SKIPPED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/** The causes that keep the server from running CEL rules (apiextensions' hasBlockingErr). */
const BLOCKING: ReadonlySet<string | undefined> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

const isBlocking = (cause: ErrorCause): boolean => BLOCKING.has(cause.reason);

/**
 * Every cause of a custom resource under its version's schema (the root's `apiVersion`, `kind`
 * and `metadata` are the server's, checked elsewhere). The CEL rules run only when nothing
 * blocking (a wrong type or format, a missing required field, a value not in the enum, too long or
 * too many) was found, as on the real server.
 */
export const structuralCauses = (input: ValidationInput): ReadonlyArray<ErrorCause> => {
  const { apiVersion: _apiVersion, kind: _kind, metadata: _metadata, ...body } = input.object;
  const walk: Walk = { causes: [], regexes: new Map(), enums: new Map() };
  const { properties, ...root } = input.schema;
  const rootSchema = { ...root, properties: isJsonObject(properties) ? withoutMeta(properties) : {} };
  validateNode(body, rootSchema, '', walk);
  const causes = [...walk.causes, ...embeddedCauses(input.object, input.schema), ...listTypeCauses(body, rootSchema)];
  if (input.rules === undefined || !hasRules(input.schema)) return causes;
  if (causes.some(isBlocking)) return [...causes, invalid('<nil>', null, RULES_SKIPPED)];
  return [...causes, ...ruleCauses(input.rules, input.object, input.old, input.schema)];
};

/** Whether any node of the schema has CEL rules (the server has a CEL validator only then). */
const hasRules = (schema: JsonObject): boolean => {
  const stack: JsonValue[] = [schema];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isJsonObject(node)) continue;
    if (getOwn(node, 'x-kubernetes-validations') !== undefined) return true;
    const properties = getOwn(node, 'properties');
    if (isJsonObject(properties)) stack.push(...Object.values(properties));
    stack.push(getOwn(node, 'items') ?? null, getOwn(node, 'additionalProperties') ?? null);
  }
  return false;
};

const withoutMeta = (properties: JsonObject): JsonObject => {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = properties;
  return rest;
};
