/**
 * Readiness rules evaluated where they cannot hurt the operator (issue 37 item 1;
 * docs/decisions/0025-isolated-tenant-expressions.md): before a plan, every rule expression is
 * evaluated over the live objects it matches in a bounded pool of worker threads, each evaluation
 * within a time, a memory, an input-size and a cost bound; the plan (pure, synchronous) is then
 * handed an evaluator that answers from these results. Core decides what they mean: an evaluation
 * over a bound makes its Application `Stalled ReadinessFailed`, naming the rule and the bound.
 *
 * An answer is kept per expression and object version (uid, resourceVersion), so a rule over its
 * bounds costs its bound once per change of the object, not once per reconcile; the evaluations of
 * one Application run one after the other, and stop at the first over its bounds, so a hostile
 * Application holds at most one worker, and the pool's turns let every other one through.
 */
import * as E from 'fp-ts/lib/Either.js';
import { celEvaluator, inputOverBound } from '../../adapters/cel/cel-evaluator.js';
import { getIn, type JsonValue, type Resource } from '../../core/internal.js';
import { compileReadinessRules, ruleFor } from '../../core/status/readiness-rules.js';
import type { ReadinessRuleSpec } from '../../core/model/application.js';
import type { CompiledExpression, EvaluationFailure, ExpressionEvaluator } from '../../core/ports/expressions.js';
import { answerOf, READY, type ExpressionAnswer } from './expression-job.js';
import { workerEntry, type IsolationLimits, type Outcome } from './isolated-worker.js';
import { WorkerPool } from './worker-pool.js';

export type RuleIsolationOptions = {
  /** Worker threads at most (default 2). */
  readonly workers?: number;
  /** Wall-clock time of one evaluation, in ms (default 1 000). */
  readonly timeoutMs?: number;
  /** Heap of one worker, in MiB (default 64). */
  readonly maxHeapMb?: number;
  /** Answers kept (default 4 096). */
  readonly answersKept?: number;
};

type Answer = E.Either<EvaluationFailure, boolean>;

/** The identity of an object's version: answers are kept per version. */
const versionKey = (object: JsonValue): string =>
  ['apiVersion', 'kind', 'metadata.namespace', 'metadata.name', 'metadata.uid', 'metadata.resourceVersion']
    .map((path) => {
      const value = getIn(object, path.split('.'));
      return typeof value === 'string' ? value : '';
    })
    .join('|');

const NOT_EVALUATED: Answer = E.left({ _tag: 'Unevaluable', message: 'not evaluated yet' });

const SKIPPED: Answer = E.left({
  _tag: 'Unevaluable',
  message: 'not evaluated: another rule of this Application is over its bounds',
});

const ENTRY = workerEntry('./expression-worker', import.meta.url);

export class IsolatedRules {
  private readonly pool: WorkerPool<ExpressionAnswer>;
  private readonly limits: IsolationLimits;
  /** Answers per expression and object version, oldest first (a Map keeps insertion order). */
  private readonly kept = new Map<string, Answer>();
  private readonly answersKept: number;
  /** Rules compiled per `spec.readiness` list (the decoded Application's own array, kept while it is). */
  private readonly compiled = new WeakMap<ReadonlyArray<ReadinessRuleSpec>, ReturnType<typeof compileReadinessRules>>();

  constructor(options: RuleIsolationOptions = {}) {
    this.limits = { timeoutMs: options.timeoutMs ?? 1_000, maxHeapMb: options.maxHeapMb ?? 64 };
    this.answersKept = options.answersKept ?? 4_096;
    this.pool = new WorkerPool({
      entry: ENTRY,
      limits: this.limits,
      size: options.workers ?? 2,
      decode: answerOf,
      ready: READY,
    });
  }

