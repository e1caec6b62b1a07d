/**
 * The expression port: readiness rules (`spec.readiness[].ready`, `.failed`) are CEL expressions
 * over the live object, `self`. Core decides which rule applies and what its verdict means; the
 * evaluator (a CEL library, which core may not import) lives behind this port (adapters/cel), and
 * the runtime may evaluate in a worker thread and hand core the answers (app/isolation).
 * An expression is tenant input: its cost is bounded when it is compiled and when it is evaluated
 * (docs/decisions/0025-isolated-tenant-expressions.md).
 */
import type * as E from 'fp-ts/lib/Either.js';
import type { JsonValue } from '../json/json.js';

/** Why an expression was refused, with where (1-based line and column, when the library says). */
export type ExpressionProblem = {
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
};

/**
 * Why an evaluation gave no boolean. `Unevaluable`: the object is not there yet for the expression
 * (a missing field, a type mismatch, a non-boolean result): a ready rule waits. `OverBound`: the
 * evaluation was stopped at one of its bounds (cost, time, memory, input size): a rule over its
 * bounds fails, whatever the object becomes, until the object or the rule changes.
 * `message` is the library's text: it may quote values of the object (core never shows it for a Secret).
 */
export type EvaluationFailure =
  | { readonly _tag: 'Unevaluable'; readonly message: string }
  | { readonly _tag: 'OverBound'; readonly bound: string; readonly message: string };

/** A checked expression, ready to be evaluated many times. */
export type CompiledExpression = {
  readonly source: string;
  /**
   * The field paths of `self` the expression reads (`self.status.phase` → `['status', 'phase']`), to show their values.
   */
  readonly reads: ReadonlyArray<ReadonlyArray<string>>;
  /** The expression's cost estimated for the largest object it may be given (compile refused it over the limit). */
  readonly estimatedCost?: number;
  /** The expression's value for `self`: a boolean, or why there is none. */
  evaluate(self: JsonValue): E.Either<EvaluationFailure, boolean>;
};

export type ExpressionEvaluator = {
  compile(source: string): E.Either<ExpressionProblem, CompiledExpression>;
};
