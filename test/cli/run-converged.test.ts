/**
 * `kreconcile run --memory --exit-when-converged`, the CI smoke test the docs suggest: it says
 * "converged" only when every Application loaded (from every -f file) is Ready, and on timeout
 * names each one that is not (exit 1).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const application = (name: string, child: string): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: smoke
spec:
  manifest:
${child}`;

// A ConfigMap is Ready once it exists; a bare Pod never is here (the in-memory cluster runs no kubelet).
const configMap = `    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
      data:
        mode: fast
`;
const pod = (name: string): string => `    - apiVersion: v1
      kind: Pod
      metadata:
        name: ${name}
      spec:
        containers:
          - name: main
            image: busybox:1.36
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kreconcile-converged-'));
  await writeFile(join(dir, 'a-ready.yaml'), application('a-ready', configMap));
  // Two Applications in one file, one in another: all of them count.
  await writeFile(
    join(dir, 'b-pending.yaml'),
    `${application('b-pending', pod('b'))}---\n${application('c-pending', pod('c'))}`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('kreconcile run --exit-when-converged', () => {
  it('does not say converged while some loaded Applications are not Ready, and names them on timeout', async () => {
    const result = await runCli([
      'run',
      '--memory',
      '-R',
      '-f',
      dir,
      '--exit-when-converged',
      '--workers',
      '1',
      '--timeout',
      '3s',
      '--log-level',
      'error',
    ]);
    expect(result.stdout).not.toContain('converged: every Application is Ready');
    expect(result.code).toBe(1);
    const failure = result.stderr.split('\n').find((line) => line.includes('not converged within 3000 ms'));
    expect(failure).toBeDefined();
    expect(failure).toContain('smoke/b-pending is not Ready');
    expect(failure).toContain('smoke/c-pending is not Ready');
    expect(failure).not.toContain('a-ready');
  }, 30_000);

  it('says converged once every loaded Application is Ready', async () => {
    const result = await runCli(['run', '--memory', '-f', join(dir, 'a-ready.yaml'), '--exit-when-converged']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('converged: every Application is Ready');
  }, 30_000);
});

describe('kreconcile run output', () => {
  const argv = ['run', '--memory', '-f', 'examples/webapp/app.yaml', '--exit-when-converged', '--log-level', 'debug'];

  it('writes progress text to stdout and JSON logs to stderr when stderr is not a terminal, even if stdout is', async () => {
    const result = await runCli(argv, { isTTY: true, stderrIsTTY: false, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    const logs = result.stderr.split('\n').filter((line) => line !== '');
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(result.stdout).not.toMatch(/^\{/m);
    expect(result.stdout).toContain('converged: every Application is Ready');
  }, 30_000);

  it('writes readable logs when stderr is a terminal, even if stdout is not', async () => {
    const result = await runCli(argv, { isTTY: false, stderrIsTTY: true, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    const logs = result.stderr.split('\n').filter((line) => line !== '');
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(line).not.toMatch(/^\{/);
    expect(result.stdout).not.toMatch(/^\{/m);
  }, 30_000);
});
