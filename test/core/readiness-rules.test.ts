/** Readiness rules decide a matched child's readiness by its CEL expressions, naming object, expression and values. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import type { CompiledExpression } from '../../core/ports/expressions.js';
import { ruleFor, verdictOf, type ReadinessRule } from '../../core/status/readiness-rules.js';
import type { Resource } from '../../core/index.js';

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
