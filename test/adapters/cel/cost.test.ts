/**
 * The cost of a readiness rule (issue 37 item 1): estimated from the syntax tree for the largest
 * object at compile (refused over `STATIC_COST_LIMIT`, naming the cost and the limit), and for the
 * object at hand before each evaluation (refused over `RUNTIME_COST_LIMIT`), as the API server's
 * CEL bounds validation rules. Rules people write pass; the hostile ones of the security review do
 * not; a generator of expensive expressions finds none that compiles and then runs long.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  celEvaluator,
  inputOverBound,
  MAX_INPUT_BYTES,
  RUNTIME_COST_LIMIT,
  STATIC_COST_LIMIT,
} from '../../../adapters/cel/cel-evaluator.js';
import { actualSizes, estimateCost, staticSizes } from '../../../adapters/cel/cost.js';
import type { JsonValue } from '../../../core/internal.js';

const costOf = (source: string): number | string => {
  const compiled = celEvaluator.compile(source);
  return E.isRight(compiled) ? (compiled.right.estimatedCost ?? -1) : compiled.left.message;
};

const configMap = (bytes: number): JsonValue => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'big', namespace: 'alice' },
  data: { big: 'abcdefghij'.repeat(bytes / 10) },
});

describe('the static cost estimate', () => {
  it.each([
    "self.status.phase == 'Ready'",
    "self.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
    "self.status.conditions.filter(c, c.type == 'Ready').all(c, c.status == 'True')",
    'self.status.readyReplicas >= self.spec.replicas',
    "self.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    'has(self.status.loadBalancer.ingress) && self.status.loadBalancer.ingress.size() > 0',
    'self.metadata.annotations.size() == 0',
  ])('accepts a rule people write: %s', (source) => {
    const cost = costOf(source);
    expect(typeof cost === 'number' && cost <= STATIC_COST_LIMIT).toBe(true);
  });

  it.each([
    "self.data.big.split('').map(c, self.data.big.contains(c)).size() > 0",
    "self.data.a.replace('a', self.data.a).size() > 0",
    "self.data.a.split('').map(c, c + c + c + c).map(d, d + d).size() > 0",
    "(self.data.a + self.data.a + self.data.a + self.data.a + self.data.a).split('').map(c, c + c).size() > 0",
    "self.data.a.split('').exists(c, self.data.a.indexOf(c) > 0)",
  ])('refuses a rule whose cost grows with the square of the object: %s', (source) => {
    expect(costOf(source)).toMatch(
      new RegExp(
        `^estimated cost \\d+ exceeds the limit of ${STATIC_COST_LIMIT} \\(for an object of up to ${MAX_INPUT_BYTES} bytes\\)`,
      ),
    );
  });

  it('counts a comprehension body once per element, and its element traversals once for the whole list', () => {
    const cheap = costOf('self.items.exists(c, c == 1)');
    const heavier = costOf("self.items.exists(c, c.name.contains('x'))");
    if (typeof cheap !== 'number' || typeof heavier !== 'number') throw new Error('refused');
    // A few units more per element, and one traversal of the list: not its length times its size.
    expect(heavier - cheap).toBeLessThan(Math.ceil(MAX_INPUT_BYTES / 2) * 4 + MAX_INPUT_BYTES);
  });
});

describe('the runtime cost limit and the input bound', () => {
  it('refuses an evaluation over the limit for its object before running it, naming the cost', () => {
    const compiled = celEvaluator.compile("self.data.big.split('').map(c, c + c).size() > 0");
    if (E.isLeft(compiled)) throw new Error(compiled.left.message);
    expect(compiled.right.evaluate(configMap(1_000))).toEqual(E.right(true));
    const started = performance.now();
    const over = compiled.right.evaluate(configMap(400_000));
    expect(performance.now() - started).toBeLessThan(200);
    expect(over).toEqual(
      E.left({
        _tag: 'OverBound',
        bound: 'cost',
        message: expect.stringMatching(
          new RegExp(`^its cost over this object is \\d+, over the limit of ${RUNTIME_COST_LIMIT} per evaluation$`),
        ) as string,
      }),
    );
  });

  it('an estimate for an actual object within the input bound never exceeds the static one', () => {
    const ast = {
      op: 'rcall',
      args: ['split', { op: '.', args: [{ op: '.', args: [{ op: 'id', args: 'self' }, 'data'] }, 'big'] }, []],
    };
    for (const bytes of [10, 1_000, 900_000])
      expect(estimateCost(ast, actualSizes(configMap(bytes))).cost).toBeLessThanOrEqual(
        estimateCost(ast, staticSizes(MAX_INPUT_BYTES)).cost,
      );
  });

  it('refuses an object larger than the input bound', () => {
    expect(inputOverBound(MAX_INPUT_BYTES)).toBeUndefined();
    expect(inputOverBound(MAX_INPUT_BYTES + 1)).toEqual({
      _tag: 'OverBound',
      bound: 'input size',
      message: `the object is ${MAX_INPUT_BYTES + 1} bytes, over the bound of ${MAX_INPUT_BYTES} bytes an expression may read`,
    });
  });
});

/** Expensive pieces, combined: what a hostile tenant would try within 1 KB. */
const expensive = fc.letrec<{ list: string; text: string; bool: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: 'small' },
    fc.constant('self.data.big'),
    fc.constant('self.data.other'),
    tie('text').map((t) => `${t} + ${t}`),
    tie('text').map((t) => `${t}.lowerAscii()`),
    fc.tuple(tie('text'), tie('text')).map(([a, b]) => `${a}.replace('a', ${b})`),
  ),
  list: fc.oneof(
    { depthSize: 'small' },
    tie('text').map((t) => `${t}.split('')`),
    fc.tuple(tie('list'), tie('text')).map(([l, t]) => `${l}.map(c, c + ${t})`),
    tie('list').map((l) => `${l}.filter(c, c != 'z')`),
  ),
  bool: fc.oneof(
    fc.tuple(tie('list'), tie('text')).map(([l, t]) => `${l}.exists(c, ${t}.contains(c))`),
    tie('list').map((l) => `${l}.size() > 0`),
    fc.tuple(tie('text'), tie('text')).map(([a, b]) => `${a} == ${b}`),
  ),
})).bool;

describe('a generator of expensive expressions', () => {
  it('finds none that compiles and then runs for long over a large object', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { big: 'abcdefghij'.repeat(30_000), other: 'xyz'.repeat(10_000) },
    };
    fc.assert(
      fc.property(expensive, (source) => {
        const compiled = celEvaluator.compile(source);
        if (E.isLeft(compiled)) return true;
        const started = performance.now();
        compiled.right.evaluate(object);
        // 1e6 units run in well under a second; the worker's time bound catches what a loaded machine adds.
        expect(performance.now() - started, source).toBeLessThan(3_000);
        return true;
      }),
      { numRuns: 60, seed: 37 },
    );
  }, 120_000);
});
