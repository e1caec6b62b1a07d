/** Readiness rules decide a matched child's readiness by its CEL expressions, naming object, expression and values. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import type { CompiledExpression } from '../../core/ports/expressions.js';
import { durationMs, ruleFor, verdictOf, type ReadinessRule } from '../../core/status/readiness-rules.js';
import { conditionOf, plan, type Application, type Resource } from '../../core/internal.js';
import { OPEN_TENANCY, afterPlan, application, execute, scopes, served } from './fixtures.js';

const cel = (source: string): CompiledExpression => {
  const compiled = celEvaluator.compile(source);
  if (E.isLeft(compiled)) throw new Error(compiled.left.message);
  return compiled.right;
};

const database = (status: Record<string, unknown>, name = 'orders'): Resource =>
  ({
    apiVersion: 'example.io/v1',
    kind: 'Database',
    metadata: { name, namespace: 'shop', generation: 1 },
    status,
  }) as Resource;

const rule: ReadinessRule = {
  kind: 'Database',
  ready: cel("has(self.status.phase) && self.status.phase == 'Ready'"),
  failed: cel("has(self.status.phase) && self.status.phase == 'Failed'"),
  timeoutMs: 300_000,
};

describe('readiness rules', () => {
  it('match by kind, then apiVersion and name when given, first rule first', () => {
    const named: ReadinessRule = { ...rule, name: 'orders', ready: cel('true') };
    const otherVersion: ReadinessRule = { ...rule, apiVersion: 'example.io/v2' };
    expect(ruleFor([otherVersion, named, rule], database({}))).toBe(named);
    expect(ruleFor([otherVersion, named, rule], database({}, 'users'))).toBe(rule);
    expect(ruleFor([otherVersion], database({}))).toBe(undefined);
    expect(ruleFor([rule], { ...database({}), kind: 'Cache' })).toBe(undefined);
  });

  it('is ready once the status says so, and waits naming the values read until then', () => {
    expect(verdictOf(rule, database({ phase: 'Ready' }), { nowMs: 0 })).toEqual({ state: 'ready' });
    expect(verdictOf(rule, database({ phase: 'Provisioning' }), { nowMs: 0 })).toEqual({
      state: 'waiting',
      reason:
        'Database shop/orders: ready rule `has(self.status.phase) && self.status.phase == \'Ready\'` (status.phase="Provisioning") is false',
    });
  });

  it('fails when the failed rule is true, or the timeout passes while not ready', () => {
    expect(verdictOf(rule, database({ phase: 'Failed' }), { nowMs: 0 })).toEqual({
      state: 'failed',
      reason:
        'Database shop/orders: failed rule `has(self.status.phase) && self.status.phase == \'Failed\'` (status.phase="Failed") is true',
    });
    expect(verdictOf(rule, database({}), { nowMs: 299_999, waitingSinceMs: 0 }).state).toBe('waiting');
    expect(verdictOf(rule, database({}), { nowMs: 300_000, waitingSinceMs: 0 })).toEqual({
      state: 'failed',
      reason:
        "Database shop/orders: ready rule `has(self.status.phase) && self.status.phase == 'Ready'` (status.phase=absent) is false after 300s, the rule's timeout",
    });
  });

  it('waits on an expression that cannot be evaluated yet, and never counts a deleted object ready', () => {
    const strict: ReadinessRule = { kind: 'Database', ready: cel("self.status.phase == 'Ready'") };
    expect(verdictOf(strict, database({}), { nowMs: 0 })).toEqual({
      state: 'waiting',
      reason:
        "Database shop/orders: ready rule `self.status.phase == 'Ready'` (status.phase=absent) cannot be evaluated yet: No such key: phase",
    });
    const deleted = {
      ...database({ phase: 'Ready' }),
      metadata: { name: 'orders', deletionTimestamp: 'now' },
    } as Resource;
    expect(verdictOf(rule, deleted, { nowMs: 0 })).toEqual({ state: 'waiting', reason: 'being deleted' });
  });

  it("masks a Secret's values outside metadata", () => {
    const secretRule: ReadinessRule = {
      kind: 'Secret',
      ready: cel("has(self.data.token) && self.metadata.name == 'x'"),
    };
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      data: { token: 'c2VjcmV0' },
    } as Resource;
    const verdict = verdictOf(secretRule, secret, { nowMs: 0 });
    expect(verdict).toEqual({
      state: 'waiting',
      reason:
        'Secret creds: ready rule `has(self.data.token) && self.metadata.name == \'x\'` (data.token=(masked), metadata.name="creds") is false',
    });
    expect(JSON.stringify(verdict)).not.toContain('c2VjcmV0');
  });
});

describe('readiness rules in the plan', () => {
  const song = (): Resource => ({
    apiVersion: 'music.example/v1',
    kind: 'Song',
    metadata: { name: 'hit' },
    spec: { title: 'x' },
  });
  const rules = [{ kind: 'Song', ready: 'self.status.phase == "Recorded"', timeout: '2m' }];
  const T0 = '2024-01-01T00:00:00Z';
  const at = (seconds: number): string => new Date(Date.parse(T0) + seconds * 1_000).toISOString();

  /** Plans, carries the writes out (the API server answering with `phase`), and plans again at `now`. */
  const settled = (phase: string) => {
    const app = application({ manifest: [song()], readiness: rules });
    const options = { expressions: celEvaluator, tenancy: OPEN_TENANCY };
    const first = plan({ application: app, live: [], scopes, now: T0, options });
    const live = execute([], first.actions, (body) => ({ ...served(body), status: { phase } }));
    return (previous: Application, now: string) => plan({ application: previous, live, scopes, now, options });
  };

  it('waits by the rule, keeps when the wait began, and stalls ReadinessFailed once the timeout passes', () => {
    const replan = settled('Mixing');
    const app = application({ manifest: [song()], readiness: rules });
    const waiting = replan(app, at(10));
    expect(conditionOf(waiting.status.conditions, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'WaitingForReadiness',
      message:
        'waiting for Song default/hit: ready rule `self.status.phase == "Recorded"` (status.phase="Mixing") is false',
    });
    expect(waiting.status.readinessWaits).toEqual([
      { apiVersion: 'music.example/v1', kind: 'Song', name: 'hit', namespace: 'default', since: at(10) },
    ]);
    const still = replan(afterPlan(app, waiting), at(120));
    expect(conditionOf(still.status.conditions, 'Stalled')?.status).toBe('False');
    expect(still.status.readinessWaits?.[0]?.since).toBe(at(10));
    const failed = replan(afterPlan(app, still), at(130));
    expect(conditionOf(failed.status.conditions, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'ReadinessFailed',
    });
    expect(conditionOf(failed.status.conditions, 'Stalled')?.message).toContain("after 120s, the rule's timeout");
  });

  it('is Ready by the rule and drops the kept wait', () => {
    const app = application({ manifest: [song()], readiness: rules });
    const waited = {
      ...app,
      status: {
        readinessWaits: [
          { apiVersion: 'music.example/v1', kind: 'Song', name: 'hit', namespace: 'default', since: T0 },
        ],
      },
    };
    const ready = settled('Recorded')(waited, at(10));
    expect(conditionOf(ready.status.conditions, 'Ready')?.status).toBe('True');
    expect(ready.status.readinessWaits).toBeUndefined();
  });

  it('an invalid expression, or no evaluator, is Stalled InvalidSpec naming where', () => {
    const bad = application({ manifest: [song()], readiness: [{ kind: 'Song', ready: 'self.status.phase ==' }] });
    const refused = plan({ application: bad, live: [], scopes, now: T0, options: { expressions: celEvaluator } });
    expect(conditionOf(refused.status.conditions, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'InvalidSpec',
      message: 'spec.readiness[0].ready line 1 column 21: Unexpected token: EOF',
    });
    const without = plan({
      application: application({ manifest: [song()], readiness: rules }),
      live: [],
      scopes,
      now: T0,
    });
    expect(conditionOf(without.status.conditions, 'Stalled')?.message).toContain(
      'spec.readiness needs a CEL evaluator',
    );
  });

  it('reads durations in ms, s, m and h', () => {
    expect([durationMs('250ms'), durationMs('90s'), durationMs('1h30m'), durationMs('2m5s')]).toEqual([
      250, 90_000, 5_400_000, 125_000,
    ]);
  });
});
