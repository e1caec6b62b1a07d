/**
 * Every ```ts snippet of README.md and docs/*.md type-checks against the sources, as a user imports
 * them (`kreconcile/runtime`, …). One TypeScript program for all of them: the documentation's
 * modules plus a fixture whose errors must be found at their Markdown lines (so the check can fail).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, extractSnippets, snippetModules, typeCheck } from '../../tools/docs-snippets/snippets.js';

const root = join(import.meta.dirname, '../..');

const fixture = [
  '# Fixture', //                                        1
  '<!-- snippet: context', //                            2
  "import type { PrimaryReconciler } from 'kreconcile/runtime';",
  '-->', //                                              4
  '```ts', //                                            5
  'const typed: PrimaryReconciler = {', //              6
  "  apiVersion: 'v1', kind: 'Thing',", //              7
  '  desired: (thing) => ({ manifest: [{ apiVersion: 1 }] }),', // 8: apiVersion must be a string
  '};', //                                               9
  '```', //                                              10
  '',
  '<!-- snippet: continues -->',
  '```ts', //                                            13
  'const again: string = typed.kind.length;', //        14: a number
  '```',
  '<!-- snippet: no-check: a fragment -->',
  '```ts',
  '} else {',
  '```',
].join('\n');

describe('extractSnippets', () => {
  it('reads ts blocks with their first line and markers', () => {
    const snippets = extractSnippets(fixture, 'fixture.md');
    expect(snippets.map(({ line, continues, skip }) => ({ line, continues, skip }))).toEqual([
      { line: 6, continues: false, skip: undefined },
      { line: 14, continues: true, skip: undefined },
      { line: 18, continues: false, skip: 'a fragment' },
    ]);
    expect(snippets[0]?.context).toContain('PrimaryReconciler');
  });

  it('refuses a no-check without a reason and a continues with nothing before it, naming the line', () => {
    expect(() => extractSnippets('<!-- snippet: no-check -->\n```ts\nx\n```', 'a.md')).toThrow(
      'a.md:1: "snippet: no-check" needs a reason',
    );
    expect(() => snippetModules(extractSnippets('<!-- snippet: continues -->\n```ts\nx\n```', 'b.md'))).toThrow(
      'b.md:3: "snippet: continues" but no checked snippet',
    );
  });

  it('forgets markers separated from the block by prose', () => {
    expect(extractSnippets('<!-- snippet: no-check: why -->\nsome prose\n```ts\nx\n```', 'c.md')[0]?.skip).toBe(
      undefined,
    );
  });
});

describe('the documentation snippets', () => {
  it('type-check, and a broken one is reported at its Markdown line', () => {
    const documentation = documentationFiles(root).flatMap((path) =>
      extractSnippets(readFileSync(path, 'utf8'), relative(root, path)),
    );
    expect(documentation.length).toBeGreaterThan(8);
    const skipped = documentation.filter((snippet) => snippet.skip !== undefined);
    // Used sparingly: fragments and sketches only.
    expect(skipped.length).toBeLessThanOrEqual(4);
    const errors = typeCheck(root, [
      ...snippetModules(documentation),
      ...snippetModules(extractSnippets(fixture, 'fixture.md')),
    ]);
    expect(errors.filter((error) => !error.startsWith('fixture.md:'))).toEqual([]);
    expect(errors.map((error) => error.replace(/ TS\d+ .*/s, ''))).toEqual(['fixture.md:8:', 'fixture.md:14:']);
  }, 180_000);
});
