/** `--exit-code`: 0 nothing would change, 2 something would, 1 on error (terraform plan -detailed-exitcode). */
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { planArgs, SCENARIOS } from './support/scenarios.js';

describe('plan --exit-code', () => {
  it.each(SCENARIOS.map((s) => [`${s.example}/${s.name}`, s, s.expect.result === 'NoChanges' ? 0 : 2] as const))(
    '%s exits %i',
    async (_name, scenario, code) => {
      const result = await runCli([...planArgs(scenario), '--exit-code']);
      expect(result.code).toBe(code);
      expect(result.stdout).not.toBe('');
    },
  );

  it('exits 1 on an error', async () => {
    expect((await runCli(['plan', '-f', 'examples/song-artist/app.yaml', '--exit-code'])).code).toBe(1);
    expect((await runCli(['plan', '-f', 'missing.yaml', '--exit-code'])).code).toBe(1);
  });

  it('does not count finalizer bookkeeping alone as a change', async () => {
    // The children are in sync and ours, but the Application was never recorded: only the finalizer is added.
    const children = 'examples/webapp/snapshots/in-sync.yaml';
    const withoutApplication = (await import('node:fs'))
      .readFileSync(children, 'utf8')
      .replace(/^- apiVersion: kreconcile\.io\/v1alpha1[\s\S]*?(?=^- apiVersion: v1\n {2}data:)/m, '');
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'live.yaml', '--exit-code'], {
      files: { 'live.yaml': withoutApplication },
    });
    expect(result.stdout).toContain('· add finalizer kreconcile.io/cleanup');
    expect(result.stdout).toContain('Plan: 0 to create, 0 to patch, 0 to delete.');
    expect(result.code).toBe(0);
  });

  it('without --exit-code, a plan with changes exits 0', async () => {
    const drifted = SCENARIOS.find((s) => s.name === 'drifted-observed');
    expect((await runCli(planArgs(drifted ?? SCENARIOS[0]!))).code).toBe(0);
  });
});
