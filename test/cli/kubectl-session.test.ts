/**
 * A kubectl session against `kreconcile serve`: the real kubectl (client-go: protobuf bodies,
 * Table requests, strategic merge patches, the scale subresource, Event field selectors) against
 * the in-memory API server with the operator running inside, as a new user would type it.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKubectl } from '../../tools/envtest/binaries.js';
import { apiServerRequired } from '../support/kubernetes-global-setup.js';
import { eventually } from '../support/eventually.js';
import { runCli } from './support/run-cli.js';

// The kubectl tools/k8s-bin builds with the control plane (CI has it; it must not skip there).
const kubectlPath = findKubectl();
const hasKubectl =
  kubectlPath !== undefined && spawnSync(kubectlPath, ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!hasKubectl && apiServerRequired())
  throw new Error('kubectl is required in CI: npm test builds it (tools/k8s-bin)');
const run = promisify(execFile);

let dir: string;
let server: ChildProcess;
let output = '';
let env: NodeJS.ProcessEnv;

const kubectl = async (...args: ReadonlyArray<string>): Promise<{ stdout: string; stderr: string }> =>
  run(kubectlPath ?? 'kubectl', [...args], { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });

/** kubectl's failure as its stderr (the one line a user reads). */
const kubectlFailure = async (...args: ReadonlyArray<string>): Promise<string> => {
  try {
    await kubectl(...args);
  } catch (error) {
    return (error as { stderr?: string }).stderr ?? String(error);
  }
  throw new Error(`kubectl ${args.join(' ')} succeeded`);
};

describe.skipIf(!hasKubectl)('kubectl against kreconcile serve', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kreconcile-kubectl-'));
    const kubeconfig = join(dir, 'kubeconfig');
    env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir, NO_COLOR: '1' };
    server = spawn(
      process.execPath,
      ['app/cli/kreconcile.js', 'serve', '--operator', '--log-level', 'warn', '--write-kubeconfig', kubeconfig],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => expect(output).toContain('operator running inside'), 60_000);
  }, 90_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a namespace and a ConfigMap (protobuf bodies)', async () => {
    expect((await kubectl('create', 'namespace', 'shop')).stdout).toBe('namespace/shop created\n');
    expect((await kubectl('create', 'configmap', 'settings', '-n', 'shop', '--from-literal=mode=fast')).stdout).toBe(
      'configmap/settings created\n',
    );
    expect((await kubectl('get', 'configmap', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.mode}')).stdout).toBe(
      'fast',
    );
  });

  it('applies an Application and shows the CRD printer columns, Ready once the operator converged it', async () => {
    // No /openapi documents yet: kubectl's client-side validation is off.
    expect((await kubectl('apply', '-f', 'examples/webapp/app.yaml')).stdout).toBe(
      'application.kreconcile.io/web created\n',
    );
    await eventually(async () => {
      const table = (await kubectl('get', 'applications', '-n', 'shop')).stdout.split('\n');
      expect(table[0]?.split(/\s+/)).toEqual(['NAME', 'READY', 'REASON', 'AGE']);
      expect(table[1]).toMatch(/^web\s+True\s+\S+\s+\d+s$/);
    }, 30_000);
  }, 60_000);

  it('prints built-in kinds with the real columns: get all, get deploy -o wide, and answers auth can-i', async () => {
    await eventually(async () => {
      const all = (await kubectl('get', 'all', '-n', 'shop')).stdout;
      expect(all).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/m);
      expect(all).toMatch(/^service\/web\s+ClusterIP\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\d+s$/m);
      expect(all).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
      expect(all).toMatch(/^deployment\.apps\/web\s+\d+\/\d+\s+\d+\s+\d+\s+\d+s$/m);
    }, 30_000);
    const wide = (await kubectl('get', 'deploy', 'web', '-n', 'shop', '-o', 'wide')).stdout.split('\n');
    expect(wide[0]?.split(/\s+/)).toEqual([
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'AGE',
      'CONTAINERS',
      'IMAGES',
      'SELECTOR',
    ]);
    expect((await kubectl('auth', 'can-i', 'create', 'deployments', '-n', 'shop')).stdout).toBe('yes\n');
  }, 60_000);

  it('edits through KUBE_EDITOR, patches, scales and describes', async () => {
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/mode: fast/mode: slow/" "$1"\n');
    chmodSync(editor, 0o755);
    expect(
      // No /openapi documents yet: kubectl's client-side validation is off.
      (
        await run(kubectlPath ?? 'kubectl', ['edit', 'configmap', 'settings', '-n', 'shop'], {
          env: { ...env, KUBE_EDITOR: editor },
        })
      ).stdout,
    ).toBe('configmap/settings edited\n');
    expect((await kubectl('get', 'configmap', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.mode}')).stdout).toBe(
      'slow',
    );
    expect((await kubectl('patch', 'configmap', 'settings', '-n', 'shop', '-p', '{"data":{"extra":"1"}}')).stdout).toBe(
      'configmap/settings patched\n',
    );
    expect((await kubectl('scale', 'deployment', 'web', '-n', 'shop', '--replicas=5')).stdout).toBe(
      'deployment.apps/web scaled\n',
    );
    // The operator owns spec.replicas (observed): it sets it back.
    await eventually(
      async () =>
        expect(
          (await kubectl('get', 'deployment', 'web', '-n', 'shop', '-o', 'jsonpath={.spec.replicas}')).stdout,
        ).toBe('3'),
      30_000,
    );
    const described = (await kubectl('describe', 'application', 'web', '-n', 'shop')).stdout;
    expect(described).toMatch(/^Name: +web$/m);
    expect(described).toMatch(/^Events:/m);
  }, 90_000);

  it('refuses what the real server refuses: a ConfigMap over 1 MiB', async () => {
    const big = join(dir, 'big.json');
    writeFileSync(
      big,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big', namespace: 'shop' },
        data: { blob: 'x'.repeat(2 * 1024 * 1024) },
      }),
    );
    expect(await kubectlFailure('create', '-f', big)).toContain(
      'The ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes',
    );
  });

  it('deletes the Application, and the operator removes its children', async () => {
    // kubectl 1.36 adds the namespace; earlier ones do not.
    expect((await kubectl('delete', 'application', 'web', '-n', 'shop')).stdout).toMatch(
      /^application\.kreconcile\.io "web" deleted( from shop namespace)?\n$/,
    );
    await eventually(
      async () => expect((await kubectl('get', 'deployments', '-n', 'shop', '-o', 'name')).stdout).toBe(''),
      30_000,
    );
    expect((await kubectl('get', 'applications', '-n', 'shop', '-o', 'name')).stdout).toBe('');
  }, 60_000);

  it('stops on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM: shutting down');
    expect(output).toContain('stopped');
  }, 30_000);
});

