/**
 * Readiness rules (`spec.readiness`): for the children a rule matches, its CEL expressions over
 * the live object (`self`) replace kstatus. `ready` true: ready. `failed` true, or `timeout` passed
 * while not ready: failed, which the Application reports as `Stalled ReadinessFailed`; so is an
 * evaluation stopped at one of its bounds (cost, time, memory, input size). Every verdict names
 * the object, the expression and the values it read, each value and the whole reason bounded in
 * size. A Secret gives nothing away (issue 36 item 9): its values are masked, the evaluator's error
 * text (which may quote a value) is withheld, and every text the Secret holds is scrubbed from the
 * reason in every encoding (core/sensitive/scrub.ts).
 *
 * Pure: expressions come compiled through the expression port, time as arguments.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getIn, type JsonValue } from '../json/json.js';
import type { ReadinessRuleSpec, ReadinessWait } from '../model/application.js';
import type { Resource } from '../model/resource.js';
import type {
  CompiledExpression,
  EvaluationFailure,
  ExpressionEvaluator,
  ExpressionProblem,
} from '../ports/expressions.js';
import { scrubTexts, sensitiveTexts } from '../sensitive/scrub.js';
import { capMessage } from './message-cap.js';
import { defined } from '../json/defined.js';

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

/** Whether `object`'s values are never shown: a Secret (its annotations hold its values too). */
const isSensitive = (object: Resource): boolean => object.apiVersion === 'v1' && object.kind === 'Secret';

/** Longest value shown in a reason, in bytes; longer ones are cut (the whole reason is bounded too). */
const MAX_VALUE_BYTES = 256;

/** Longest reason for one object, in bytes: a few of them fit in a condition's message. */
const MAX_REASON_BYTES = 2_048;

const shown = (value: JsonValue | undefined): string =>
  value === undefined ? 'absent' : capMessage(JSON.stringify(value), MAX_VALUE_BYTES);

/** The fields of a Secret a reason may show: its identity, printed with every reason anyway. */
const IDENTITY_PATHS: ReadonlySet<string> = new Set(['metadata.name', 'metadata.namespace', 'kind', 'apiVersion']);

/**
 * `status.phase="Failed", status.message="disk full"`: the values the expression read; in a Secret, all but its
 * identity masked.
 */
export const valuesRead = (expression: CompiledExpression, object: Resource): string =>
  expression.reads
    .map((path) => {
      const field = path.join('.');
      return `${field}=${isSensitive(object) && !IDENTITY_PATHS.has(field) ? '(masked)' : shown(getIn(object, path))}`;
    })
    .join(', ');

/** Why an evaluation gave no boolean, as shown: never the library's text for a Secret (it may quote a value). */
const failureText = (object: Resource, failure: EvaluationFailure): string => {
  if (failure._tag === 'OverBound') return `over its ${failure.bound} bound: ${failure.message}`;
  return isSensitive(object)
    ? 'cannot be evaluated yet (the evaluation error is not shown: the object is a Secret)'
    : `cannot be evaluated yet: ${capMessage(failure.message, MAX_VALUE_BYTES)}`;
};

/** The verdict with its reason bounded, and for a Secret scrubbed of every text the Secret holds. */
const finished = (object: Resource, verdict: RuleVerdict): RuleVerdict => {
  if (verdict.state === 'ready') return verdict;
  const scrubbed = isSensitive(object) ? scrubTexts(verdict.reason, sensitiveTexts(object)) : verdict.reason;
  return { ...verdict, reason: capMessage(scrubbed, MAX_REASON_BYTES) };
};

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
): RuleVerdict => finished(object, rawVerdictOf(rule, object, time));

const rawVerdictOf = (
  rule: ReadinessRule,
  object: Resource,
  time: { readonly nowMs: number; readonly waitingSinceMs?: number },
): RuleVerdict => {
  if (object.metadata.deletionTimestamp !== undefined) return { state: 'waiting', reason: 'being deleted' };
  if (rule.failed !== undefined) {
    const failed = rule.failed.evaluate(object);
    if (E.isRight(failed) && failed.right)
      return { state: 'failed', reason: `${about(object, 'failed', rule.failed)} is true` };
    // A failed rule that cannot be evaluated (a field not there yet) is not a failure; one over its bounds is.
    if (E.isLeft(failed) && failed.left._tag === 'OverBound')
      return {
        state: 'failed',
        reason: `${about(object, 'failed', rule.failed)} is ${failureText(object, failed.left)}`,
      };
  }
  const ready = rule.ready.evaluate(object);
  if (E.isRight(ready) && ready.right) return { state: 'ready' };
  if (E.isLeft(ready) && ready.left._tag === 'OverBound')
    return { state: 'failed', reason: `${about(object, 'ready', rule.ready)} is ${failureText(object, ready.left)}` };
  const why = E.isLeft(ready)
    ? `${about(object, 'ready', rule.ready)} ${failureText(object, ready.left)}`
    : `${about(object, 'ready', rule.ready)} is false`;
  if (
    rule.timeoutMs !== undefined &&
    time.waitingSinceMs !== undefined &&
    time.nowMs - time.waitingSinceMs >= rule.timeoutMs
  )
    return { state: 'failed', reason: `${why} after ${Math.round(rule.timeoutMs / 1_000)}s, the rule's timeout` };
  return { state: 'waiting', reason: why };
};

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration the spec's codec accepted (`90s`, `1h30m`, `250ms`). */
export const durationMs = (text: string): number =>
  [...text.matchAll(/([0-9]+)(ms|s|m|h)/g)].reduce(
    (sum, [, count, unit]) => sum + Number(count) * (UNIT_MS[unit ?? 's'] ?? 0),
    0,
  );

