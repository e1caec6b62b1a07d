/**
 * The callback listener faces the network: headers that never end are cut, connections are
 * capped, a burst from one client gets 429, bodies are bounded, and callers are authenticated
 * from memory first; callers memory does not vouch for are looked up in the live Secret within a
 * budget shared by all clients, with the same answer whether the Application exists or not.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCallbackHandler,
  startCallbackServer,
  type CallbackOptions,
  type CallbackServer,
  type ListenerLimits,
} from '../../../app/hooks/callback-server.js';
import type { Cluster } from '../../../core/internal.js';
import { HookTokens } from '../../../app/hooks/tokens.js';
import {
  applicationOf,
  getApplication,
  reconcileUntilQuiet,
  snapshot,
  tokenIn,
  get,
  world,
  type World,
} from './support.js';

const NS = 'default';
const MANIFEST = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1' } }];

let server: CallbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The cluster with every call counted (reads and writes alike). */
const counting = (cluster: Cluster): { readonly cluster: Cluster; readonly calls: () => number } => {
  let calls = 0;
  const proxy = new Proxy(cluster, {
    get: (target, property, receiver) => {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { cluster: proxy, calls: () => calls };
};

const withApplication = async (hooks: ReadonlyArray<string>): Promise<World> => {
  const w = world();
  await w.cluster.create(applicationOf(NS, 'batch', { manifest: MANIFEST, hooks }))();
  await reconcileUntilQuiet(w, NS, 'batch');
  return w;
};

const startOn = async (w: World, options: Partial<CallbackOptions> = {}, limits: Partial<ListenerLimits> = {}) => {
  const counted = counting(w.cluster);
  server = await startCallbackServer({
    listen: { host: '127.0.0.1', port: 0 },
    limits,
    handler: createCallbackHandler({
      cluster: counted.cluster,
      now: () => w.clock.now(),
      tokens: w.tokens,
      ...options,
    }),
  });
  const url = (name: string, hook = 'complete') =>
    `http://127.0.0.1:${server?.address.port}/v1/namespaces/${NS}/applications/${name}/${hook}`;
  return { url, calls: counted.calls, port: server.address.port };
};

const post = async (url: string, token?: string, init: RequestInit = {}) => {
  const response = await fetch(url, {
    method: 'POST',
    ...init,
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...init.headers },
  });
  return {
    status: response.status,
    body: await response.text(),
    retryAfter: response.headers.get('retry-after'),
    authenticate: response.headers.get('www-authenticate'),
  };
};

/** A raw connection that sends `text` and never finishes; resolves with what came back once the server closes it. */
const dangling = (port: number, text: string): { readonly socket: Socket; readonly closed: Promise<string> } => {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8').on('data', (data: string) => {
    received += data;
  });
  socket.on('error', () => {
    /* reset by the server */
  });
  socket.write(text);
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(received))) };
};

