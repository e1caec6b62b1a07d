/** What the main thread and an expression worker (expression-worker.ts) say to each other. */
import type { EvaluationFailure } from '../../core/ports/expressions.js';

/** An evaluation's answer: a boolean, or why there is none (as the evaluator says). */
export type ExpressionAnswer = { readonly _tag: 'Value'; readonly value: boolean } | EvaluationFailure;

/** What a worker says once loaded. */
export const READY = 'ready';

/** The worker's message as an answer (anything else is a worker that misbehaved: no verdict). */
export const answerOf = (message: unknown): ExpressionAnswer => {
  if (typeof message !== 'object' || message === null || !('_tag' in message))
    return { _tag: 'Unevaluable', message: 'the evaluator answered nothing usable' };
  if (message._tag === 'Value' && 'value' in message && typeof message.value === 'boolean')
    return { _tag: 'Value', value: message.value };
  const text = 'message' in message && typeof message.message === 'string' ? message.message : '';
  if (message._tag === 'OverBound' && 'bound' in message && typeof message.bound === 'string')
    return { _tag: 'OverBound', bound: message.bound, message: text };
  return { _tag: 'Unevaluable', message: text };
};
