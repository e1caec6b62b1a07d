/**
 * Readiness expressions on the CEL evaluator: checked with positions, bounded, evaluated over JSON as Kubernetes' CEL
 * sees it.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { celEvaluator, MAX_EXPRESSION_LENGTH } from '../../../adapters/cel/cel-evaluator.js';
import type { JsonValue } from '../../../core/internal.js';

const evaluate = (source: string, self: JsonValue) => {
  const compiled = celEvaluator.compile(source);
  if (E.isLeft(compiled)) throw new Error(compiled.left.message);
  return compiled.right.evaluate(self);
};

const database = (status: JsonValue): JsonValue => ({
  apiVersion: 'example.io/v1',
  kind: 'Database',
  metadata: { name: 'db' },
  status,
});

describe('the CEL evaluator', () => {
  it('reads the live object as self, whole JSON numbers as int', () => {
    const ready = "has(self.status.phase) && self.status.phase == 'Ready' && self.status.replicas == 3";
    expect(evaluate(ready, database({ phase: 'Ready', replicas: 3 }))).toEqual(E.right(true));
    expect(evaluate(ready, database({ phase: 'Provisioning', replicas: 3 }))).toEqual(E.right(false));
    expect(evaluate(ready, database({}))).toEqual(E.right(false));
    expect(
      evaluate(
        "self.status.conditions.exists(c, c.type == 'Synced' && c.status == 'True')",
        database({ conditions: [{ type: 'Synced', status: 'True' }] }),
      ),
    ).toEqual(E.right(true));
  });

  it('lists the fields of self it reads, to show their values', () => {
    const compiled = celEvaluator.compile(
      "has(self.status.phase) && self.status.phase == 'Ready' && self.status.conditions.exists(c, c.type == self.spec.want)",
    );
    expect(E.isRight(compiled) && compiled.right.reads).toEqual([
      ['status', 'phase'],
      ['status', 'conditions'],
      ['spec', 'want'],
    ]);
  });

  it('says why there is no verdict: a missing field, a non-boolean result', () => {
    expect(evaluate("self.status.phase == 'Ready'", database({}))).toEqual(
      E.left({ _tag: 'Unevaluable', message: 'No such key: phase' }),
    );
    expect(evaluate('self.status.replicas', database({ replicas: 2 }))).toEqual(
      E.left({ _tag: 'Unevaluable', message: 'the result is not a boolean but bigint' }),
    );
  });

  it('refuses a malformed expression with its line and column', () => {
    expect(celEvaluator.compile("self.status.phase == 'Ready' &&")).toEqual(
      E.left({ message: 'Unexpected token: EOF', line: 1, column: 32 }),
    );
    expect(celEvaluator.compile("self.status.phase ==\n  'Ready' ) ")).toMatchObject(E.left({ line: 2, column: 11 }));
  });

  it('refuses what evaluation could not bound: nesting, matches(), size', () => {
    expect(celEvaluator.compile('self.spec.items.all(i, self.spec.items.exists(j, j == i))')).toEqual(
      E.left({
        message: 'exists() inside another comprehension: nested comprehensions are not bounded, use one',
        line: 1,
        column: 24,
      }),
    );
    expect(celEvaluator.compile("self.metadata.name.matches('^(a+)+$')")).toMatchObject(
      E.left({ message: 'matches() is not offered: use startsWith, endsWith or contains' }),
    );
    expect(celEvaluator.compile('true||'.repeat(150) + 'true')).toMatchObject(
      E.left({ message: 'Exceeded maxAstNodes (256)' }),
    );
    expect(celEvaluator.compile(`'${'x'.repeat(MAX_EXPRESSION_LENGTH)}' == ''`)).toEqual(
      E.left({ message: `longer than ${MAX_EXPRESSION_LENGTH} characters (${MAX_EXPRESSION_LENGTH + 8})` }),
    );
    // One comprehension over each of two lists is fine: the cost is the sum, not the product.
    expect(E.isRight(celEvaluator.compile("self.a.all(x, x > 0) && self.b.exists(y, y == 'z')"))).toBe(true);
  });
});