describe('kreconcile serve without kubectl', () => {
  it('serves the loaded files with a kubeconfig any client can use, and stops on SIGTERM with exit 0', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'kreconcile-serve-'));
    const kubeconfig = join(scratch, 'kubeconfig');
    const child = spawn(
      process.execPath,
      ['app/cli/kreconcile.js', 'serve', '-f', 'examples/webapp/app.yaml', '--write-kubeconfig', kubeconfig],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    try {
      await eventually(() => expect(text).toContain(`export KUBECONFIG=${kubeconfig}`), 60_000);
      const url = /serving on (http:\/\/127\.0\.0\.1:\d+) with 1 Application\(s\)/.exec(text)?.[1];
      expect(readFileSync(kubeconfig, 'utf8')).toContain(`server: ${url ?? '?'}`);
      const listed = (await (await fetch(`${url ?? ''}/apis/kreconcile.io/v1alpha1/applications`)).json()) as {
        items: Array<{ metadata: { namespace: string; name: string } }>;
      };
      expect(listed.items.map((a) => `${a.metadata.namespace}/${a.metadata.name}`)).toEqual(['shop/web']);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(text).toContain('stopped');
  }, 90_000);

  it.each([
    [['--port', 'http'], 'error: --port http: expected a port number (0 to 65535; 0 picks a free one)\n'],
    [['-f', 'missing.yaml'], /^error: missing\.yaml: /],
  ])('refuses %j in one line', async (flags, message) => {
    const result = await runCli(['serve', ...flags]);
    expect(result.code).toBe(1);
    if (typeof message === 'string') expect(result.stderr).toBe(message);
    else expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
