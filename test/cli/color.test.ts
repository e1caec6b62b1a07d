/** Colours: only on a terminal, never with --no-color (before or after the command name) or NO_COLOR. */
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const PLAN = [
  'plan',
  '-f',
  'examples/webapp/app.yaml',
  '--snapshot',
  'examples/webapp/snapshots/drifted-observed.yaml',
];
const ANSI = /\u001b\[/;

describe('colour', () => {
  it('colours the plan on a terminal', async () => {
    const result = await runCli(PLAN, { isTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(ANSI);
  });

  it.each([
    ['--no-color after the command', [...PLAN, '--no-color'], {}],
    ['--no-color before the command', ['--no-color', ...PLAN], {}],
    ['NO_COLOR=1', PLAN, { NO_COLOR: '1' }],
    ['TERM=dumb', PLAN, { TERM: 'dumb' }],
  ])('prints the same plan without colours with %s', async (_, argv, env) => {
    const coloured = await runCli(PLAN, { isTTY: true });
    const plain = await runCli(argv, { isTTY: true, env });
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(ANSI);
    expect(plain.stdout).toBe(coloured.stdout.replace(/\u001b\[\d+m/g, ''));
  });

  it('keeps the run progress and its logs plain with --no-color on a terminal', async () => {
    const result = await runCli(
      ['run', '--memory', '-f', 'examples/webapp/app.yaml', '--exit-when-converged', '--no-color'],
      { isTTY: true },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/converged: every Application is Ready/);
    expect(result.stdout + result.stderr).not.toMatch(ANSI);
  });

  it('lists --no-color in the help', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/--no-color +no colours/);
  });
});
