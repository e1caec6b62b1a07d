/**
 * The documentation shows real output, and its commands run as written: examples are checked
 * against what the CLI prints, and the runnable commands of the docs are extracted and run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../app/cli/commands/index.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_GUARD_DENIED, EXIT_NOT_CONVERGING, EXIT_OK } from '../../app/cli/exit-codes.js';
import { FINALIZER } from '../../core/internal.js';
import { runCli, testIo } from './support/run-cli.js';

const read = (path: string): string => readFileSync(path, 'utf8');

describe('docs', () => {
  it.each(['webapp/drifted-observed', 'webapp/foreign-object'])('docs/cli.md shows the real text plan %s', (name) => {
    expect(read('docs/cli.md')).toContain(read(`test/cli/golden/${name}.txt`).trimEnd());
  });

  it('docs/cli.md shows a real error line', async () => {
    const app = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: shop
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: "1"
  observerSchema:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: 3
`;
    const result = await runCli(['validate', '-f', 'app.yaml'], { files: { 'app.yaml': app } });
    expect(read('docs/cli.md')).toContain(result.stderr.trimEnd());
  });

  it('docs/plan-output.md shows the real JSON plan (status elided)', async () => {
    const shown = /```json\n([\s\S]*?)\n```/.exec(read('docs/plan-output.md'))?.[1] ?? '';
    const documented = JSON.parse(shown) as { applications: Array<Record<string, unknown>> };
    const result = await runCli([
      'plan',
      '-f',
      'examples/list-control/app.yaml',
      '--snapshot',
      'examples/list-control/snapshots/list-too-long.yaml',
      '--now',
      '2026-03-02T12:00:00Z',
      '-o',
      'json',
    ]);
    const actual = JSON.parse(result.stdout) as { applications: Array<Record<string, unknown>> };
    const withoutStatus = (document: { applications: Array<Record<string, unknown>> }) => ({
      ...document,
      applications: document.applications.map(({ status: _status, ...rest }) => rest),
    });
    expect(withoutStatus(documented)).toEqual(withoutStatus(actual));
  });

  it('docs/cli.md documents every exit code plan uses', () => {
    const docs = read('docs/cli.md');
    for (const code of [EXIT_OK, EXIT_ERROR, EXIT_CHANGES, EXIT_GUARD_DENIED, EXIT_NOT_CONVERGING])
      expect(docs).toContain(`| ${code} |`);
  });

  it('docs/cli.md documents every flag of every command', () => {
    const docs = read('docs/cli.md');
    const context = { io: testIo().io, exit: () => undefined };
    const undocumented = COMMANDS.flatMap((command) =>
      command
        .create(context)
        .options.filter(
          (option) => !docs.includes(`\`${option.long ?? option.flags}`) && !docs.includes(`\`${option.flags}`),
        )
        .map((option) => `${command.name} ${option.long ?? option.flags}`),
    );
    expect(undocumented).toEqual([]);
  });
});

/** The shell lines of a document's sh/bash blocks, continuations joined, comments dropped. */
const shellLines = (path: string): ReadonlyArray<string> =>
  [...read(path).matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].flatMap((block) =>
    (block[1] ?? '')
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );

/** A shell line's words (single and double quotes; no expansion). */
const words = (line: string): ReadonlyArray<string> =>
  [...line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)].map(
    (m) => m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3] ?? '',
  );

const KRECONCILE = /^(?:npm run kreconcile -- |npx kreconcile |kreconcile )(.*)$/;

/**
 * The kreconcile argv of a doc line that runs offline as written from the repository root: no
 * cluster (no --kubeconfig/--context, run only with --memory --exit-when-converged), no network
 * (no --allow-tosca-fetch: its example URL is a placeholder host; test/cli/tosca-fetch.test.ts serves one), no pipe or
 * redirection, no placeholder, and every -f/--snapshot file present. Undefined otherwise.
 */
