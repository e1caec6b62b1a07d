/**
 * `run` startup problems are one clear line before anything starts, exit 1: a busy or invalid
 * --listen, a missing or broken kubeconfig, an unreachable cluster, a cluster without the
 * Application CRD. And `snapshot` without any kubeconfig says so (not a TLS message).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterError } from '../../core/internal.js';
import { checkCluster } from '../../app/cli/live/startup-check.js';
import { applicationCrd } from '../../app/manifests/crd.js';
import { fakeCluster } from './support/fake-cluster.js';
import { linesOf, runCli, type CliResult } from './support/run-cli.js';

let home: string;
let busy: Server;
let busyPort: number;
let closedPort: number;

const kubeconfigTo = (server: string): string => {
  const path = join(home, `kubeconfig-${server.replace(/\W/g, '_')}`);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-real-token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
  );
  return path;
};

const listening = (): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });

const portOf = (server: Server): number => (server.address() as { port: number }).port;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'kreconcile-startup-'));
  busy = await listening();
  busyPort = portOf(busy);
  const released = await listening();
  closedPort = portOf(released);
  await new Promise((resolve) => released.close(resolve));
});

afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

/** The single error line of a failed start, which printed nothing on stdout (nothing started). */
const oneLine = (result: CliResult): string => {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = linesOf(result.stderr);
  expect(lines).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at |internal error/);
  return lines[0] ?? '';
};

const env = (): Record<string, string> => ({ HOME: home });

describe('kreconcile run: startup errors', () => {
  it('a busy --listen port, before the embedded cluster or any reconcile starts', async () => {
    const line = oneLine(
      await runCli(['run', '--memory', '-f', 'examples/webapp/app.yaml', '--listen', `127.0.0.1:${busyPort}`], {
        env: env(),
      }),
    );
    expect(line).toBe(
      `error: --listen 127.0.0.1:${busyPort}: the port is already in use by another process: stop it or pick another port`,
    );
  });

  it('a busy --callback-listen port', async () => {
    const line = oneLine(
      await runCli(
        ['run', '--memory', '-f', 'examples/webapp/app.yaml', '--callback-listen', `127.0.0.1:${busyPort}`],
        { env: env() },
      ),
    );
    expect(line).toMatch(
      new RegExp(`^error: --callback-listen 127\\.0\\.0\\.1:${busyPort}: the port is already in use`),
    );
  });

  it.each(['99999', 'localhost:http', '127.0.0.1:'])('an invalid --listen %s', async (address) => {
    expect(
      oneLine(await runCli(['run', '--memory', '-f', 'examples/webapp/app.yaml', '--listen', address], { env: env() })),
    ).toBe(
      `error: --listen ${address}: expected [host]:port with a port from 0 to 65535, e.g. :8080 or 127.0.0.1:8080`,
    );
  });

  it('a numeric flag that is not a number of its kind, or a flow-control flag given with --memory', async () => {
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [
        ['--qps', '0'],
        "error: option '--qps <n>' argument '0' is invalid. expected a number above 0 in decimal notation, e.g. 50 or 2.5 (see --help)",
      ],
      [
        ['--qps', '1e3'],
        "error: option '--qps <n>' argument '1e3' is invalid. expected a number above 0 in decimal notation, e.g. 50 or 2.5 (see --help)",
      ],
      [
        ['--burst', '1.5'],
        "error: option '--burst <n>' argument '1.5' is invalid. expected a whole number ≥ 1 (see --help)",
      ],
      [
        ['--max-in-flight', 'many'],
        "error: option '--max-in-flight <n>' argument 'many' is invalid. expected a whole number ≥ 1 (see --help)",
      ],
      [
        ['--workers', 'abc'],
        "error: option '--workers <n>' argument 'abc' is invalid. expected a whole number ≥ 1 (see --help)",
      ],
      [
        ['--workers', '0'],
        "error: option '--workers <n>' argument '0' is invalid. expected a whole number ≥ 1 (see --help)",
      ],
      [
        ['--shards', 'x', '--shard', '0'],
        "error: option '--shards <n>' argument 'x' is invalid. expected a whole number from 1 to 1024 (see --help)",
      ],
      [
        ['--shards', '2', '--shard', '-1'],
        "error: option '--shard <i>' argument '-1' is invalid. expected a whole number from 0 to 1023 (see --help)",
      ],
      [
        ['--qps', '5', '--memory', '-f', 'examples/webapp/app.yaml'],
        'error: --qps: limit requests to a real API server; drop with --memory',
      ],
    ];
    for (const [flags, message] of cases)
      expect(oneLine(await runCli(['run', ...flags, '--kubeconfig', join(home, 'nope')], { env: env() }))).toBe(
        message,
      );
  });

  it('no kubeconfig at all', async () => {
    expect(oneLine(await runCli(['run'], { env: env() }))).toBe(
      'error: no kubeconfig: --kubeconfig is not given, KUBECONFIG is not set and ~/.kube/config does not exist: name one with --kubeconfig',
    );
  });

  it('a missing --kubeconfig file, and a KUBECONFIG naming none', async () => {
    expect(oneLine(await runCli(['run', '--kubeconfig', join(home, 'nope')], { env: env() }))).toBe(
      `error: --kubeconfig ${join(home, 'nope')}: no such file: check the path`,
    );
    expect(oneLine(await runCli(['run'], { env: { ...env(), KUBECONFIG: join(home, 'nope') } }))).toMatch(
      /^error: KUBECONFIG=\S+ names no existing file: /,
    );
  });

  it('a kubeconfig that is not one', async () => {
    const broken = join(home, 'broken');
    writeFileSync(broken, 'clusters: [\n');
    expect(oneLine(await runCli(['run', '--kubeconfig', broken], { env: env() }))).toMatch(
      new RegExp(`^error: cannot load kubeconfig ${broken}: `),
    );
  });

  it('an unknown --context', async () => {
    const path = kubeconfigTo(`https://127.0.0.1:${closedPort}`);
    expect(oneLine(await runCli(['run', '--kubeconfig', path, '--context', 'staging'], { env: env() }))).toMatch(
      /^error: cannot load kubeconfig \S+: no context named staging$/,
    );
  });

  it('an unreachable cluster: one line, no retry loop', async () => {
    const path = kubeconfigTo(`https://127.0.0.1:${closedPort}`);
    const line = oneLine(await runCli(['run', '--kubeconfig', path, '--log-level', 'debug'], { env: env() }));
    expect(line).toMatch(
      /^error: cannot reach the cluster \(.*ECONNREFUSED.*\): check --kubeconfig\/--context and that the API server is up$/,
    );
  });
});

