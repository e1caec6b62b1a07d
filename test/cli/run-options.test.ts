/**
 * `kreconcile run`'s flags decoded on their own (app/cli/commands/run-options.ts): the value the run
 * starts from, and the one-line error for each flag a user gets wrong, without a cluster, a file or a port.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decodeRunFlags, type RunFlags, type RunSettings } from '../../app/cli/commands/run-options.js';

/** The flags as commander hands them over when only `--memory -f app.yaml` is given (its defaults). */
const memoryRun: RunFlags = {
  filename: ['app.yaml'],
  namespace: 'default',
  memory: true,
  workers: '2',
  resync: '10m',
  leaderElectionNamespace: 'default',
  logLevel: 'info',
  drift: [],
  timeout: '60s',
  shutdownDeadline: '30s',
  readiness: 'kstatus',
  progressStatusAfter: '10s',
  shutdownGrace: '5m',
  toscaFileRoot: [],
  toscaAllowHost: [],
};

/** A real cluster (no --memory, no -f). */
const clusterRun: RunFlags = { ...memoryRun, memory: undefined, filename: [] };

const environment = { env: {}, randomSuffix: 'abc123' };

const decoded = (flags: RunFlags, env: Readonly<Record<string, string>> = {}): RunSettings => {
  const result = decodeRunFlags(flags, { ...environment, env });
  if (E.isLeft(result)) throw new Error(`expected the flags to decode, got: ${result.left}`);
  return result.right;
};

const problem = (flags: RunFlags): string => {
  const result = decodeRunFlags(flags, environment);
  if (E.isRight(result)) throw new Error('expected a problem, the flags decoded');
  return result.left;
};

describe('decodeRunFlags', () => {
  it('decodes the defaults: durations in ms, the callback URL of kreconcile-system, a random identity', () => {
    expect(decoded(memoryRun)).toEqual({
      durations: {
        resyncMs: 600_000,
        timeoutMs: 60_000,
        deadlineMs: 30_000,
        shutdownGraceMs: 300_000,
        progressStatusAfterMs: 10_000,
      },
      identity: 'kreconcile-abc123',
      sharding: undefined,
      drifts: [],
      servicePolicy: {},
      flowControl: {},
      callbacks: { callbackUrl: 'http://kreconcile.kreconcile-system.svc:8080' },
      workers: 2,
    });
  });

  it('takes the identity from POD_NAME and this process (a restarted container is a new holder), the callback URL from POD_NAMESPACE', () => {
    const settings = decoded(clusterRun, { POD_NAME: 'kreconcile-7f9c', POD_NAMESPACE: 'ops' });
    expect(settings.identity).toBe('kreconcile-7f9c_abc123');
    expect(settings.callbacks.callbackUrl).toBe('http://kreconcile.ops.svc:8080');
  });

  it('decodes --relist, --listen, --callback-listen with TLS, drifts, shards and flow control', () => {
    const settings = decoded({
      ...clusterRun,
      relist: '1h',
      listen: ':8080',
      callbackListen: '127.0.0.1:9443',
      callbackTlsCert: 'tls.crt',
      callbackTlsKey: 'tls.key',
      shards: '4',
      shard: '1',
      qps: '20',
      burst: '40',
      defaultServiceAccount: 'deployer',
    });
    expect(settings.durations.relistMs).toBe(3_600_000);
    expect(settings.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(settings.callbacks).toEqual({
      callbackUrl: 'http://kreconcile.kreconcile-system.svc:8080',
      listen: { host: '127.0.0.1', port: 9443 },
      tlsFiles: { cert: 'tls.crt', key: 'tls.key' },
    });
    expect(settings.sharding).toEqual({ mode: 'static', shard: 1, shards: 4 });
    expect(settings.flowControl).toEqual({ qps: 20, burst: 40 });
    expect(settings.servicePolicy).toEqual({ defaultServiceAccount: 'deployer' });
    expect(decoded({ ...memoryRun, drift: ['Deployment/web spec.replicas=5'] }).drifts).toEqual([
      { kind: 'Deployment', name: 'web', path: ['spec', 'replicas'], value: 5, text: 'Deployment/web spec.replicas=5' },
    ]);
  });

  it.each<[string, Partial<RunFlags>, string]>([
    ['a duration', { resync: 'soon' }, '--resync soon: expected a duration such as 500ms, 30s, 5m or 1h'],
    [
      'a progress hold over a minute',
      { progressStatusAfter: '2m' },
      '--progress-status-after 2m: at most 1m (a new Application shows no status while its first one is held); 0 writes it at once',
    ],
    ['flow control with --memory', { qps: '5' }, '--qps: limit requests to a real API server; drop with --memory'],
    [
      'a ServiceAccount with --memory',
      { requireServiceAccount: true },
      '--default-service-account and --require-service-account need a real cluster (the in-memory one has no RBAC)',
    ],
    [
      'a listen address',
      { listen: '127.0.0.1:' },
      '--listen 127.0.0.1:: expected [host]:port with a port from 0 to 65535, e.g. :8080 or 127.0.0.1:8080',
    ],
    ['half a TLS pair', { callbackTlsCert: 'tls.crt' }, '--callback-tls-cert and --callback-tls-key go together'],
    [
      'TLS without its own listener',
      { callbackTlsCert: 'tls.crt', callbackTlsKey: 'tls.key' },
      "--callback-tls-cert/--callback-tls-key need --callback-listen (the callbacks' own listener)",
    ],
    ['a callback URL', { callbackUrl: 'ftp://host' }, '--callback-url ftp://host: use an http or https URL'],
    ['--memory without -f', { filename: [] }, '--memory needs Applications: kreconcile run --memory -f app.yaml'],
    ['--shard without --shards', { shard: '1' }, '--shard needs --shards <n> (how many shards there are)'],
  ])('refuses %s with one line naming the flag', (_what, flags, message) => {
    expect(problem({ ...memoryRun, ...flags })).toBe(message);
  });

  it('refuses the --memory demonstrations against a real cluster, and a malformed --qps', () => {
    expect(problem({ ...clusterRun, filename: ['app.yaml'] })).toBe(
      '-f loads Applications into the embedded cluster: use it with --memory (apply them to a real cluster with kubectl)',
    );
    expect(problem({ ...clusterRun, exitWhenConverged: true })).toBe(
      '--drift and --exit-when-converged are demonstrations for --memory',
    );
    expect(problem({ ...clusterRun, qps: '0' })).toBe(
      '--qps 0: expected a number of requests per second above 0, e.g. 50',
    );
    expect(problem({ ...clusterRun, callbackUrl: 'not a url' })).toBe('--callback-url not a url: not a valid URL');
  });

  it('reports the first problem in flag order: durations before listeners', () => {
    expect(problem({ ...memoryRun, timeout: 'later', listen: 'x' })).toBe(
      '--timeout later: expected a duration such as 500ms, 30s, 5m or 1h',
    );
  });
});
