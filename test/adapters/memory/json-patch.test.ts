/** Memory adapter: RFC 6902 JSON Patch and RFC 7386 merge patch as the API server applies them. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../core/json/json.js';
import { applyJsonPatch, JSON_PATCH_APPLY_FAILURE } from '../../../adapters/memory/json/json-patch.js';
import { mergePatch } from '../../../adapters/memory/json/merge-patch.js';

const apply = (document: JsonValue, operations: unknown): JsonValue => {
  const result = applyJsonPatch(document, operations);
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};

const failureOf = (document: JsonValue, operations: unknown) => {
  const result = applyJsonPatch(document, operations);
  return E.isLeft(result) ? [result.left._tag, result.left.code] : ['none', 0];
};

describe('RFC 6902 JSON Patch', () => {
  it('move and copy, array insertion and append, root replacement', () => {
    expect(
      apply({ a: { b: 1 }, l: [1, 2] }, [
        { op: 'copy', from: '/a', path: '/c' },
        { op: 'move', from: '/a/b', path: '/d' },
        { op: 'add', path: '/l/0', value: 0 },
        { op: 'add', path: '/l/-', value: 3 },
      ]),
    ).toEqual({ a: {}, c: { b: 1 }, d: 1, l: [0, 1, 2, 3] });
    expect(apply({ a: 1 }, [{ op: 'replace', path: '', value: [1] }])).toEqual([1]);
  });

  it('all or nothing; the input is untouched', () => {
    const document = { a: 1 };
    expect(
      failureOf(document, [
        { op: 'replace', path: '/a', value: 2 },
        { op: 'test', path: '/a', value: 1 },
      ]),
    ).toEqual([JSON_PATCH_APPLY_FAILURE.tag, JSON_PATCH_APPLY_FAILURE.code]);
    expect(document).toEqual({ a: 1 });
  });

  it('apply failures are 422; a body that is not a list of operations is 400', () => {
    const failures = [
      [{ op: 'add', path: '/l/5', value: 1 }],
      [{ op: 'add', path: '/l/01', value: 1 }],
      [{ op: 'remove', path: '/l/-' }],
      [{ op: 'move', from: '/o', path: '/o/inner' }],
      [{ op: 'copy', from: '/missing', path: '/x' }],
      [{ op: 'add', path: 'no-slash', value: 1 }],
      [{ op: 'frobnicate', path: '/o' }],
      [{ op: 'add', path: '/o/x' }],
      [{ op: 'test', path: '/o', value: { different: true } }],
    ];
    for (const operations of failures)
      expect(failureOf({ l: [1], o: {} }, operations), JSON.stringify(operations)).toEqual(['Invalid', 422]);
    expect(failureOf({}, { op: 'add' })).toEqual(['BadRequest', 400]);
    expect(failureOf({}, [1])).toEqual(['BadRequest', 400]);
  });

  it('as kube-apiserver applies it: replace of a missing member adds it; test of a missing member passes only against null', () => {
    expect(apply({ o: {} }, [{ op: 'replace', path: '/o/new', value: 1 }])).toEqual({ o: { new: 1 } });
    expect(failureOf({ l: [1] }, [{ op: 'replace', path: '/l/1', value: 2 }])).toEqual(['Invalid', 422]);
    expect(failureOf({}, [{ op: 'replace', path: '/no/parent', value: 2 }])).toEqual(['Invalid', 422]);
    expect(apply({ o: {} }, [{ op: 'test', path: '/o/absent', value: null }])).toEqual({ o: {} });
    expect(failureOf({ o: {} }, [{ op: 'test', path: '/o/absent', value: 1 }])).toEqual(['Invalid', 422]);
    expect(failureOf({}, [{ op: 'test', path: '/no/parent', value: null }])).toEqual(['Invalid', 422]);
  });

  it('test compares structurally (key order ignored) and treats escaped tokens as keys', () => {
    expect(
      apply({ 'a/b': { '~': [1, { x: 1, y: 2 }] } }, [{ op: 'test', path: '/a~1b/~0/1', value: { y: 2, x: 1 } }]),
    ).toEqual({ 'a/b': { '~': [1, { x: 1, y: 2 }] } });
  });
});

describe('RFC 7386 merge patch', () => {
  it('follows the RFC examples', () => {
    expect(mergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(mergePatch({ a: 'b' }, { a: null })).toEqual({});
    expect(mergePatch({ a: ['b'] }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } })).toEqual({ a: { b: 'd' } });
    expect(mergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch(['a', 'b'], ['c', 'd'])).toEqual(['c', 'd']);
    expect(mergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(mergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });
});
