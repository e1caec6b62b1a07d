/** One way to build an object with optional fields (issue 40 item 5): `defined`, and the lint rule that asks for it. */
import { describe, expect, it } from 'vitest';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { preferDefined } from '../../tools/lint/prefer-defined.js';
import { defined } from '../../core/json/defined.js';

const problems = (code: string): ReadonlyArray<string> =>
  new Linter({ configType: 'flat' })
    .verify(
      code,
      [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser, sourceType: 'module' },
          plugins: { kreconcile: { rules: { 'prefer-defined': preferDefined } } },
          rules: { 'kreconcile/prefer-defined': 'error' },
        },
      ],
      'app/x.ts',
    )
    .map((message) => message.message);

describe('defined', () => {
  it('keeps defined fields, null, zero and empty strings included, and drops undefined ones as absent keys', () => {
    const absent: string | undefined = undefined;
    const built = defined({ a: 0, b: '', c: null, d: false, e: absent, f: { g: undefined } });
    expect(built).toStrictEqual({ a: 0, b: '', c: null, d: false, f: { g: undefined } });
    expect(Object.keys(built)).not.toContain('e');
  });

  it('builds a fresh object and leaves its argument alone', () => {
    const fields = { a: 1, b: undefined };
    const built = defined(fields);
    expect(built).not.toBe(fields);
    expect(fields).toStrictEqual({ a: 1, b: undefined });
  });
});

describe('kreconcile/prefer-defined', () => {
  it('flags a conditional spread of the tested value itself, shorthand, renamed, negated or through `?.`', () => {
    expect(problems('export const f = (x?: number) => ({ ...(x === undefined ? {} : { x }) });')).toEqual([
      expect.stringContaining('write `...defined({ … })`'),
    ]);
    expect(
      problems('export const f = (o?: { a?: 1 }) => ({ ...(o?.a === undefined ? {} : { b: o.a }) });'),
    ).toHaveLength(1);
    expect(problems('export const f = (x?: 1) => ({ ...(x !== undefined ? { y: x } : {}) });')).toHaveLength(1);
    expect(problems('export const f = (x?: 1) => ({ ...(undefined === x ? {} : { x }) });')).toHaveLength(1);
  });

  it('allows a field computed from the tested value, and other conditionals', () => {
    expect(problems('export const f = (x?: number[]) => ({ ...(x === undefined ? {} : { x: [...x] }) });')).toEqual([]);
    expect(problems('export const f = (x?: 1, y?: 2) => ({ ...(x === undefined ? {} : { x: y }) });')).toEqual([]);
    expect(problems('export const f = (x?: 1) => ({ ...(x === undefined ? {} : { x, y: 2 }) });')).toEqual([]);
    expect(problems('export const f = (x: boolean) => ({ ...(x ? {} : { x }) });')).toEqual([]);
    expect(problems('export const f = (x?: 1) => ({ ...defined({ x }) });')).toEqual([]);
  });
});
