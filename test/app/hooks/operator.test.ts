/**
 * The operator serves the hook callbacks: beside /healthz on `listen` by default, or on their own
 * listener, with TLS when given a certificate; the controller plans with the tokens it keeps.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import type { Resource } from '../../../core/internal.js';
import { applicationOf, call, CALLBACK_URL, tokenIn } from './support.js';
import { runUntil } from '../../support/operator-clock.js';

const manifest = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'job' },
    spec: { containers: [{ name: 'job', image: 'busybox:1.36' }] },
  },
];
const SECRET_NAME = 'job.default.kreconcile-hooks';

let operator: Operator | undefined;
afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

/** Lets watches, timers and workers run for `ms` of clock time, or until `done` holds. */
const find = (cluster: MemoryCluster, kind: string, name: string): Resource | undefined =>
  cluster.objects().find((object) => object.kind === kind && object.metadata.name === name);

const setUp = async (hooks: Parameters<typeof startOperator>[0]['hooks'], listen = true) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, workloads: true });
  operator = await startOperator({
    cluster,
    clock,
    random: () => 0.5,
    workers: 1,
    ...(listen ? { listen: { host: '127.0.0.1', port: 0 } } : {}),
    hooks,
  });
  await cluster.create(applicationOf('default', 'job', { manifest, hooks: ['complete'] }))();
  await runUntil(
    clock,
    () => find(cluster, 'Pod', 'job') !== undefined && find(cluster, 'Secret', SECRET_NAME) !== undefined,
  );
  return { clock, cluster };
};

describe('the operator and the hook callbacks', () => {
  it('serves them beside /healthz by default; complete deletes the Application and its children', async () => {
    const { clock, cluster } = await setUp({ callbackUrl: CALLBACK_URL });
    const address = operator?.address;
    const base = `http://127.0.0.1:${address?.port}/v1/namespaces/default/applications/job/complete`;
    const token = tokenIn(find(cluster, 'Secret', SECRET_NAME), 'complete-token');
    expect((await call(base, 'POST', 'wrong')).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${address?.port}/healthz`)).status).toBe(200);
    expect((await call(base, 'POST', token)).status).toBe(202);
    await runUntil(clock, () => find(cluster, 'Application', 'job') === undefined);
    expect(find(cluster, 'Application', 'job')).toBeUndefined();
    expect(find(cluster, 'Pod', 'job')).toBeUndefined();
    expect(find(cluster, 'Secret', SECRET_NAME)).toBeUndefined();
  });

  const hasOpenssl = (() => {
    try {
      execFileSync('openssl', ['version']);
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasOpenssl)('serves them on their own TLS listener when given one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kreconcile-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'));
    const { cluster } = await setUp(
      {
        callbackUrl: CALLBACK_URL,
        listen: { host: '127.0.0.1', port: 0 },
        tls: { cert, key: readFileSync(join(dir, 'key.pem')) },
      },
      false,
    );
    const port = operator?.callbackAddress?.port;
    const token = tokenIn(find(cluster, 'Secret', SECRET_NAME), 'complete-token');
    const post = (bearer: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/namespaces/default/applications/job/complete',
            ca: cert,
            headers: { authorization: `Bearer ${bearer}` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect(await post('wrong')).toBe(401);
    expect(await post(token)).toBe(202);
  });
});
