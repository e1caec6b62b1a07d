/**
 * The expression port on @marcbachmann/cel-js: readiness rules in CEL over `self`, the live object.
 *
 * Bounded evaluation (a rule is tenant input, evaluated on every status change; docs/decisions/0025):
 * the library's parse limits bound the expression's size; comprehensions (`all`, `exists`,
 * `exists_one`, `map`, `filter`) may not nest; `matches` is refused because JavaScript regular
 * expressions can backtrack exponentially (Kubernetes' CEL uses linear-time RE2). Every expression
 * has a cost estimated from its syntax tree (cost.ts): over `STATIC_COST_LIMIT` for the largest
 * object (`MAX_INPUT_BYTES`) it is refused at compile; an evaluation whose cost for the object it
 * is given is over `RUNTIME_COST_LIMIT`, or whose object is larger than `MAX_INPUT_BYTES`, is
 * refused before it runs. The runtime evaluates in a worker thread besides (app/isolation), with a
 * time and a memory bound.
 */
import { Environment } from '@marcbachmann/cel-js';
import * as E from 'fp-ts/lib/Either.js';
import type { JsonValue } from '../../core/json/json.js';
import type {
  CompiledExpression,
  EvaluationFailure,
  ExpressionEvaluator,
  ExpressionProblem,
} from '../../core/ports/expressions.js';
import { actualSizes, estimateCost, staticSizes } from './cost.js';
import { defined } from '../../core/json/defined.js';

/** Longest expression accepted (the CRD declares the same `maxLength`). */
export const MAX_EXPRESSION_LENGTH = 1_024;

/** Largest object (serialized as JSON) an expression is evaluated over: 1 MiB, a ConfigMap's own limit. */
export const MAX_INPUT_BYTES = 1_048_576;

/** Highest estimated cost of an expression over the largest object: the API server's limit for a validation rule. */
export const STATIC_COST_LIMIT = 10_000_000;

/** Highest cost of one evaluation over the object it is given: the API server's limit per call. */
export const RUNTIME_COST_LIMIT = 1_000_000;

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** The library's semantics we use (the conformance test runs with the same): literals may mix types, as JSON does. */
export const CEL_SEMANTICS = { homogeneousAggregateLiterals: false } as const;

// One environment for every rule: `self` is the only variable.
const environment = new Environment({
  ...CEL_SEMANTICS,
  limits: { maxAstNodes: 256, maxDepth: 32, maxListElements: 64, maxMapEntries: 64, maxCallArguments: 8 },
}).registerVariable('self', 'dyn');

type Node = { readonly op: string; readonly args: unknown; readonly pos?: number };

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && 'op' in value && typeof value.op === 'string';

const children = (value: unknown): ReadonlyArray<unknown> =>
  Array.isArray(value) ? value : isNode(value) ? [value.args] : [];

/** The first node of a comprehension inside another, or a call of `matches`: what evaluation could not bound. */
const unbounded = (node: unknown, insideComprehension: boolean): { message: string; pos?: number } | undefined => {
  if (isNode(node) && (node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args)) {
    const name: unknown = node.args[0];
    if (name === 'matches')
      return {
        message: 'matches() is not offered: use startsWith, endsWith or contains',
        ...defined({ pos: node.pos }),
      };
    if (node.op === 'rcall' && typeof name === 'string' && COMPREHENSIONS.has(name)) {
      if (insideComprehension)
        return {
          message: `${name}() inside another comprehension: nested comprehensions are not bounded, use one`,
          ...defined({ pos: node.pos }),
        };
      return node.args
        .slice(1)
        .reduce<{ message: string; pos?: number } | undefined>(
          (found, arg, index) => found ?? unbounded(arg, index > 0),
          undefined,
        );
    }
  }
  for (const child of children(node)) {
    const found = unbounded(child, insideComprehension);
    if (found !== undefined) return found;
  }
  return undefined;
};

/** `self.a.b` as `['a', 'b']`, or undefined when `node` is not a field chain rooted at `self`. */
const selfPath = (node: unknown): ReadonlyArray<string> | undefined => {
  if (!isNode(node)) return undefined;
  if (node.op === 'id') return node.args === 'self' ? [] : undefined;
  if ((node.op === '.' || node.op === '.?') && Array.isArray(node.args) && typeof node.args[1] === 'string') {
    const parent = selfPath(node.args[0]);
    return parent === undefined ? undefined : [...parent, node.args[1]];
  }
  return undefined;
};

