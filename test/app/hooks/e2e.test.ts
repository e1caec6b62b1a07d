/**
 * End to end on the in-memory API server: an Application with hooks gets its Secret and env
 * entries; the callbacks refuse a wrong token (401, nothing changes) and, with the right one,
 * delete the Application and its children (complete) or release them (shutdown).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCallbackHandler, startCallbackServer, type CallbackServer } from '../../../app/hooks/callback-server.js';
import { SHUTDOWN_ACKNOWLEDGED_ANNOTATION, type Resource } from '../../../core/internal.js';
import {
  applicationOf,
  call,
  get,
  getApplication,
  reconcileUntilQuiet,
  snapshot,
  tokenIn,
  world,
  type World,
} from './support.js';

const NS = 'default';
const SECRET = { apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'batch.default.kreconcile-hooks' };
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'worker' };
const CONFIG = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'worker-config' };

const manifest = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'worker-config' }, data: { MODE: 'batch' } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'worker' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'worker' } },
      template: {
        metadata: { labels: { app: 'worker' } },
        spec: {
          initContainers: [{ name: 'migrate', image: 'busybox:1.36' }],
          containers: [
            {
              name: 'worker',
              image: 'busybox:1.36',
              env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'worker-config', key: 'MODE' } } }],
            },
          ],
        },
      },
    },
  },
];

let w: World;
let server: CallbackServer;
const url = (hook: string, name = 'batch') =>
  `http://127.0.0.1:${server.address.port}/v1/namespaces/${NS}/applications/${name}/${hook}`;

const start = async (hooks: ReadonlyArray<string>, graceMs = 60_000): Promise<void> => {
  w = world({ graceMs });
  server = await startCallbackServer({
    listen: { host: '127.0.0.1', port: 0 },
    handler: createCallbackHandler({
      cluster: w.cluster,
      now: () => w.clock.now(),
      shutdownGraceMs: graceMs,
      tokens: w.tokens,
    }),
  });
  await w.cluster.create(applicationOf(NS, 'batch', { manifest, hooks }))();
  await reconcileUntilQuiet(w, NS, 'batch');
};

afterEach(async () => {
  await server.close();
});

describe('the complete hook, end to end', () => {
  beforeEach(async () => {
    await start(['complete']);
  });

  it('creates the hook Secret (owned, token and URL) and the env entries; the token is not in status', async () => {
    const secret = await get(w, SECRET);
    expect(secret?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Application',
      name: 'batch',
      controller: true,
    });
    const token = tokenIn(secret, 'complete-token');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenIn(secret, 'complete-url')).toBe(
      'http://kreconcile.kreconcile-system.svc:8080/v1/namespaces/default/applications/batch/complete',
    );
    const deployment = (await get(w, DEPLOYMENT)) as Resource;
    const pod = (
      deployment.spec as {
        template: { spec: { containers: Array<{ env: unknown[] }>; initContainers: Array<{ env: unknown[] }> } };
      }
    ).template.spec;
    const ref = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: SECRET.name, key } } });
    expect(pod.containers[0]?.env).toEqual([
      { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'worker-config', key: 'MODE' } } },
      ref('KRECONCILE_COMPLETE_TOKEN', 'complete-token'),
      ref('KRECONCILE_COMPLETE_URL', 'complete-url'),
    ]);
    expect(pod.initContainers[0]?.env).toEqual([
      ref('KRECONCILE_COMPLETE_TOKEN', 'complete-token'),
      ref('KRECONCILE_COMPLETE_URL', 'complete-url'),
    ]);
    const app = await getApplication(w, NS, 'batch');
    expect(JSON.stringify(app)).not.toContain(token);
    expect(JSON.stringify(app)).not.toContain(Buffer.from(token).toString('base64'));
  });

  it('keeps the token across reconciles and operator restarts (read back from the live Secret)', async () => {
    const before = tokenIn(await get(w, SECRET), 'complete-token');
    w.tokens.forget(NS, 'batch'); // what a restarted operator knows
    const again = await reconcileUntilQuiet(w, NS, 'batch');
    expect(again._tag === 'Done' && again.plan.actions).toEqual([]);
    expect(tokenIn(await get(w, SECRET), 'complete-token')).toBe(before);
  });

  it('a call with a wrong token, or none, is refused (401) and changes nothing', async () => {
    const before = snapshot(w);
    expect(await call(url('complete'), 'POST', 'not-the-token')).toEqual({
      status: 401,
      body: { error: 'unauthorized' },
    });
    expect((await call(url('complete'), 'POST')).status).toBe(401);
    const token = tokenIn(await get(w, SECRET), 'complete-token');
    expect((await call(url('complete', 'nosuchapp'), 'POST', token)).status).toBe(401);
    expect((await call(url('shutdown'), 'POST', token)).status).toBe(401); // the hook is not enabled
    expect(snapshot(w)).toBe(before);
  });

  it('with the right token the Application and its children are deleted', async () => {
    const token = tokenIn(await get(w, SECRET), 'complete-token');
    expect(await call(url('complete'), 'POST', token)).toEqual({
      status: 202,
      body: { accepted: 'complete', deleting: true },
    });
    expect((await getApplication(w, NS, 'batch'))?.metadata.deletionTimestamp).toBeDefined();
    expect((await reconcileUntilQuiet(w, NS, 'batch'))._tag).toBe('Gone');
    for (const ref of [SECRET, DEPLOYMENT, CONFIG]) expect(await get(w, ref)).toBeUndefined();
  });

  it('answers only its routes and methods', async () => {
    expect((await call(url('complete'), 'GET', 'x')).status).toBe(405);
    expect(
      (
        await call(
          `http://127.0.0.1:${server.address.port}/v1/namespaces/BAD_NS/applications/batch/complete`,
          'POST',
          'x',
        )
      ).status,
    ).toBe(404);
    expect((await call(`http://127.0.0.1:${server.address.port}/v1/other`, 'POST', 'x')).status).toBe(404);
  });
});

describe('the shutdown hook, end to end', () => {
  it('on deletion the children wait for the callback; a wrong token changes nothing; the right one releases them', async () => {
    await start(['shutdown']);
    const token = tokenIn(await get(w, SECRET), 'shutdown-token');
    expect(await call(url('shutdown'), 'GET', token)).toEqual({ status: 200, body: { shutdownRequested: false } });
    expect((await call(url('shutdown'), 'POST', token)).status).toBe(409); // nothing to acknowledge yet

    await w.cluster.delete({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      namespace: NS,
      name: 'batch',
    })();
    const waiting = await reconcileUntilQuiet(w, NS, 'batch');
    expect(waiting._tag === 'Done' && waiting.requeueAfterMs).toBe(60_000);
    expect(
      (await getApplication(w, NS, 'batch'))?.status?.conditions?.find((c) => c.type === 'Reconciling'),
    ).toMatchObject({ status: 'True', reason: 'AwaitingShutdown' });
    expect(await get(w, DEPLOYMENT)).toBeDefined();
    const asked = await call(url('shutdown'), 'GET', token);
    expect(asked.body).toMatchObject({ shutdownRequested: true, acknowledged: false });

    const before = snapshot(w);
    expect((await call(url('shutdown'), 'POST', 'wrong')).status).toBe(401);
    expect(snapshot(w)).toBe(before);

    expect(await call(url('shutdown'), 'POST', token)).toEqual({
      status: 202,
      body: { accepted: 'shutdown', deletingChildren: true },
    });
    expect(
      (await getApplication(w, NS, 'batch'))?.metadata.annotations?.[SHUTDOWN_ACKNOWLEDGED_ANNOTATION],
    ).toBeDefined();
    expect((await reconcileUntilQuiet(w, NS, 'batch'))._tag).toBe('Gone');
    for (const ref of [SECRET, DEPLOYMENT, CONFIG]) expect(await get(w, ref)).toBeUndefined();
  });

  it('without a callback, the children go once the grace period has run out', async () => {
    await start(['shutdown'], 30_000);
    await w.cluster.delete({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      namespace: NS,
      name: 'batch',
    })();
    await reconcileUntilQuiet(w, NS, 'batch');
    await w.clock.advance(29_000);
    await reconcileUntilQuiet(w, NS, 'batch');
    expect(await get(w, DEPLOYMENT)).toBeDefined();
    await w.clock.advance(1_000);
    expect((await reconcileUntilQuiet(w, NS, 'batch'))._tag).toBe('Gone');
    expect(await get(w, DEPLOYMENT)).toBeUndefined();
  });

  it('complete on an Application that also has shutdown deletes the children without waiting', async () => {
    await start(['complete', 'shutdown']);
    const token = tokenIn(await get(w, SECRET), 'complete-token');
    expect((await call(url('complete'), 'POST', token)).status).toBe(202);
    expect((await reconcileUntilQuiet(w, NS, 'batch'))._tag).toBe('Gone');
  });
});
