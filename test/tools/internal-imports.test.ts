/**
 * The internal-imports codemod (tools/api/internal-imports.ts): it points every import of core's
 * public entry at core/internal.js, whatever the import's form, leaves every other specifier alone,
 * is idempotent, and the repository itself has nothing left to rewrite.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesOf, publicEntryImports, rewriteImports } from '../../tools/api/internal-imports.js';

const ROOT = '/repo';
// Specifiers built at run time, so this file itself holds no import of the real core/index.js.
const UP2 = '../..';

describe('internal-imports codemod', () => {
  it('rewrites every form of import of core/index, keeping quotes and layout', () => {
    const text = [
      `import { plan, type Plan } from '${UP2}/core/index.js';`,
      'import {',
      '  decodeApplication,',
      `} from "${UP2}/core/index.js";`,
      `import type { Resource } from '${UP2}/core/index.js';`,
      `export { FINALIZER } from '${UP2}/core';`,
      `export * from '${UP2}/core/index';`,
      `const core = await import('${UP2}/core/index.js');`,
      `vi.mock('${UP2}/core/index.js');`,
      `import '${UP2}/core/index.js';`,
    ].join('\n');
    expect(rewriteImports(text, `${ROOT}/app/cli/run.ts`, ROOT)).toBe(
      [
        `import { plan, type Plan } from '${UP2}/core/internal.js';`,
        'import {',
        '  decodeApplication,',
        `} from "${UP2}/core/internal.js";`,
        `import type { Resource } from '${UP2}/core/internal.js';`,
        `export { FINALIZER } from '${UP2}/core/internal.js';`,
        `export * from '${UP2}/core/internal.js';`,
        `const core = await import('${UP2}/core/internal.js');`,
        `vi.mock('${UP2}/core/internal.js');`,
        `import '${UP2}/core/internal.js';`,
      ].join('\n'),
    );
    expect(publicEntryImports(text, `${ROOT}/app/cli/run.ts`, ROOT)).toEqual([1, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('computes the path from the importing file (bench/ is one level down, test/app/runtime three)', () => {
    expect(rewriteImports(`import { plan } from '../core/index.js';`, `${ROOT}/bench/core.bench.ts`, ROOT)).toBe(
      `import { plan } from '../core/internal.js';`,
    );
    expect(
      rewriteImports(`import { plan } from '${UP2}/../core/index.js';`, `${ROOT}/test/app/runtime/x.test.ts`, ROOT),
    ).toBe(`import { plan } from '${UP2}/../core/internal.js';`);
  });

  it('leaves other specifiers alone: core modules, other index files, a wrong depth, text outside imports', () => {
    const text = [
      `import { plan } from '${UP2}/core/plan/plan.js';`,
      `import { startOperator } from '${UP2}/app/runtime/index.js';`,
      `import { x } from '../core/index.js'; // app/core/index.js: not the core`,
      `const note = 'see ${UP2}/core/index.js';`,
      `import { y } from '${UP2}/core/internal.js';`,
    ].join('\n');
    expect(rewriteImports(text, `${ROOT}/app/cli/run.ts`, ROOT)).toBe(text);
    expect(publicEntryImports(text, `${ROOT}/app/cli/run.ts`, ROOT)).toEqual([]);
  });

  it('is idempotent', () => {
    const text = `import { plan } from '${UP2}/core/index.js';\nconst c = await import("${UP2}/core");\n`;
    const once = rewriteImports(text, `${ROOT}/app/cli/run.ts`, ROOT);
    expect(once).not.toBe(text);
    expect(rewriteImports(once, `${ROOT}/app/cli/run.ts`, ROOT)).toBe(once);
  });

  it('finds nothing left to rewrite in the repository', () => {
    const root = resolve('.');
    const left = filesOf(root).flatMap((file) =>
      publicEntryImports(readFileSync(file, 'utf8'), file, root).map((line) => `${relative(root, file)}:${line}`),
    );
    expect(left).toEqual([]);
  });
});