/** The longest field chains of `self` in the expression (their prefixes are implied). */
const readsOf = (root: unknown): ReadonlyArray<ReadonlyArray<string>> => {
  const found = new Map<string, ReadonlyArray<string>>();
  const visit = (node: unknown): void => {
    const path = selfPath(node);
    if (path !== undefined) {
      if (path.length > 0) found.set(JSON.stringify(path), path);
      return;
    }
    for (const child of children(node)) visit(child);
  };
  visit(root);
  return [...found.values()];
};

/** Line and column (1-based) of a 0-based offset. */
const position = (source: string, offset: number): { line: number; column: number } => {
  const before = source.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
};

/** The library renders `>    1 | source` and a caret line under it: read the position back from them. */
const problemOf = (source: string, error: unknown): ExpressionProblem => {
  const text = error instanceof Error ? error.message : String(error);
  const [message = text, ...rest] = text.split('\n');
  const at = rest.findIndex((line) => /^>\s+\d+ \| /.test(line));
  const sourceLine = rest[at];
  const caretLine = rest[at + 1];
  if (at < 0 || sourceLine === undefined || caretLine === undefined) return { message };
  const line = Number(/^>\s+(\d+) \| /.exec(sourceLine)?.[1]);
  const column = caretLine.indexOf('^') - (sourceLine.indexOf('| ') + 2) + 1;
  return column > 0 && line <= source.split('\n').length ? { message, line, column } : { message };
};

/** JSON as CEL sees it in Kubernetes: whole numbers are `int`, others `double`. */
const toCel = (value: JsonValue): unknown => {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  return value;
};

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** The size of `self` as the worker receives it (JSON), or the failure when it is over `MAX_INPUT_BYTES`. */
export const inputOverBound = (serializedBytes: number): EvaluationFailure | undefined =>
  serializedBytes > MAX_INPUT_BYTES
    ? {
        _tag: 'OverBound',
        bound: 'input size',
        message: `the object is ${serializedBytes} bytes, over the bound of ${MAX_INPUT_BYTES} bytes an expression may read`,
      }
    : undefined;

/** Evaluates `program` over `self` within the runtime cost limit (checked first, from the object's sizes). */
const evaluateBounded = (
  program: ReturnType<typeof environment.parse>,
  self: JsonValue,
): E.Either<EvaluationFailure, boolean> => {
  const cost = estimateCost(program.ast, actualSizes(self)).cost;
  if (cost > RUNTIME_COST_LIMIT)
    return E.left({
      _tag: 'OverBound',
      bound: 'cost',
      message: `its cost over this object is ${cost}, over the limit of ${RUNTIME_COST_LIMIT} per evaluation`,
    });
  let result: unknown;
  try {
    result = program({ self: toCel(self) });
  } catch (error) {
    return E.left({ _tag: 'Unevaluable', message: firstLine(error) });
  }
  return typeof result === 'boolean'
    ? E.right(result)
    : E.left({ _tag: 'Unevaluable', message: `the result is not a boolean but ${typeof result}` });
};

export const celEvaluator: ExpressionEvaluator = {
  compile: (source) => {
    if (source.length > MAX_EXPRESSION_LENGTH)
      return E.left({ message: `longer than ${MAX_EXPRESSION_LENGTH} characters (${source.length})` });
    let program: ReturnType<typeof environment.parse>;
    try {
      program = environment.parse(source);
    } catch (error) {
      return E.left(problemOf(source, error));
    }
    const refused = unbounded(program.ast, false);
    if (refused !== undefined)
      return E.left({ message: refused.message, ...(refused.pos === undefined ? {} : position(source, refused.pos)) });
    const estimatedCost = estimateCost(program.ast, staticSizes(MAX_INPUT_BYTES)).cost;
    if (estimatedCost > STATIC_COST_LIMIT)
      return E.left({
        message: `estimated cost ${estimatedCost} exceeds the limit of ${STATIC_COST_LIMIT} (for an object of up to ${MAX_INPUT_BYTES} bytes): iterate over fewer elements, or do less per element (docs/application.md, readiness rules' bounds)`,
      });
    const compiled: CompiledExpression = {
      source,
      reads: readsOf(program.ast),
      estimatedCost,
      evaluate: (self) => evaluateBounded(program, self),
    };
    return E.right(compiled);
  },
};
