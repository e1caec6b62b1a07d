/**
 * The repository's launcher: `app/cli/kreconcile.js` started as a process (Node + tsx on the
 * sources), with real argv, stdin pipe, stdout/stderr and exit codes. The packed bin (the compiled
 * CLI) is tested by test/package/pack-install.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, supportedNode } from '../../app/cli/node-version.js';
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

/** Preloaded before the launcher: this process reports an older Node, as a machine's default Node would. */
const pretendNode = (version: string): string =>
  `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`;

/** A Node older than 22.19 on this machine's PATH (many machines have 20), for the real thing. */
const oldNode = (() => {
  const found = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' }).stdout.split('\n');
  return found.find((path) => {
    if (path === '') return false;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return version !== '' && !supportedNode(version);
  });
})();

const ONE_LINE_ADVICE =
  /^error: kreconcile needs Node >= 22\.19; this is [\d.]+: install Node 22\.19 or later[^\n]*\n$/;

describe('the kreconcile executable on a Node that is too old', () => {
  it.each([
    ['--version'],
    ['plan', '--kubeconfig', 'kc', '-f', 'examples/webapp/app.yaml'],
    ['run', '--kubeconfig', 'kc'],
  ])('says in one line which Node it needs, before loading anything: %s', (...args) => {
    const result = spawnSync(process.execPath, ['--import', pretendNode('20.20.2'), 'app/cli/kreconcile.js', ...args], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(result.stderr).toMatch(ONE_LINE_ADVICE);
    expect(result.stderr).toContain('this is 20.20.2');
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });

  it.skipIf(oldNode === undefined)(`says so on this machine's old Node too (${oldNode ?? 'none found'})`, () => {
    const result = spawnSync(oldNode ?? 'node', ['app/cli/kreconcile.js', 'run', '--kubeconfig', 'kc'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).toMatch(ONE_LINE_ADVICE);
    expect(result.stderr).not.toMatch(/ at |npm or npx/);
    expect(result.status).toBe(1);
  });

  it.each([
    ['20.20.2', false],
    ['v22.18.0', false],
    ['22.19.0', true],
    ['24.1.0', true],
  ])('knows whether Node %s is enough', (version, enough) => {
    expect(supportedNode(version)).toBe(enough);
    expect(nodeVersionProblem(version) === undefined).toBe(enough);
  });
});
