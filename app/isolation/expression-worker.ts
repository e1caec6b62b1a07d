/**
 * Entry of the worker threads that evaluate tenant expressions (worker-pool.ts, isolated-rules.ts):
 * many jobs, one at a time, each `{ source, object }` (the object as JSON text) in and one answer
 * out. Runs with a bounded heap and is terminated on its deadline, so a hostile rule can neither
 * exhaust the operator's memory nor stall its event loop. The evaluator's own bounds (cost, input
 * size) apply here too. Says `ready` once loaded: deadlines count from then.
 */
import * as E from 'fp-ts/lib/Either.js';
import { parentPort } from 'node:worker_threads';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import { parseJsonText } from '../../core/json/json.js';
import type { CompiledExpression } from '../../core/ports/expressions.js';
import { READY, type ExpressionAnswer } from './expression-job.js';

/** Compiled expressions this worker has seen, so a rule evaluated over many objects is parsed once. */
const serve = (): void => {
  const compiled = new Map<string, CompiledExpression>();
  const compile = (source: string): CompiledExpression | undefined => {
    const known = compiled.get(source);
    if (known !== undefined) return known;
    const fresh = celEvaluator.compile(source);
    if (E.isLeft(fresh)) return undefined;
    if (compiled.size >= 256) compiled.clear();
    compiled.set(source, fresh.right);
    return fresh.right;
  };
  const answer = (job: unknown): ExpressionAnswer => {
    if (typeof job !== 'object' || job === null || !('source' in job) || !('object' in job))
      return { _tag: 'Unevaluable', message: 'not a job' };
    const { source, object } = job;
    if (typeof source !== 'string' || typeof object !== 'string') return { _tag: 'Unevaluable', message: 'not a job' };
    const expression = compile(source);
    if (expression === undefined) return { _tag: 'Unevaluable', message: 'the expression does not compile' };
    const result = expression.evaluate(parseJsonText(object));
    return E.isRight(result) ? { _tag: 'Value', value: result.right } : result.left;
  };
  parentPort?.on('message', (job: unknown) => parentPort?.postMessage(answer(job)));
  parentPort?.postMessage(READY);
};

serve();