const runnable = (line: string): ReadonlyArray<string> | undefined => {
  const match = KRECONCILE.exec(line);
  if (match === null || /[|;<>`$]/.test(match[1] ?? '')) return undefined;
  const argv = words(match[1] ?? '');
  if (
    argv.some((word) =>
      ['--kubeconfig', '--context', '--in-cluster', '--leader-elect', '--allow-tosca-fetch'].includes(word),
    )
  )
    return undefined;
  if (argv[0] === 'run' && !(argv.includes('--memory') && argv.includes('--exit-when-converged'))) return undefined;
  // apply writes to a cluster; serve runs until stopped (test/cli/kubectl-session.test.ts runs it).
  if (argv[0] === 'apply' || argv[0] === 'serve') return undefined;
  const files = argv.filter(
    (_, i) =>
      ['-f', '--filename', '--snapshot', '--policy'].includes(argv[i - 1] ?? '') || (argv[0] === 'show' && i === 1),
  );
  return files.every((file) => existsSync(file)) ? argv : undefined;
};

const DOCS = [
  'README.md',
  'docs/testing.md',
  'docs/plan-output.md',
  'docs/cli.md',
  'docs/hooks.md',
  'docs/tosca.md',
  'docs/install.md',
  'docs/runtime.md',
  'examples/README.md',
];

describe('the commands of the docs, run as written', () => {
  const commands = DOCS.flatMap((doc) =>
    shellLines(doc).flatMap((line) => {
      const argv = runnable(line);
      return argv === undefined ? [] : [[doc, line, argv] as const];
    }),
  );

  it('finds runnable commands', () => {
    expect(commands.length).toBeGreaterThan(5);
  });

  it.each(commands)(
    '%s: %s',
    async (_doc, _line, argv) => {
      const result = await runCli(argv, { env: { NO_COLOR: '1' } });
      expect(result.stderr).not.toMatch(/^error:/m);
      expect([0, 2]).toContain(result.code);
    },
    60_000,
  );
});

describe('docs that were wrong when followed literally', () => {
  it('docs/runtime.md names the finalizer the operator adds', async () => {
    const result = await runCli(['run', '--memory', '-f', 'examples/webapp/app.yaml', '--exit-when-converged']);
    const added = /added finalizer (\S+)/.exec(result.stdout)?.[1];
    expect(added).toBe(FINALIZER);
    const named = [...read('docs/runtime.md').matchAll(/finalizer\** `([^`]+)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(name).toBe(added);
  }, 60_000);

  it.skipIf(spawnSync('jq', ['--version']).status !== 0)(
    'docs/plan-output.md: its jq queries work on the document its commands make, also from a saved plan',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kreconcile-jq-'));
      try {
        const saved = await runCli([
          'plan',
          '-f',
          'examples/webapp/app.yaml',
          '--snapshot',
          'examples/webapp/snapshots/drifted-observed.yaml',
          '--out',
          join(dir, 'plan.json'),
        ]);
        expect(saved.code).toBe(0);
        const lines = shellLines('docs/plan-output.md');
        // The plan commands, with their redirection into the scratch directory.
        for (const line of lines.filter((l) => KRECONCILE.test(l))) {
          const [command = '', target = ''] = line.split(/\s*>\s*/);
          const argv = words(KRECONCILE.exec(command)?.[1] ?? '').map((word) =>
            word === 'plan.json' ? join(dir, word) : word,
          );
          const result = await runCli(argv);
          expect(result.code, line).toBe(0);
          writeFileSync(join(dir, target), result.stdout);
        }
        const queries = lines.filter((l) => l.startsWith('jq '));
        expect(queries.length).toBeGreaterThan(0);
        for (const query of queries) {
          const argv = words(query).slice(1);
          // Exit 0 (jq -e: the gate passes; this plan deletes nothing): throws otherwise.
          execFileSync('jq', argv, { cwd: dir, encoding: 'utf8' });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(spawnSync('kubectl', ['version', '--client']).status !== 0)(
    'docs/testing.md §5: the endpoint its snippet serves answers the kubectl commands after it',
    () => {
      const section = read('docs/testing.md').split('## 5.')[1] ?? '';
      const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
      const dir = mkdtempSync(join(tmpdir(), 'kreconcile-testing-doc-'));
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        // The kubectl commands after the snippet (the ones before it use `kreconcile serve`).
        const after = section.slice(section.indexOf(snippet) + snippet.length);
        const kubectl = (/```bash\n([\s\S]*?)```/.exec(after)?.[1] ?? '')
          .split('\n')
          .filter((line) => line.startsWith('kubectl ') && !line.includes(' -f '))
          .map((line) =>
            words(line.replace(/\s+#.*$/, ''))
              .slice(1)
              .map((w) => (w === '/tmp/kubeconfig' ? kubeconfig : w)),
          );
        expect(kubectl.length).toBeGreaterThan(0);
        const script = snippet
          .replace("from 'kreconcile/testing'", `from ${JSON.stringify(resolve('app/testing/index.ts'))}`)
          .replaceAll('/tmp/kubeconfig', kubeconfig)
          .replace(
            'await served.close();',
            // kubectl runs as a child process while this one serves: asynchronously, not to block the server.
            `const { execFile } = await import('node:child_process');
const { promisify } = await import('node:util');
for (const argv of ${JSON.stringify(kubectl)}) await promisify(execFile)('kubectl', argv);
await served.close();`,
          );
        writeFileSync(join(dir, 'snippet.mts'), script);
        const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'snippet.mts')], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("README: the install section's commands exist today", () => {
    const install = read('README.md').split('## Install')[1]?.split('\n## ')[0] ?? '';
    const manifest = JSON.parse(read('package.json')) as { name: string; version: string };
    const commands = [...install.matchAll(/```bash\n([\s\S]*?)```/g)].flatMap((b) => (b[1] ?? '').split('\n'));
    // The registry has no kreconcile yet: no command may install it from there.
    expect(commands.filter((line) => /^npm (install|i) kreconcile\b/.test(line))).toEqual([]);
    expect(commands.some((line) => line.includes(`${manifest.name}-${manifest.version}.tgz`))).toBe(true);
    expect(commands.some((line) => /^npm ci && npm pack/.test(line))).toBe(true);
  });
});
