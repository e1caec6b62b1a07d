/**
 * The repository's launcher: `app/cli/kreconcile.js` started as a process (Node + tsx on the
 * sources), with real argv, stdin pipe, stdout/stderr and exit codes. The packed bin (the compiled
 * CLI) is tested by test/package/pack-install.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NOW } from './support/scenarios.js';

const kreconcile = (args: ReadonlyArray<string>, input?: string) =>
  spawnSync(process.execPath, ['app/cli/kreconcile.js', ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });

describe('the kreconcile executable', () => {
  it('plans from files and exits 2 with --exit-code when something would change', () => {
    const result = kreconcile([
      'plan',
      '-f',
      'examples/webapp/app.yaml',
      '--snapshot',
      'examples/webapp/snapshots/drifted-observed.yaml',
      '--now',
      NOW,
      '--exit-code',
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(2);
    expect(result.stdout).toBe(readFileSync('test/cli/golden/webapp/drifted-observed.txt', 'utf8'));
  });

  it('reads stdin through a pipe and reports bad input as one line, exit 1, no stack trace', () => {
    const result = kreconcile(
      ['plan', '-f', '-'],
      'apiVersion: kreconcile.io/v1alpha1\nkind: Application\nmetadata: [\n',
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: <stdin>:\d+:\d+: document 1: malformed YAML: [^\n]+\n$/);
  });
});