/** Where a refused expression is: `spec.readiness[2].ready` and, when the library says, line and column. */
const problemAt = (index: number, field: 'ready' | 'failed', problem: ExpressionProblem): string =>
  `spec.readiness[${index}].${field}${problem.line === undefined ? '' : ` line ${problem.line}`}${
    problem.column === undefined ? '' : ` column ${problem.column}`
  }: ${problem.message}`;

const compileOne = (
  evaluator: ExpressionEvaluator,
  spec: ReadinessRuleSpec,
  index: number,
): E.Either<string, ReadinessRule> => {
  const ready = evaluator.compile(spec.ready);
  if (E.isLeft(ready)) return E.left(problemAt(index, 'ready', ready.left));
  const failed = spec.failed === undefined ? undefined : evaluator.compile(spec.failed);
  if (failed !== undefined && E.isLeft(failed)) return E.left(problemAt(index, 'failed', failed.left));
  return E.right({
    ...defined({ apiVersion: spec.apiVersion }),
    kind: spec.kind,
    ...defined({ name: spec.name }),
    ready: ready.right,
    ...(failed === undefined ? {} : { failed: failed.right }),
    ...(spec.timeout === undefined ? {} : { timeoutMs: durationMs(spec.timeout) }),
  });
};

/**
 * `spec.readiness` compiled through the expression port, or the first refused expression with
 * its position (what `validate` prints and the Application's `Stalled InvalidSpec` says).
 */
export const compileReadinessRules = (
  evaluator: ExpressionEvaluator,
  specs: ReadonlyArray<ReadinessRuleSpec>,
): E.Either<string, ReadonlyArray<ReadinessRule>> =>
  specs.reduce<E.Either<string, ReadonlyArray<ReadinessRule>>>(
    (compiled, spec, index) =>
      E.isLeft(compiled)
        ? compiled
        : E.map((rule: ReadinessRule) => [...compiled.right, rule])(compileOne(evaluator, spec, index)),
    E.right([]),
  );

/** What the children's readiness holds up: waits (with reasons), failures, and the timed waits to keep in status. */
export type ChildrenReadiness = {
  readonly notReady: ReadonlyArray<string>;
  readonly failed: ReadonlyArray<string>;
  readonly readinessWaits: ReadonlyArray<ReadinessWait>;
};

const sameObject = (wait: ReadinessWait, object: Resource): boolean =>
  wait.apiVersion === object.apiVersion &&
  wait.kind === object.kind &&
  wait.name === object.metadata.name &&
  (wait.namespace ?? '') === (object.metadata.namespace ?? '');

const waitFor = (object: Resource, since: string): ReadinessWait => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  name: object.metadata.name,
  ...defined({ namespace: object.metadata.namespace }),
  since,
});

/** A parsed RFC 3339 time, or undefined for text that is none (a tenant may have written the status). */
const timeMs = (text: string | undefined): number | undefined => {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
};

/**
 * The verdict of the rule matching `object` (undefined when none matches), with the timed wait to
 * keep: it starts at `now` the first time the object is seen not ready, and keeps its start after.
 */
export const ruleVerdictOf = (
  rules: ReadonlyArray<ReadinessRule>,
  object: Resource,
  time: { readonly now: string; readonly previous: ReadonlyArray<ReadinessWait> },
): { readonly verdict: RuleVerdict; readonly wait?: ReadinessWait } | undefined => {
  const rule = ruleFor(rules, object);
  if (rule === undefined) return undefined;
  const kept = time.previous.find((wait) => sameObject(wait, object));
  const since = kept !== undefined && timeMs(kept.since) !== undefined ? kept.since : time.now;
  const nowMs = timeMs(time.now) ?? 0;
  const verdict = verdictOf(rule, object, { nowMs, waitingSinceMs: timeMs(since) ?? nowMs });
  return verdict.state === 'ready' || rule.timeoutMs === undefined
    ? { verdict }
    : { verdict, wait: waitFor(object, since) };
};

/**
 * Readiness of the live children under `rules`, `kstatus` deciding for those no rule matches
 * (`undefined` when no rule matches: readiness by existence).
 */
export const childrenReadiness = (
  rules: ReadonlyArray<ReadinessRule>,
  children: ReadonlyArray<Resource>,
  time: { readonly now: string; readonly previous: ReadonlyArray<ReadinessWait> },
  kstatus: ((object: Resource) => string | undefined) | undefined,
): ChildrenReadiness => {
  const notReady: Array<string> = [];
  const failed: Array<string> = [];
  const waits: Array<ReadinessWait> = [];
  // An indexed loop: an array iterator's results are allocated until the loop is optimized (every child of a plan).
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child === undefined) continue;
    const ruled = rules.length === 0 ? undefined : ruleVerdictOf(rules, child, time);
    if (ruled === undefined) {
      const reason = kstatus?.(child);
      if (reason !== undefined) notReady.push(reason);
      continue;
    }
    if (ruled.wait !== undefined) waits.push(ruled.wait);
    if (ruled.verdict.state === 'waiting') notReady.push(ruled.verdict.reason);
    if (ruled.verdict.state === 'failed') failed.push(ruled.verdict.reason);
  }
  return { notReady, failed, readinessWaits: waits };
};
