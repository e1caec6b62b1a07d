/**
 * The outside-documents lint: what it finds, and how `--fix` rewrites citations to docs/behaviour.md and
 * docs/architecture.md.
 */
import { describe, expect, it } from 'vitest';
import { citationsIn, rewriteCitations } from '../../tools/lint/no-outside-docs.js';

describe('citations of documents outside the repository', () => {
  it('finds every form, with line and column, and leaves identifiers alone', () => {
    const text = [
      '/** Validation (SPEC section 2). */',
      'const x = SPEC_FIELDS; const y = POD_SPEC_PATHS; const SPECIFIER = 1;',
      '// see ../shared/docs/ARCHITECTURE.md and docs/REAL-APISERVER.md §3.3, CLIENT-NODE.md',
      'SPEC §3.2 and ARCHITECTURE example 2',
    ].join('\n');
    expect(citationsIn(text)).toEqual([
      { line: 1, column: 17, text: 'SPEC' },
      { line: 3, column: 8, text: '../shared/docs/ARCHITECTURE.md' },
      { line: 3, column: 43, text: 'docs/REAL-APISERVER.md' },
      { line: 3, column: 72, text: 'CLIENT-NODE.md' },
      { line: 4, column: 1, text: 'SPEC' },
      { line: 4, column: 15, text: 'ARCHITECTURE' },
    ]);
  });

  it.each([
    ['(SPEC section 2: validation)', '(docs/behaviour.md §2: validation)'],
    ['SPEC.md section 7, step 1 of the loop', 'docs/behaviour.md §7, step 1 of the loop'],
    ['SPEC §3.2', 'docs/behaviour.md §3.2'],
    ['SPEC.md sections 1–3 give the', 'docs/behaviour.md §1–3 give the'],
    ['The mangling step (SPEC step 4)', 'The mangling step (docs/behaviour.md §4.4)'],
    ['Hooks (SPEC step 4 and section 6)', 'Hooks (docs/behaviour.md §4.4 and §6)'],
    ['TOSCA → manifest (SPEC step 1, section 7)', 'TOSCA → manifest (docs/behaviour.md §4.1, §7)'],
    ['counts (SPEC section 4, step 6)', 'counts (docs/behaviour.md §4.6)'],
    ["compare them (SPEC's observer schema)", "compare them (docs/behaviour.md's observer schema)"],
    ['missing keys left out, SPEC **fix**', 'missing keys left out, docs/behaviour.md **fix**'],
    ['never guessed (ARCHITECTURE example 1).', 'never guessed (docs/architecture.md example 1).'],
    ['beside the codecs (ARCHITECTURE.md example 10)', 'beside the codecs (docs/architecture.md example 10)'],
    ['the dependency rules of ARCHITECTURE.md, enforced', 'the dependency rules of docs/architecture.md, enforced'],
    [
      "envtest's defaults (docs/REAL-APISERVER.md §3.3); APF",
      "envtest's defaults (docs/architecture.md#the-real-api-server-in-the-tests); APF",
    ],
    [
      'Behaviour is specified in `../shared/docs/SPEC.md` (kept beside the repository). The data',
      'Behaviour is specified in `docs/behaviour.md`. The data',
    ],
    ["Krake's walk-through (SPEC.md's reference text): a custom", "Krake's walk-through: a custom"],
    ['# (SPEC.md, the reference text): two', '# (its semantics: docs/behaviour.md): two'],
    [
      'read the Application (SPEC\n * section 6 **fix**). Nothing',
      'read the Application (docs/behaviour.md\n * §6 **fix**). Nothing',
    ],
    ['// as SPEC\n// step 5 says', '// as docs/behaviour.md\n// §4.5 says'],
    ['const x = SPEC_FIELDS; POD_SPEC_PATHS; SPECIFIER', 'const x = SPEC_FIELDS; POD_SPEC_PATHS; SPECIFIER'],
  ])('rewrites %j', (before, after) => {
    expect(rewriteCitations(before)).toBe(after);
    expect(citationsIn(rewriteCitations(before))).toEqual([]);
  });

  it('leaves a citation it cannot map for the check to report', () => {
    const text = 'notes in ../shared/reference/krake.txt';
    expect(rewriteCitations(text)).toBe(text);
    expect(citationsIn(text)).toHaveLength(1);
  });
});
