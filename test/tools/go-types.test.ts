/**
 * core/canonical/go-types.generated.ts is what tools/go-types writes from the pinned k8s.io
 * modules (`npm run schemas:go-types`): regenerated into a temporary directory and compared. The
 * generator also checks every encoding rule of the table against the real encoders, so a run that
 * passes here proves the checked-in table states them. Skipped with a message where Go is missing,
 * except in CI (or KRECONCILE_REQUIRE_APISERVER), where the table must be proven.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { apiServerRequired } from '../support/kubernetes-global-setup.js';

const root = join(import.meta.dirname, '..', '..');
const generated = join(root, 'core', 'canonical', 'go-types.generated.ts');
const goFound = spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;

if (!goFound && apiServerRequired())
  throw new Error('go is required in CI to check core/canonical/go-types.generated.ts');
if (!goFound)
  console.warn('[go-types] skipping: go not found (install Go >= 1.26 to check the generated Go type table)');

describe.skipIf(!goFound)('the generated Go type table', () => {
  it('is what tools/go-types generates from k8s.io/api v0.36.3', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'go-types-'));
    try {
      const out = join(dir, 'go-types.generated.ts');
      execFileSync('go', ['run', '.', join(root, 'schemas', 'kubernetes-1.36.json'), out], {
        cwd: join(root, 'tools', 'go-types'),
        env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const formatted = await prettier.format(readFileSync(out, 'utf8'), {
        ...(await prettier.resolveConfig(generated)),
        filepath: generated,
      });
      expect(formatted === readFileSync(generated, 'utf8'), 'run `npm run schemas:go-types` and commit the table').toBe(
        true,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
