/** Memory adapter: the Kubernetes label selector parser and matcher. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { matchesSelector, parseSelector } from '../../../adapters/memory/watch/label-selector.js';

const matches = (selector: string, labels: Record<string, string>): boolean => {
  const parsed = parseSelector(selector);
  if (E.isLeft(parsed)) throw new Error(parsed.left.message);
  return matchesSelector(parsed.right, labels);
};

describe('label selectors', () => {
  it('empty selects everything', () => {
    expect(matches('', {})).toBe(true);
    expect(matches('  ', { a: 'b' })).toBe(true);
  });

  it('operators, including empty values and numeric comparisons', () => {
    expect(matches('a=', { a: '' })).toBe(true);
    expect(matches('a=', { a: 'x' })).toBe(false);
    expect(matches('a!=x', {})).toBe(true);
    expect(matches('n>3', { n: '4' })).toBe(true);
    expect(matches('n>3', { n: '3' })).toBe(false);
    expect(matches('n<3', { n: 'two' })).toBe(false);
    expect(matches('a in (x),b notin (y),!c,d', { a: 'x', b: 'z', d: '' })).toBe(true);
    expect(matches('example.com/role in (db, web)', { 'example.com/role': 'web' })).toBe(true);
  });

  it('malformed selectors are BadRequest', () => {
    for (const bad of [
      'a in ()',
      'a in (x',
      'a=b,',
      '=b',
      'a==b==c',
      'Bad Key=1',
      'a=has space',
      'a notin x',
      '!a=b',
      'n>x',
      '-a=b',
    ]) {
      const parsed = parseSelector(bad);
      expect(E.isLeft(parsed) && parsed.left._tag, bad).toBe('BadRequest');
    }
  });
});
