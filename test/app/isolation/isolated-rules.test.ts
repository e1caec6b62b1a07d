/**
 * Readiness rules in worker threads (app/isolation; issue 37 item 1): an evaluation over its time
 * or memory bound ends `OverBound` naming the bound and its worker is replaced (the next one
 * answers); an object over the input bound is refused before it is sent; an answer is kept per
 * object version, so a rule over its bounds costs its bound once per change of its object.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, describe, expect, it } from 'vitest';
import { IsolatedRules, type RuleIsolationOptions } from '../../../app/isolation/isolated-rules.js';
import type { Resource } from '../../../core/internal.js';
import type { EvaluationFailure } from '../../../core/ports/expressions.js';

let rules: IsolatedRules | undefined;
afterEach(async () => {
  await rules?.close();
  rules = undefined;
});

const configMap = (name: string, big: string, resourceVersion = '1'): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'alice', uid: name, resourceVersion },
  data: { big },
});

/** The answer of `ready` over `object`, evaluated isolated. */
const answer = async (
  options: RuleIsolationOptions,
  ready: string,
  object: Resource,
): Promise<E.Either<EvaluationFailure, boolean>> => {
  rules ??= new IsolatedRules(options);
  const evaluator = await rules.evaluatorFor('alice/app', [{ kind: 'ConfigMap', ready }], [object]);
  const compiled = evaluator.compile(ready);
  if (E.isLeft(compiled)) throw new Error(compiled.left.message);
  return compiled.right.evaluate(object);
};

/** The first answer that is not over the time bound, over successive object versions (at most 10 tries). */
const firstAnswered = async (
  attempt: (version: string) => Promise<E.Either<EvaluationFailure, boolean>>,
): Promise<E.Either<EvaluationFailure, boolean>> => {
  let last = await attempt('1');
  for (let version = 2; version <= 10 && E.isLeft(last) && last.left._tag === 'OverBound'; version++)
    last = await attempt(String(version));
  return last;
};

const SLOW = "self.data.big.split('').map(c, c).size() > 0";
const big = 'abcdefghij'.repeat(33_000); // cost about 990 000, under the limit: it runs, for some 150 ms

describe('isolated readiness rules', () => {
  it('stop an evaluation at its time bound, replace the worker, and keep the answer per object version', async () => {
    const options = { timeoutMs: 10 };
    expect(await answer(options, SLOW, configMap('slow', big))).toEqual(
      E.left({ _tag: 'OverBound', bound: 'time', message: 'it ran longer than 10 ms and was stopped' }),
    );
    // A fresh worker answers the next rule (retried: a loaded machine may stall a cold worker past 10 ms too).
    expect(await firstAnswered((version) => answer(options, 'true', configMap('small', 'x', version)))).toEqual(
      E.right(true),
    );
    // The same object version: the kept answer, no second run.
    const started = performance.now();
    expect(await answer(options, SLOW, configMap('slow', big))).toMatchObject(E.left({ bound: 'time' }));
    expect(performance.now() - started).toBeLessThan(15);
  }, 60_000);

  it('stop an evaluation at its memory bound', async () => {
    // 330 000 elements built: more than a 12 MiB heap holds (12 MiB is about the least a worker loads in).
    const result = await answer({ maxHeapMb: 12, timeoutMs: 20_000 }, SLOW, configMap('hungry', big));
    expect(result).toEqual(
      E.left({ _tag: 'OverBound', bound: 'memory', message: 'it needed more than 12 MiB and was stopped' }),
    );
    expect(await answer({}, "self.data.big == 'x'", configMap('after', 'x'))).toEqual(E.right(true));
  }, 60_000);

  it('refuse an object over the input bound before sending it', async () => {
    expect(await answer({}, 'true', configMap('huge', 'x'.repeat(1_100_000)))).toMatchObject(
      E.left({ _tag: 'OverBound', bound: 'input size' }),
    );
  });
});
