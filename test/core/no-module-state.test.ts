/** The lint rule that keeps core free of module-level state (issue 18): what it flags, what it allows. */
import { describe, expect, it } from 'vitest';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import kreconcile from '../../tools/lint/no-module-state.js';

const problems = (code: string): ReadonlyArray<string> =>
  new Linter({ configType: 'flat' })
    .verify(
      code,
      [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser, sourceType: 'module' },
          plugins: { kreconcile },
          rules: { 'kreconcile/no-module-state': 'error' },
        },
      ],
      'core/x.ts',
    )
    .map((message) => message.message);

describe('kreconcile/no-module-state', () => {
  it('flags a module-level memo that is written, however it is typed or exported', () => {
    expect(
      problems('const cache = new WeakMap<object, string>();\nexport const f = (o: object) => cache.set(o, "k");'),
    ).toEqual([expect.stringContaining('module-level WeakMap `cache` is written (cache.set(…))')]);
    expect(
      problems('export const seen = new Set() as Set<string>;\nexport const g = () => seen.add("x");'),
    ).toHaveLength(1);
    expect(problems('const m = new Map();\nexport const h = () => { m.clear(); };')).toHaveLength(1);
  });

  it('flags module-level `let` and `var` (a counter is state too)', () => {
    expect(problems('let count = 0;\nexport const next = () => ++count;')).toEqual([
      expect.stringContaining('module-level `let`'),
    ]);
    expect(problems('export var total = 0;')).toHaveLength(1);
  });

  it('allows constant tables only read, and collections local to a function', () => {
    expect(problems('const RANK = new Map([["a", 1]]);\nexport const rank = (k: string) => RANK.get(k);')).toEqual([]);
    expect(
      problems('export const f = () => { const m = new Map(); m.set(1, 2); let n = 0; n++; return [m, n]; };'),
    ).toEqual([]);
  });
});