  /**
   * The evaluator for a plan of `owner` (an Application's key) over `objects`: every expression of
   * `specs` evaluated, isolated, over the objects its rule matches. Rules that do not compile are
   * left to the plan, which stalls on them (InvalidSpec).
   */
  async evaluatorFor(
    owner: string,
    specs: ReadonlyArray<ReadinessRuleSpec>,
    objects: ReadonlyArray<Resource>,
  ): Promise<ExpressionEvaluator> {
    const answers = new Map<string, Answer>();
    const rules = this.compiled.get(specs) ?? compileReadinessRules(celEvaluator, specs);
    this.compiled.set(specs, rules);
    if (E.isRight(rules)) {
      let overBound = false;
      for (const object of objects) {
        const rule = object.metadata.deletionTimestamp === undefined ? ruleFor(rules.right, object) : undefined;
        for (const expression of rule === undefined ? [] : [rule.failed, rule.ready]) {
          if (expression === undefined) continue;
          const key = `${expression.source}\u0000${versionKey(object)}`;
          const found: Answer = overBound ? SKIPPED : await this.answer(owner, expression.source, object, key);
          overBound ||= E.isLeft(found) && found.left._tag === 'OverBound';
          answers.set(key, found);
        }
      }
    }
    return answering(
      answers,
      E.isRight(rules)
        ? rules.right.flatMap((rule) => [rule.ready, ...(rule.failed === undefined ? [] : [rule.failed])])
        : [],
    );
  }

  /** Stops the workers. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private async answer(owner: string, source: string, object: Resource, key: string): Promise<Answer> {
    const known = this.kept.get(key);
    if (known !== undefined) return known;
    const json = JSON.stringify(object);
    const tooLarge = inputOverBound(json.length);
    const answer =
      tooLarge !== undefined
        ? E.left(tooLarge)
        : this.fromOutcome(await this.pool.run(owner, { source, object: json }));
    // A crashed worker says nothing about the rule: asked again next time. Objects without a version are not kept.
    const crashed =
      E.isLeft(answer) && answer.left._tag === 'Unevaluable' && answer.left.message.startsWith('the evaluator stopped');
    if (!crashed && object.metadata.resourceVersion !== undefined) this.keep(key, answer);
    return answer;
  }

  private keep(key: string, answer: Answer): void {
    this.kept.set(key, answer);
    if (this.kept.size > this.answersKept) {
      const oldest = this.kept.keys().next();
      if (oldest.done !== true) this.kept.delete(oldest.value);
    }
  }

  private fromOutcome(outcome: Outcome<ExpressionAnswer>): Answer {
    switch (outcome._tag) {
      case 'Answered':
        return outcome.answer._tag === 'Value' ? E.right(outcome.answer.value) : E.left(outcome.answer);
      case 'OverTime':
        return E.left({
          _tag: 'OverBound',
          bound: 'time',
          message: `it ran longer than ${this.limits.timeoutMs} ms and was stopped`,
        });
      case 'OverMemory':
        return E.left({
          _tag: 'OverBound',
          bound: 'memory',
          message: `it needed more than ${this.limits.maxHeapMb} MiB and was stopped`,
        });
      case 'Crashed':
        return E.left({ _tag: 'Unevaluable', message: `the evaluator stopped (${outcome.why})` });
    }
  }
}

/**
 * An evaluator that compiles as `celEvaluator` does (the expressions compiled already are not
 * parsed again) and answers from `answers` (not evaluated: not yet).
 */
const answering = (
  answers: ReadonlyMap<string, Answer>,
  known: ReadonlyArray<CompiledExpression>,
): ExpressionEvaluator => ({
  compile: (source) => {
    const compiled = known.find((expression) => expression.source === source);
    return E.map((expression: CompiledExpression): CompiledExpression => ({
      ...expression,
      evaluate: (self) => answers.get(`${source}\u0000${versionKey(self)}`) ?? NOT_EVALUATED,
    }))(compiled === undefined ? celEvaluator.compile(source) : E.right(compiled));
  },
});
