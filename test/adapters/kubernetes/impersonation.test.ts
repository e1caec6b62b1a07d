/**
 * Impersonation in the Kubernetes adapter, against a loopback HTTP server that records what it
 * receives: every request of an impersonating client (reads, writes, status, watches) carries
 * `Impersonate-User` for the ServiceAccount; the operator's own client carries none.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesCluster, type KubernetesCluster } from '../../../adapters/kubernetes/index.js';
import { boundedMemo } from '../../../adapters/kubernetes/impersonation.js';
import type { WatchEvent } from '../../../core/internal.js';

type Seen = {
  readonly method: string;
  readonly path: string;
  readonly user: string | undefined;
  readonly groups: string | undefined;
  readonly authorization: string | undefined;
};

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'team-a', resourceVersion: '7' },
  data: { a: 'b' },
};
const resources = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    {
      name: 'configmaps',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    },
  ],
};

const answer = (request: IncomingMessage): { status: number; body: string } => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/api/v1') return { status: 200, body: JSON.stringify(resources) };
  if (url.searchParams.get('watch') === 'true')
    return { status: 200, body: `${JSON.stringify({ type: 'ADDED', object: configMap })}\n` };
  if (url.pathname === '/api/v1/namespaces/team-a/configmaps') {
    return request.method === 'GET'
      ? {
          status: 200,
          body: JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: [configMap] }),
        }
      : { status: 201, body: JSON.stringify(configMap) };
  }
  return { status: 200, body: JSON.stringify(configMap) };
};

describe('adapters/kubernetes impersonation', () => {
  let server: Server;
  let cluster: KubernetesCluster;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({
        method: request.method ?? '',
        path: (request.url ?? '').split('?')[0] ?? '',
        user: request.headers['impersonate-user'] as string | undefined,
        groups: request.headers['impersonate-group'] as string | undefined,
        authorization: request.headers.authorization,
      });
      request.resume();
      request.on('end', () => {
        const { status, body } = answer(request);
        response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    cluster = createKubernetesCluster({
      kubeconfigYaml: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'test',
        clusters: [{ name: 'test', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'operator', user: { token: 'operator-token' } }],
        contexts: [{ name: 'test', context: { cluster: 'test', user: 'operator' } }],
      }),
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'web' };

  it("sends Impersonate-User for the ServiceAccount on every read, write and status call, with the operator's credentials", async () => {
    const deployer = cluster.impersonate({ namespace: 'team-a', name: 'deployer' });
    seen.length = 0;
    expect(E.isRight(await deployer.get(ref)())).toBe(true);
    expect(E.isRight(await deployer.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a' })())).toBe(true);
    expect(
      E.isRight(
        await deployer.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'web', namespace: 'team-a' },
        })(),
      ),
    ).toBe(true);
    expect(E.isRight(await deployer.patch(ref, { type: 'merge', body: { data: { a: 'c' } } })())).toBe(true);
    expect(E.isRight(await deployer.patchStatus(ref, { type: 'merge', body: { status: {} } })())).toBe(true);
    const objectCalls = seen.filter((s) => s.path !== '/api/v1');
    expect(objectCalls.map((s) => s.method)).toEqual(['GET', 'GET', 'POST', 'PATCH', 'PATCH']);
    for (const call of objectCalls) {
      expect(call.user).toBe('system:serviceaccount:team-a:deployer');
      // The server derives a ServiceAccount's groups; sending them would need `impersonate groups`.
      expect(call.groups).toBeUndefined();
      expect(call.authorization).toBe('Bearer operator-token');
    }
  });

  it('impersonates on watches too', async () => {
    const deployer = cluster.impersonate({ namespace: 'team-a', name: 'deployer' });
    seen.length = 0;
    const events = await new Promise<WatchEvent[]>((resolve) => {
      const received: WatchEvent[] = [];
      const handle = deployer.watch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a' },
        {
          event: (event) => {
            received.push(event);
            handle.stop();
            resolve(received);
          },
          closed: () => resolve(received),
        },
      );
    });
    expect(events.map((event) => event.type)).toEqual(['ADDED']);
    expect(seen.filter((s) => s.path === '/api/v1/namespaces/team-a/configmaps').map((s) => s.user)).toEqual([
      'system:serviceaccount:team-a:deployer',
    ]);
  });

  it("leaves the operator's own client unimpersonated, and keeps one client per identity", async () => {
    seen.length = 0;
    await cluster.get(ref)();
    await cluster.impersonate({ namespace: 'team-b', name: 'deployer' }).get({ ...ref, namespace: 'team-b' })();
    expect(seen.filter((s) => s.path !== '/api/v1').map((s) => s.user)).toEqual([
      undefined,
      'system:serviceaccount:team-b:deployer',
    ]);
    expect(cluster.impersonate({ namespace: 'team-a', name: 'deployer' })).toBe(
      cluster.impersonate({ namespace: 'team-a', name: 'deployer' }),
    );
    expect(cluster.impersonate({ namespace: 'team-a', name: 'deployer' })).not.toBe(
      cluster.impersonate({ namespace: 'team-b', name: 'deployer' }),
    );
  });
});

describe('boundedMemo', () => {
  it('keeps at most `capacity` values and drops the least recently used first', () => {
    const made: string[] = [];
    const memo = boundedMemo(2, (key) => {
      made.push(key);
      return { key };
    });
    const a = memo('a');
    memo('b');
    expect(memo('a')).toBe(a);
    memo('c');
    expect(memo('a')).toBe(a);
    memo('b');
    expect(made).toEqual(['a', 'b', 'c', 'b']);
  });
});
