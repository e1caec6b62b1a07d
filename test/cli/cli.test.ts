/** The CLI around the commands: help, version, inputs (stdin, JSON, Lists, several Applications), colours. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { linesOf, runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

describe('help and version', () => {
  it.each(['plan', 'validate', 'snapshot'])('%s --help shows options, examples and exit codes', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: kreconcile ${command} [options]`);
    expect(result.stdout).toContain('-f, --filename <file>');
    expect(result.stdout).toContain('Examples:');
    expect(result.stdout).toContain('Exit codes:');
  });

  it('plan --help documents --exit-code and code 2', async () => {
    const { stdout } = await runCli(['plan', '--help']);
    expect(stdout).toContain('--exit-code');
    expect(stdout).toMatch(/^ {2}2 {2}with --exit-code only: /m);
  });

  it('the program help lists the commands and the exit codes', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['plan', 'validate', 'snapshot'])
      expect(result.stdout).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'));
    expect(result.stdout).toContain('Exit codes:');
  });

  it('without a command it shows the help on stderr and exits 1', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: kreconcile');
  });

  it('prints the version', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: '0.0.0-test\n', stderr: '' });
  });
});

describe('inputs', () => {
  const APP = readFileSync('examples/webapp/app.yaml', 'utf8');

  it('-f - reads the Application from stdin', async () => {
    const fromStdin = await runCli(['plan', '-f', '-', '--now', NOW], { stdin: APP });
    const fromFile = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--now', NOW]);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout.replace('examples/webapp/app.yaml', '<stdin>'));
  });

  it('stdin can be read once only', async () => {
    const result = await runCli(['plan', '-f', '-', '--snapshot', '-'], { stdin: APP });
    expect(linesOf(result.stderr)).toEqual([
      'error: standard input (-) can be read only once: name it in one -f or --snapshot',
    ]);
  });

  it('reads JSON documents', async () => {
    const json = JSON.stringify((await import('yaml')).parse(APP));
    const result = await runCli(['plan', '-f', 'app.json', '--now', NOW], { files: { 'app.json': json } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Plan: 4 to create, 0 to patch, 0 to delete.');
  });

  it('plans several Applications from one multi-document file, with a total', async () => {
    const both = `${APP}---\n${readFileSync('examples/list-control/app.yaml', 'utf8')}`;
    const result = await runCli(['plan', '-f', 'apps.yaml', '--now', NOW], { files: { 'apps.yaml': both } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Application shop/web (apps.yaml, document 1)');
    expect(result.stdout).toContain('Application jobs/queue-worker (apps.yaml, document 2)');
    expect(linesOf(result.stdout).at(-1)).toBe('Total: 6 to create, 0 to patch, 0 to delete.');
  });

  it('reads typed lists from the API (items without apiVersion and kind)', async () => {
    const objects = (await import('yaml')).parse(
      readFileSync('examples/webapp/snapshots/drifted-observed.yaml', 'utf8'),
    ) as { items: Array<Record<string, unknown>> };
    const deployments = objects.items
      .filter((o) => o.kind === 'Deployment')
      .map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    const rest = objects.items.filter((o) => o.kind !== 'Deployment');
    const live = `${JSON.stringify({ apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: {}, items: deployments })}\n---\n${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rest })}`;
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'live.json', '--now', NOW], {
      files: { 'live.json': live },
    });
    expect(result.stdout).toContain('spec.replicas: 5 → 3');
  });

  it('an Application without a namespace lives in -n (default "default")', async () => {
    const bare = APP.replace('  namespace: shop\n', '');
    const defaulted = await runCli(['plan', '-f', 'app.yaml'], { files: { 'app.yaml': bare } });
    expect(defaulted.stdout).toContain('Application default/web');
    expect(defaulted.stdout).toContain('+ v1 ConfigMap default/web-config');
    const namespaced = await runCli(['plan', '-n', 'shop', '-f', 'app.yaml'], { files: { 'app.yaml': bare } });
    expect(namespaced.stdout).toContain('+ v1 ConfigMap shop/web-config');
  });

  it('defaults --now to the current time, to the second', async () => {
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '-o', 'json'], {
      now: new Date('2026-05-06T07:08:09.123Z'),
    });
    expect((JSON.parse(result.stdout) as { metadata: { now: string } }).metadata.now).toBe('2026-05-06T07:08:09Z');
  });
});

describe('the Application in the snapshot', () => {
  it('supplies status, uid, finalizers and generation; an unchanged spec keeps the generation', async () => {
    const result = await runCli([
      'plan',
      '-f',
      'examples/webapp/app.yaml',
      '--snapshot',
      'examples/webapp/snapshots/in-sync.yaml',
      '--now',
      NOW,
      '-o',
      'json',
    ]);
    const [application] = (
      JSON.parse(result.stdout) as {
        applications: Array<{
          application: unknown;
          status: { conditions: Array<{ type: string; lastTransitionTime: string }> };
        }>;
      }
    ).applications;
    expect(application?.application).toMatchObject({ uid: '9d4f2c1e-7b3a-4e5d-8c6f-1a2b3c4d5e6f', generation: 1 });
    // Conditions whose status did not change keep their transition time (docs/behaviour.md §5).
    expect(application?.status.conditions.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(
      '2026-03-01T09:16:01Z',
    );
  });
});

describe('colours', () => {
  const args = [
    'plan',
    '-f',
    'examples/webapp/app.yaml',
    '--snapshot',
    'examples/webapp/snapshots/drifted-observed.yaml',
    '--now',
    NOW,
  ];

  it('on a terminal, symbols are coloured', async () => {
    const result = await runCli(args, { isTTY: true });
    expect(result.stdout).toContain('\u001b[33m  ~ apps/v1 Deployment shop/web\u001b[39m');
  });

  it.each([
    ['not a terminal', { isTTY: false }],
    ['NO_COLOR set', { isTTY: true, env: { NO_COLOR: '1' } }],
    ['TERM=dumb', { isTTY: true, env: { TERM: 'dumb' } }],
  ] as const)('no colour when %s', async (_case, options) => {
    expect((await runCli(args, options)).stdout).not.toContain('\u001b[');
  });

  it('never in JSON', async () => {
    expect((await runCli([...args, '-o', 'json'], { isTTY: true })).stdout).not.toContain('\u001b[');
  });
});

describe('defects', () => {
  it('an unexpected exception is one line, its stack only with KRECONCILE_DEBUG', async () => {
    const { Command } = await import('commander');
    const boom = {
      name: 'boom',
      create: () =>
        new Command('boom').action(() => {
          throw new Error('kaboom');
        }),
    };
    const { run } = await import('../../app/cli/main.js');
    const { testIo } = await import('./support/run-cli.js');
    const quiet = testIo();
    expect(await run(['boom'], quiet.io, [boom])).toBe(1);
    expect(quiet.err.join('')).toBe(
      'error: internal error: kaboom (please report it; KRECONCILE_DEBUG=1 shows the stack)\n',
    );
    const debug = testIo({ env: { KRECONCILE_DEBUG: '1' } });
    await run(['boom'], debug.io, [boom]);
    expect(debug.err.join('')).toMatch(/\n\s+at /);
  });
});

describe('an Application being deleted', () => {
  it('plans the deletion of every child it owns, dependents first', async () => {
    const snapshot = readFileSync('examples/webapp/snapshots/in-sync.yaml', 'utf8').replace(
      /^ {4}finalizers:$/m,
      '    deletionTimestamp: "2026-03-02T11:59:00Z"\n    finalizers:',
    );
    const result = await runCli(
      ['plan', '-f', 'examples/webapp/app.yaml', '--snapshot', 'live.yaml', '--now', NOW, '--exit-code'],
      { files: { 'live.yaml': snapshot } },
    );
    expect(result.code).toBe(2);
    expect(linesOf(result.stdout).filter((line) => line.startsWith('  - '))).toEqual([
      '  - networking.k8s.io/v1 Ingress shop/web (the Application is being deleted)',
      '  - apps/v1 Deployment shop/web (the Application is being deleted)',
      '  - v1 Service shop/web (the Application is being deleted)',
      '  - v1 ConfigMap shop/web-config (the Application is being deleted)',
    ]);
  });
});
