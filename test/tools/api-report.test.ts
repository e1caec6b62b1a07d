/**
 * The API report (tools/api/api-report.ts): the entry points it reads from package.json, what it
 * writes for an entry, and that its check fails naming an export added, removed or changed, and
 * passes when nothing changed. Each case is a small package written to a temporary directory.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkReports, compareReports, entryPointsOf, parseReport } from '../../tools/api/api-report.js';

const PACKAGE = {
  name: 'demo',
  type: 'module',
  exports: {
    '.': { import: { types: './dist/core/index.d.ts', default: './dist/core/index.js' } },
    './extra': { types: './dist/extra/index.d.ts', default: './dist/extra/index.js' },
    './package.json': './package.json',
  },
};
const TSCONFIG = {
  compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [] },
};
const CORE = `
export { plan, type Plan } from './plan.js';
export const FINALIZER = 'demo.io/finalizer';
export type Box<T> = { readonly value: T };
export class Runner {
  #secret = 1;
  private hidden = 2;
  constructor(readonly name: string) {}
  run(times: number): string { return this.name.repeat(times + this.#secret + this.hidden); }
}
export interface Port { read(key: string): Promise<string | undefined> }
`;
const PLAN = `
/** A plan. */
export type Plan = { readonly actions: ReadonlyArray<string> };
export const plan = (input: { readonly name: string }): Plan => ({ actions: [input.name] });
export const internalHelper = (): number => 1;
`;

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'api-report-'));
  write('package.json', JSON.stringify(PACKAGE));
  write('tsconfig.json', JSON.stringify(TSCONFIG));
  write('core/index.ts', CORE);
  write('core/plan.ts', PLAN);
  write('extra/index.ts', `export type { Port } from '../core/index.js';\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('API report', () => {
  it("maps package.json exports to their sources; the repository's four entries", () => {
    expect(entryPointsOf(PACKAGE)).toEqual([
      { specifier: 'demo', stem: 'demo', source: 'core/index.ts' },
      { specifier: 'demo/extra', stem: 'extra', source: 'extra/index.ts' },
    ]);
    const repository: unknown = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(entryPointsOf(repository).map((entry) => [entry.specifier, entry.source])).toEqual([
      ['kreconcile', 'core/index.ts'],
      ['kreconcile/runtime', 'app/runtime/index.ts'],
      ['kreconcile/testing', 'app/testing/index.ts'],
      ['kreconcile/kubernetes', 'adapters/kubernetes/index.ts'],
    ]);
  });

  it('writes one sorted line per export with its kind and signature, private members left out', () => {
    expect(checkReports(root, true)).toEqual([]);
    const report = readFileSync(join(root, 'api/demo.api.md'), 'utf8');
    expect([...parseReport(report).values()]).toEqual([
      'type Box<T> = { readonly value: T; };',
      "const FINALIZER: 'demo.io/finalizer'",
      'type Plan = { readonly actions: ReadonlyArray<string>; };',
      'interface Port { read(key: string): Promise<string | undefined>; }',
      'class Runner { constructor(name: string); name: string; run: (times: number) => string }',
      'const plan: (input: { readonly name: string; }) => Plan',
    ]);
    expect(report).toContain("What `import … from 'demo'` offers (source: `core/index.ts`): 6 exports");
    expect([...parseReport(readFileSync(join(root, 'api/extra.api.md'), 'utf8')).keys()]).toEqual(['Port']);
  });

  it('passes when the exports did not change, and is deterministic', () => {
    checkReports(root, true);
    const first = readFileSync(join(root, 'api/demo.api.md'), 'utf8');
    expect(checkReports(root, false)).toEqual([]);
    checkReports(root, true);
    expect(readFileSync(join(root, 'api/demo.api.md'), 'utf8')).toBe(first);
  });

  it('fails naming an export added by accident (an internal helper through the entry)', () => {
    checkReports(root, true);
    write('core/index.ts', CORE.replace('type Plan }', 'type Plan, internalHelper }'));
    expect(checkReports(root, false)).toEqual([
      "api/demo.api.md: export `internalHelper` added to 'demo' (core/index.ts)",
    ]);
  });

  it('fails naming an export removed', () => {
    checkReports(root, true);
    write('core/index.ts', CORE.replace("export const FINALIZER = 'demo.io/finalizer';", ''));
    expect(checkReports(root, false)).toEqual([
      "api/demo.api.md: export `FINALIZER` removed from 'demo' (core/index.ts)",
    ]);
  });

  it('fails naming an export whose signature changed, with both lines', () => {
    checkReports(root, true);
    write(
      'core/plan.ts',
      PLAN.replace('input: { readonly name: string }', 'input: { readonly name: string; now?: number }'),
    );
    const problems = checkReports(root, false);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^api\/demo\.api\.md: export `plan` of 'demo' changed\n {2}was: const plan: .*\n {2}now: const plan: .*now\?: number/,
    );
  });

  it('fails when a report is missing or edited by hand', () => {
    checkReports(root, true);
    rmSync(join(root, 'api/extra.api.md'));
    expect(checkReports(root, false)).toEqual(["api/extra.api.md: missing (the report of 'demo/extra')"]);
    const text = 'hand-written\n```ts\ninterface Port { read(key: string): Promise<string | undefined>; }\n```\n';
    expect(
      compareReports({ specifier: 'demo/extra', stem: 'extra', source: 'extra/index.ts' }, text, text + ' '),
    ).toEqual(['api/extra.api.md: differs from the generated report']);
  });
});
