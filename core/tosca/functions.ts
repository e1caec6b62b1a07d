/** Evaluation of the TOSCA functions `get_input`, `get_property` and `concat` in a template's values. */
import * as E from 'fp-ts/lib/Either.js';
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { showPath, type Path } from '../json/path.js';
import { SUPPORTED_FUNCTIONS, UNSUPPORTED_FUNCTIONS, type ToscaIssue } from './types.js';

/** What functions can refer to. */
export type Scope = {
  /** Input values given by the Application (`spec.toscaInputs`). */
  readonly given: JsonObject;
  /** `topology_template.inputs`: declarations, with optional `default`. */
  readonly declared: JsonObject;
  /** `topology_template.node_templates`. */
  readonly nodes: JsonObject;
  /** How paths are shown: `spec.tosca`, `spec.csar (…) Definitions/app.yaml`, … */
  readonly root: string;
};

type Result = E.Either<ToscaIssue, JsonValue>;

/** Where a value sits, and which properties are being resolved (to report cycles). */
type At = { readonly path: Path; readonly self: string; readonly resolving: ReadonlyArray<string> };

const KNOWN = new Set([...SUPPORTED_FUNCTIONS, ...UNSUPPORTED_FUNCTIONS]);

/** The function a value calls, if it is a one-key mapping named after a TOSCA function. */
const functionOf = (value: JsonValue): readonly [string, JsonValue] | undefined => {
  if (!isJsonObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && KNOWN.has(keys[0]!) ? [keys[0]!, value[keys[0]!] ?? null] : undefined;
};

/**
 * `value` with every function call replaced by its result, found in node `self` at `path`.
 * Errors: the first failing call, naming its path (unknown input without default, unknown node or
 * property, circular `get_property`, bad arguments, unsupported function).
 */
export const evaluate = (value: JsonValue, scope: Scope, self: string, path: Path): Result =>
  evaluateAt(value, scope, { path, self, resolving: [] });

const evaluateAt = (value: JsonValue, scope: Scope, at: At): Result => {
  const call = functionOf(value);
  if (call !== undefined) return callFunction(call[0], call[1], scope, { ...at, path: [...at.path, call[0]] });
  if (isJsonArray(value))
    return mapAll(value.map((item, i) => () => evaluateAt(item, scope, { ...at, path: [...at.path, i] })));
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    return E.map((values: ReadonlyArray<JsonValue>) =>
      objectFromEntries(keys.map((key, i) => [key, values[i] ?? null] as const)),
    )(mapAll(keys.map((key) => () => evaluateAt(value[key] ?? null, scope, { ...at, path: [...at.path, key] }))));
  }
  return E.right(value);
};

/** Runs the thunks in order, stopping at the first error. */
const mapAll = (thunks: ReadonlyArray<() => Result>): E.Either<ToscaIssue, ReadonlyArray<JsonValue>> => {
  const values: JsonValue[] = [];
  for (const thunk of thunks) {
    const result = thunk();
    if (E.isLeft(result)) return result;
    values.push(result.right);
  }
  return E.right(values);
};

const fail = (scope: Scope, at: At, message: string): Result =>
  E.left({ path: showPath(at.path, scope.root), message });

const callFunction = (name: string, argument: JsonValue, scope: Scope, at: At): Result => {
  switch (name) {
    case 'get_input':
      return getInput(argument, scope, at);
    case 'get_property':
      return getProperty(argument, scope, at);
    case 'concat':
      return concat(argument, scope, at);
    default:
      return fail(scope, at, `unsupported function ${name}: kreconcile evaluates ${SUPPORTED_FUNCTIONS.join(', ')}`);
  }
};

/** `get_input: name` (or `[name]`): the Application's value, else the declared default. */
const getInput = (argument: JsonValue, scope: Scope, at: At): Result => {
  const name =
    typeof argument === 'string'
      ? argument
      : isJsonArray(argument) && argument.length === 1 && typeof argument[0] === 'string'
        ? argument[0]
        : undefined;
  if (name === undefined) return fail(scope, at, 'get_input takes the name of an input');
  if (hasOwn(scope.given, name)) return E.right(scope.given[name] ?? null);
  const declaration = getOwn(scope.declared, name);
  if (declaration === undefined)
    return fail(
      scope,
      at,
      `get_input: no input "${name}" (declare it in topology_template.inputs and give it in spec.toscaInputs)`,
    );
  const fallback = isJsonObject(declaration) ? getOwn(declaration, 'default') : undefined;
  if (fallback === undefined)
    return fail(scope, at, `get_input: input "${name}" has no value in spec.toscaInputs and no default`);
  return E.right(fallback);
};

/** `get_property: [SELF | node, property, nested key or index…]`. */
const getProperty = (argument: JsonValue, scope: Scope, at: At): Result => {
  if (
    !isJsonArray(argument) ||
    argument.length < 2 ||
    typeof argument[0] !== 'string' ||
    typeof argument[1] !== 'string'
  ) {
    return fail(scope, at, 'get_property takes [SELF or a node template name, a property name, optional nested keys]');
  }
  const [entity, property, ...nested] = argument as [string, string, ...JsonValue[]];
  if (entity === 'HOST' || entity === 'SOURCE' || entity === 'TARGET')
    return fail(scope, at, `get_property: ${entity} is not supported (use SELF or a node template name)`);
  const node = entity === 'SELF' ? at.self : entity;
  const template = getOwn(scope.nodes, node);
  const properties = isJsonObject(template) ? getOwn(template, 'properties') : undefined;
  if (template === undefined) return fail(scope, at, `get_property: no node template "${node}"`);
  const value = isJsonObject(properties) ? getOwn(properties, property) : undefined;
  if (value === undefined)
    return fail(scope, at, `get_property: node template "${node}" has no property "${property}"`);
  const reference = `${node}.${property}`;
  if (at.resolving.includes(reference))
    return fail(scope, at, `get_property: circular reference ${[...at.resolving, reference].join(' → ')}`);
  const resolved = evaluateAt(value, scope, {
    path: ['topology_template', 'node_templates', node, 'properties', property],
    self: node,
    resolving: [...at.resolving, reference],
  });
  return E.chain((whole: JsonValue) => descend(whole, nested, scope, at))(resolved);
};

const descend = (value: JsonValue, steps: ReadonlyArray<JsonValue>, scope: Scope, at: At): Result => {
  let current: JsonValue | undefined = value;
  for (const step of steps) {
    if (typeof step === 'string' && isJsonObject(current)) current = getOwn(current, step);
    else if (typeof step === 'number' && isJsonArray(current)) current = current[step];
    else current = undefined;
    if (current === undefined)
      return fail(scope, at, `get_property: no ${JSON.stringify(step)} in the property's value`);
  }
  return E.right(current ?? null);
};

/** `concat: [a, b, …]`: the string made of the values (strings, numbers or booleans) in order. */
const concat = (argument: JsonValue, scope: Scope, at: At): Result => {
  if (!isJsonArray(argument)) return fail(scope, at, 'concat takes a list of values');
  const parts = mapAll(argument.map((part, i) => () => evaluateAt(part, scope, { ...at, path: [...at.path, i] })));
  if (E.isLeft(parts)) return parts;
  const bad = parts.right.findIndex((part) => part === null || typeof part === 'object');
  if (bad >= 0)
    return fail(
      scope,
      { ...at, path: [...at.path, bad] },
      'concat joins strings, numbers or booleans; this value is a list, a mapping or null',
    );
  return E.right(parts.right.map(String).join(''));
};
