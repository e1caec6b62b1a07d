/**
 * The expression port: readiness rules (`spec.readiness[].ready`, `.failed`) are CEL expressions
 * over the live object, `self`. Core decides which rule applies and what its verdict means; the
 * evaluator (a CEL library, which core may not import) lives behind this port (adapters/cel).
 */
import type * as E from 'fp-ts/lib/Either.js';
import type { JsonValue } from '../json/json.js';

/** Why an expression was refused, with where (1-based line and column, when the library says). */
export type ExpressionProblem = {
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
};

/** A checked expression, ready to be evaluated many times. */
export type CompiledExpression = {
  readonly source: string;
  /** The field paths of `self` the expression reads (`self.status.phase` → `['status', 'phase']`), to show their values. */
  readonly reads: ReadonlyArray<ReadonlyArray<string>>;
  /**
   * The expression's value for `self`: a boolean, or why there is none (a missing field, a type
   * mismatch, a non-boolean result). Bounded: compile refuses what could not finish quickly.
   */
  evaluate(self: JsonValue): E.Either<string, boolean>;
};

export type ExpressionEvaluator = {
  compile(source: string): E.Either<ExpressionProblem, CompiledExpression>;
};