describe('the startup check', () => {
  it('names the missing CRD (the API server answers 404 for the kind), and passes once it is served', async () => {
    const withoutCrd = fakeCluster([], {
      failures: { Application: clusterError('UnknownKind', 'the server could not find the requested resource') },
    });
    expect(await checkCluster(withoutCrd, 'default')).toEqual(
      E.left(
        'the cluster does not serve kreconcile.io/v1alpha1 Application: install the CRD first (kreconcile crd | kubectl apply -f -)',
      ),
    );
    expect(await checkCluster(fakeCluster([applicationCrd()]), 'default')).toEqual(E.right(undefined));
  });

  it.each([
    [
      'Unauthorized',
      /^the cluster rejected the credentials \(401 .*\): check the kubeconfig user, token or certificate$/,
    ],
    [
      'Forbidden',
      /^the account may not read Applications \(403 .*\): apply the operator's RBAC \(kreconcile rbac \| kubectl apply -f -\)$/,
    ],
    ['Timeout', /^cannot reach the cluster \(.*\): check --kubeconfig\/--context and that the API server is up$/],
  ] as const)('says what to do about %s', async (tag, expected) => {
    const checked = await checkCluster(
      fakeCluster([applicationCrd()], { failures: { Application: clusterError(tag, 'no') } }),
      'default',
    );
    expect(E.isLeft(checked) ? checked.left : '').toMatch(expected);
  });
});

describe('kreconcile snapshot without a kubeconfig', () => {
  it('says there is none (the executable, whose connect is the real one)', () => {
    const result = spawnSync(
      process.execPath,
      ['app/cli/kreconcile.js', 'snapshot', '-f', 'examples/webapp/app.yaml'],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1' },
        timeout: 60_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: cannot read the cluster: no kubeconfig: --kubeconfig is not given, KUBECONFIG is not set and ~/.kube/config does not exist: name one with --kubeconfig\n',
    );
  });
});
