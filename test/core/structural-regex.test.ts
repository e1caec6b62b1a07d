/**
 * The RE2 engine CRD patterns run on (core/schema/structural/regex.ts): the same answers as
 * JavaScript's RegExp on the syntax both share (a property over generated patterns and inputs),
 * RE2's own syntax, refusals, and linear time on a pattern that backtracks exponentially in
 * JavaScript.
 */
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../core/schema/structural/regex.js';

const matches = (pattern: string, input: string): boolean => {
  const compiled = compileRegex(pattern);
  if (E.isLeft(compiled)) throw new Error(compiled.left);
  return compiled.right.test(input);
};

/** Patterns over a small alphabet in the syntax RE2 and JavaScript share. */
const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', '^', '$'),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `${x}${y}`),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(${x}|${y})`),
    fc.tuple(tie('node'), fc.constantFrom('*', '+', '?', '{1,2}', '{2}')).map(([x, q]) => `(?:${x})${q}`),
  ),
})).node;

describe('RE2 patterns in linear time', () => {
  it('answers as JavaScript does on the shared syntax', () => {
    fc.assert(
      fc.property(pattern, fc.stringMatching(/^[ab1\n]{0,8}$/), (source, input) => {
        expect(matches(source, input)).toBe(new RegExp(source).test(input));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['(?i)^abc$', 'ABC', true],
    ['^[[:alpha:]]+$', 'abZ', true],
    ['^\\p{L}+$', 'éa', true],
    ['\\Aab\\z', 'ab', true],
    ['^\\Qa.b\\E$', 'a.b', true],
    ['^\\Qa.b\\E$', 'axb', false],
    ['^(?P<name>x)+$', 'xx', true],
  ])('RE2 syntax %s on %j', (source, input, expected) => {
    expect(matches(source, input)).toBe(expected);
  });

  it.each([
    ['(a', 'missing closing )'],
    ['a**', 'invalid nested repetition operator'],
    ['(?=a)', 'invalid or unsupported Perl syntax'],
    ['\\1', 'back-references are not supported'],
    ['[z-a]', 'invalid character class range'],
    ['a{1001}', 'invalid repeat count'],
    ['(a{1000}){1000}', 'expression too large'],
  ])('refuses %s', (source, message) => {
    const compiled = compileRegex(source);
    expect(E.isLeft(compiled) && compiled.left).toContain(message);
  });

  it('runs ^(a+)+$ on 100 000 characters in well under a second', () => {
    const started = performance.now();
    expect(matches('^(a+)+$', `${'a'.repeat(100_000)}b`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