describe('the callback listener', () => {
  it('cuts a connection whose headers never finish (slowloris)', async () => {
    const { port } = await startOn(world(), {}, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { closed } = dangling(
      port,
      `POST /v1/namespaces/${NS}/applications/batch/complete HTTP/1.1\r\nHost: x\r\nX-Slow: `,
    );
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  }, 10_000);

  it('accepts at most maxConnections connections; more are closed at once', async () => {
    const w = world();
    const { port, url } = await startOn(w, {}, { maxConnections: 2 });
    const held = [dangling(port, 'GET /'), dangling(port, 'GET /')];
    await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
    await new Promise((resolve) => setImmediate(resolve));
    const third = dangling(port, `GET /v1/namespaces/${NS}/applications/batch/shutdown HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(await third.closed).toBe('');
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map(({ closed }) => closed));
    expect((await post(url('batch'))).status).toBe(401);
  }, 10_000);

  it('answers a burst from one client with 429 and Retry-After, before authenticating; the bucket refills with time', async () => {
    const w = world();
    const { url, calls } = await startOn(w, { rateLimit: { burst: 5, perSecond: 1, clients: 100 } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(url('batch'), 'wrong')).status);
    const authenticated = calls();
    const limited = await post(url('batch'), 'wrong');
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expect(limited).toMatchObject({ status: 429, retryAfter: '1', body: '{"error":"too many requests"}\n' });
    expect(calls()).toBe(authenticated);
    await w.clock.advance(1_000);
    expect((await post(url('batch'), 'wrong')).status).toBe(401);
    const refilled = calls();
    expect((await post(url('batch'), 'wrong')).status).toBe(429);
    expect(calls()).toBe(refilled);
  });

  it('refuses a body larger than maxBodyBytes (declared: 413; streamed: the connection is cut)', async () => {
    const { url, port } = await startOn(
      world(),
      { maxBodyBytes: 1_024 },
      { keepAliveTimeoutMs: 60_000, requestTimeoutMs: 60_000, headersTimeoutMs: 60_000 },
    );
    expect((await post(url('batch'), 'wrong', { body: 'x'.repeat(2_048) })).status).toBe(413);
    // Chunked, no length declared: once past the bound the connection is cut (a keep-alive one would stay open).
    const chunk = `400\r\n${'x'.repeat(1_024)}\r\n`;
    const { closed } = dangling(
      port,
      `POST /v1/namespaces/${NS}/applications/batch/complete HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.repeat(4)}`,
    );
    await closed;
    expect((await post(url('batch'), 'wrong', { body: 'x'.repeat(100) })).status).toBe(401);
  }, 10_000);
});

describe('authentication from memory, then from the live Secret at a bounded rate', () => {
  it('a wrong token for an existing Application and any token for a missing one: the same answer; past the lookup budget 429 with no API call', async () => {
    const w = await withApplication(['complete']);
    const { url, calls } = await startOn(w, { unknownCallerLookups: { burst: 3, perSecond: 1 } });
    const before = snapshot(w);
    const existing = await post(url('batch'), 'not-the-token');
    const missing = await post(url('nothing-here'), 'not-the-token');
    const noHook = await post(url('batch', 'shutdown'), 'not-the-token');
    expect(existing).toEqual({
      status: 401,
      body: '{"error":"unauthorized"}\n',
      retryAfter: null,
      authenticate: 'Bearer realm="kreconcile"',
    });
    expect(missing).toEqual(existing);
    expect(noHook).toEqual(existing);
    const lookedUp = calls();
    // The budget is shared by all clients: a flood of guesses costs the API server no more than it.
    expect(await post(url('batch'), 'another-guess')).toMatchObject({
      status: 429,
      retryAfter: '1',
      body: '{"error":"too many requests"}\n',
    });
    expect(await post(url('nothing-here'), 'another-guess')).toMatchObject({ status: 429 });
    expect(calls()).toBe(lookedUp);
    await w.clock.advance(1_000);
    expect((await post(url('batch'), 'another-guess')).status).toBe(401);
    expect(calls()).toBeGreaterThan(lookedUp);
    expect(snapshot(w)).toBe(before);
  });

  it('the right token of another Application, or of another hook, is refused', async () => {
    const w = await withApplication(['complete', 'shutdown']);
    await w.cluster.create(
      applicationOf(NS, 'other', { manifest: [{ ...MANIFEST[0], metadata: { name: 'cfg2' } }], hooks: ['complete'] }),
    )();
    await reconcileUntilQuiet(w, NS, 'other');
    const secret = await get(w, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'other.default.kreconcile-hooks',
    });
    const batchSecret = await get(w, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'batch.default.kreconcile-hooks',
    });
    const { url } = await startOn(w);
    const before = snapshot(w);
    expect((await post(url('batch'), tokenIn(secret, 'complete-token'))).status).toBe(401);
    expect((await post(url('batch', 'complete'), tokenIn(batchSecret, 'shutdown-token'))).status).toBe(401);
    expect(snapshot(w)).toBe(before);
  });

  it('the right token known in memory needs no lookup budget, and is checked against the live Secret too', async () => {
    const w = await withApplication(['complete']);
    const { url, calls } = await startOn(w, { unknownCallerLookups: { burst: 0, perSecond: 0.001 } });
    const secret = await get(w, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'batch.default.kreconcile-hooks',
    });
    expect(await post(url('batch'), tokenIn(secret, 'complete-token'))).toMatchObject({ status: 202 });
    expect(calls()).toBeGreaterThan(0);
    expect((await getApplication(w, NS, 'batch'))?.metadata.deletionTimestamp).toBeDefined();
  });

  it('a replica that did not plan the Application (a standby, another shard) accepts the right token from the live Secret', async () => {
    const w = await withApplication(['complete']);
    const secret = await get(w, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: NS,
      name: 'batch.default.kreconcile-hooks',
    });
    const { url } = await startOn(w, { tokens: new HookTokens() });
    expect((await post(url('batch'), 'not-the-token')).status).toBe(401);
    expect(await post(url('batch'), tokenIn(secret, 'complete-token'))).toMatchObject({ status: 202 });
    expect((await getApplication(w, NS, 'batch'))?.metadata.deletionTimestamp).toBeDefined();
  });
});
