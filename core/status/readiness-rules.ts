/**
 * Readiness rules (`spec.readiness`): for the children a rule matches, its CEL expressions over
 * the live object (`self`) replace kstatus. `ready` true: ready. `failed` true, or `timeout` passed
 * while not ready: failed, which the Application reports as `Stalled ReadinessFailed`. Every
 * verdict names the object, the expression and the values it read; a Secret's values are masked.
 *
 * Pure: expressions come compiled through the expression port, time as arguments.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getIn, type JsonValue } from '../json/json.js';
import type { Resource } from '../model/resource.js';
import type { CompiledExpression } from '../ports/expressions.js';

export type ReadinessRule = {
  /** Matches any version of the kind when absent. */
  readonly apiVersion?: string;
  readonly kind: string;
  /** Matches every object of the kind when absent. */
  readonly name?: string;
  readonly ready: CompiledExpression;
  readonly failed?: CompiledExpression;
  /** How long the object may stay not ready (ms) before it counts as failed. */
  readonly timeoutMs?: number;
};

export type RuleVerdict =
  | { readonly state: 'ready' }
  | { readonly state: 'waiting'; readonly reason: string }
  | { readonly state: 'failed'; readonly reason: string };

/** The first rule for `object`, in the order written: that rule alone decides its readiness. */
export const ruleFor = (rules: ReadonlyArray<ReadinessRule>, object: Resource): ReadinessRule | undefined =>
  rules.find(
    (rule) =>
      rule.kind === object.kind &&
      (rule.apiVersion === undefined || rule.apiVersion === object.apiVersion) &&
      (rule.name === undefined || rule.name === object.metadata.name),
  );

const isSecret = (object: Resource): boolean => object.apiVersion === 'v1' && object.kind === 'Secret';

const shown = (value: JsonValue | undefined): string => (value === undefined ? 'absent' : JSON.stringify(value));

/** `status.phase="Failed", status.message="disk full"`: the values the expression read, masked in a Secret outside metadata. */
export const valuesRead = (expression: CompiledExpression, object: Resource): string =>
  expression.reads
    .map((path) => {
      const masked = isSecret(object) && path[0] !== 'metadata';
      return `${path.join('.')}=${masked ? '(masked)' : shown(getIn(object, path))}`;
    })
    .join(', ');

const describe = (object: Resource): string =>
  `${object.kind} ${object.metadata.namespace === undefined ? '' : `${object.metadata.namespace}/`}${object.metadata.name}`;

const about = (object: Resource, which: 'ready' | 'failed', expression: CompiledExpression): string => {
  const values = valuesRead(expression, object);
  return `${describe(object)}: ${which} rule \`${expression.source}\`${values === '' ? '' : ` (${values})`}`;
};

/**
 * The verdict of `rule` on the live `object`. `waitingSinceMs` is when the object was first seen
 * not ready under this rule (the caller keeps it); with `nowMs` it decides the timeout.
 */
export const verdictOf = (
  rule: ReadinessRule,
  object: Resource,
  time: { readonly nowMs: number; readonly waitingSinceMs?: number },
): RuleVerdict => {
  if (object.metadata.deletionTimestamp !== undefined) return { state: 'waiting', reason: 'being deleted' };
  if (rule.failed !== undefined) {
    const failed = rule.failed.evaluate(object);
    // A failed rule that cannot be evaluated (a field not there yet) is not a failure.
    if (E.isRight(failed) && failed.right)
      return { state: 'failed', reason: `${about(object, 'failed', rule.failed)} is true` };
  }
  const ready = rule.ready.evaluate(object);
  if (E.isRight(ready) && ready.right) return { state: 'ready' };
  const why = E.isLeft(ready)
    ? `${about(object, 'ready', rule.ready)} cannot be evaluated yet: ${ready.left}`
    : `${about(object, 'ready', rule.ready)} is false`;
  if (
    rule.timeoutMs !== undefined &&
    time.waitingSinceMs !== undefined &&
    time.nowMs - time.waitingSinceMs >= rule.timeoutMs
  )
    return { state: 'failed', reason: `${why} after ${Math.round(rule.timeoutMs / 1_000)}s, the rule's timeout` };
  return { state: 'waiting', reason: why };
};
