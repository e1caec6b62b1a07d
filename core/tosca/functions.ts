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

/**
 * How much work one translation may do. `get_property` re-evaluates what it refers to, so a
 * property that refers twice to the next one, nested 20 deep, is a few lines that expand a
 * million-fold (issue 19): the bounds stop it by counting, not by a clock, so the verdict is the
 * same on every machine.
 */
export type ToscaBounds = {
  /** Values visited and produced (each function call, list item, mapping entry and leaf counts one). */
  readonly maxSteps: number;
  /** Characters of the strings in the result (`concat` and shared `get_input` values count each time used). */
  readonly maxOutputChars: number;
};

/** Far above what a real template needs (a few hundred steps per Kubernetes object), far below a second of work. */
export const DEFAULT_TOSCA_BOUNDS: ToscaBounds = { maxSteps: 100_000, maxOutputChars: 8 * 1024 * 1024 };

/** The work done so far by one translation: owned by the call that translates (a counter, never shared). */
export type Budget = { readonly bounds: ToscaBounds; steps: number; chars: number };

export const budgetOf = (bounds: ToscaBounds = DEFAULT_TOSCA_BOUNDS): Budget => ({ bounds, steps: 0, chars: 0 });

/** The start of every message of a bound exceeded: how callers tell it from a mistake in the template. */
export const BOUND_EXCEEDED = 'translation exceeds its bound';

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
  /** The work this translation may still do. */
  readonly budget: Budget;
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
  const exceeded = spend(scope, at, 1, typeof value === 'string' ? value.length : 0);
  if (exceeded !== undefined) return exceeded;
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

/** Counts `steps` and `chars` against the budget; the failure naming the bound once one is exceeded. */
const spend = (scope: Scope, at: At, steps: number, chars: number): Result | undefined => {
  const { budget } = scope;
  budget.steps += steps;
  budget.chars += chars;
  if (budget.steps > budget.bounds.maxSteps)
    return fail(
      scope,
      at,
      `${BOUND_EXCEEDED} of ${budget.bounds.maxSteps} evaluation steps (maxSteps): get_property re-evaluates what it refers to, so properties referring to each other more than once grow exponentially; refer to each value once`,
    );
  if (budget.chars > budget.bounds.maxOutputChars)
    return fail(
      scope,
      at,
      `${BOUND_EXCEEDED} of ${budget.bounds.maxOutputChars} output characters (maxOutputChars): the template's functions produce more text than a manifest holds; repeat large values less`,
    );
  return undefined;
};

/** Counts a value used whole (a `get_input` or `get_property` result placed again): its nodes and characters. */
const spendWhole = (scope: Scope, at: At, value: JsonValue): Result | undefined => {
  let steps = 0;
  let chars = 0;
  const pending: JsonValue[] = [value];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    steps++;
    if (typeof current === 'string') chars += current.length;
    else if (isJsonArray(current)) pending.push(...current);
    else if (isJsonObject(current)) for (const key of Object.keys(current)) pending.push(current[key] ?? null);
    // Checked as it goes: a huge shared input is not walked to its end before the verdict.
    if (steps % 1024 === 0 && scope.budget.steps + steps > scope.budget.bounds.maxSteps) break;
  }
  return spend(scope, at, steps, chars);
};

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
  if (hasOwn(scope.given, name)) return used(scope, at, scope.given[name] ?? null);
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
  return used(scope, at, fallback);
};

/** `value` placed in the result, counted against the budget (an input may be used many times). */
const used = (scope: Scope, at: At, value: JsonValue): Result => spendWhole(scope, at, value) ?? E.right(value);

/** `get_property: [SELF | node, property, nested key or index…]`. */
const getProperty = (argument: JsonValue, scope: Scope, at: At): Result => {
  const [entity, property, ...nested] = isJsonArray(argument) ? argument : [];
  if (typeof entity !== 'string' || typeof property !== 'string')
    return fail(scope, at, 'get_property takes [SELF or a node template name, a property name, optional nested keys]');
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
  const joined = parts.right.map(String).join('');
  return spend(scope, at, 1, joined.length) ?? E.right(joined);
};
