/** `kreconcile run` with hooks and TOSCA: the flags, checked; the examples, converging in the embedded cluster. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/support/run-cli.js';

const base = ['run', '--memory', '--exit-when-converged', '--log-level', 'error', '--timeout', '30s'];

describe('kreconcile run: hooks and TOSCA', () => {
  it.each([
    [['--callback-tls-cert', 'cert.pem'], '--callback-tls-cert and --callback-tls-key go together'],
    [['--callback-tls-cert', 'cert.pem', '--callback-tls-key', 'key.pem'], 'need --callback-listen'],
    [['--callback-url', 'ftp://example.com'], '--callback-url ftp://example.com: use an http or https URL'],
    [['--callback-url', 'not a url'], 'not a valid URL'],
    [['--shutdown-grace', 'soon'], '--shutdown-grace soon: expected a duration'],
  ])('refuses %j', async (flags, message) => {
    const result = await runCli([...base, '-f', 'examples/hooks/complete.yaml', ...flags]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it('runs the hooks example with callbacks on their own listener', async () => {
    const result = await runCli([
      ...base,
      '-f',
      'examples/hooks/complete.yaml',
      '--callback-listen',
      '127.0.0.1:0',
      '--callback-url',
      'http://127.0.0.1:9/',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/serving hook callbacks on 127\.0\.0\.1:\d+/);
    expect(result.stdout).toContain('+ v1 Secret analytics/report.analytics.kreconcile-hooks');
    expect(result.stdout).toContain('converged: every Application is Ready');
  });

  it('runs the inline TOSCA example', async () => {
    const result = await runCli([...base, '-f', 'examples/tosca/app-inline.yaml']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+ apps/v1 Deployment shop/web');
    expect(result.stdout).toContain('converged: every Application is Ready');
  });

  it('documents the flags in --help', async () => {
    const result = await runCli(['run', '--help']);
    for (const flag of [
      '--callback-url',
      '--callback-listen',
      '--callback-tls-cert',
      '--callback-tls-key',
      '--shutdown-grace',
      '--tosca-file-root',
    ])
      expect(result.stdout).toContain(flag);
  });
});

describe('kreconcile rbac/deploy for hooks', () => {
  it('grants deleting Applications (complete) and Secrets when an Application has hooks; deploy sets POD_NAMESPACE', async () => {
    const rbac = await runCli([
      'rbac',
      '-f',
      'examples/hooks/complete.yaml',
      '--kinds-from-applications',
      '-o',
      'json',
    ]);
    const rules = (
      JSON.parse(rbac.stdout) as {
        items: Array<{ kind: string; rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> }>;
      }
    ).items
      .filter((item) => item.kind === 'ClusterRole')
      .flatMap((item) => item.rules ?? []);
    expect(rules.find((rule) => rule.resources.includes('applications'))?.verbs).toContain('delete');
    expect(rules.filter((rule) => rule.apiGroups.includes('')).flatMap((rule) => rule.resources)).toContain('secrets');
    const deploy = await runCli(['deploy', '-o', 'json']);
    expect(deploy.stdout).toContain('"POD_NAMESPACE"');
  });
});
