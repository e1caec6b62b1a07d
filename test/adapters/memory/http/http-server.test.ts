/**
 * The memory cluster served over HTTP, checked on the wire: loopback only, bearer token, body
 * bound, discovery of built-in and CRD kinds, Status error bodies, faults as HTTP answers,
 * patch content types, pagination and field selectors, and watch streams (bookmarks on the
 * cluster's clock, 410 as an ERROR event, server-side timeout).
 */
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../adapters/memory/index.js';
import { eventually } from '../../../support/eventually.js';
import { endpoint, watchLines, type Endpoint } from './http-support.js';

const open: Endpoint[] = [];
const serve = async (...args: Parameters<typeof endpoint>): Promise<Endpoint> => {
  const served = await endpoint(...args);
  open.push(served);
  return served;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.toys.example' },
  spec: {
    group: 'toys.example',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

describe('memory cluster over HTTP: the endpoint', () => {
  it('listens on 127.0.0.1 only and hands out a kubeconfig for it', async () => {
    const target = await serve();
    expect(target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(target.kubeconfig).toContain(`server: ${target.url}`);
    const port = new URL(target.url).port;
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
    if (external !== undefined) await expect(fetch(`http://${external}:${port}/version`)).rejects.toThrow();
    expect((await target.request('/version')).status).toBe(200);
  });

  it('refuses requests without the bearer token (401 Status)', async () => {
    const target = await serve();
    for (const token of [null, 'wrong']) {
      const answer = await target.request('/api/v1/namespaces/default/configmaps', { token });
      expect(answer.status).toBe(401);
      expect(answer.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    }
  });

  it('bounds request bodies: a larger one answers 413 and stores nothing', async () => {
    const target = await serve({}, { maxBodyBytes: 1024 });
    const answer = await target.request('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: configMap('big', { blob: 'x'.repeat(4096) }),
    });
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expect(target.memory.objects().filter((o) => o.kind === 'ConfigMap')).toEqual([]);
    expect(
      (await target.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('small') }))
        .status,
    ).toBe(201);
  });

  it('writes a kubeconfig file when asked (mode 0600)', async () => {
    const { mkdtemp, readFile, stat } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const path = join(await mkdtemp(join(tmpdir(), 'kr-http-')), 'kubeconfig');
    const target = await serve({}, { kubeconfigPath: path });
    expect(target.kubeConfigPath).toBe(path);
    expect(await readFile(path, 'utf8')).toBe(target.kubeconfig);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});

describe('memory cluster over HTTP: discovery', () => {
  it('/api, /apis, group and resource lists, /version', async () => {
    const target = await serve();
    expect((await target.request('/api')).json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const core = (await target.request('/api/v1')).json;
    expect(core).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    expect(core.resources).toContainEqual(
      expect.objectContaining({ name: 'configmaps', kind: 'ConfigMap', namespaced: true }),
    );
    expect(core.resources).toContainEqual(
      expect.objectContaining({ name: 'namespaces', kind: 'Namespace', namespaced: false }),
    );
    expect(core.resources).toContainEqual(expect.objectContaining({ name: 'namespaces/status', kind: 'Namespace' }));
    const groups = (await target.request('/apis')).json;
    expect(groups.kind).toBe('APIGroupList');
    expect(groups.groups).toContainEqual(
      expect.objectContaining({ name: 'apps', preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } }),
    );
    const autoscaling = (await target.request('/apis/autoscaling')).json;
    expect(autoscaling.versions.map((v: { version: string }) => v.version)).toEqual(['v2', 'v1']);
    expect((await target.request('/apis/apps/v1')).json.resources).toContainEqual(
      expect.objectContaining({ name: 'deployments', kind: 'Deployment', namespaced: true }),
    );
    expect((await target.request('/version')).json).toMatchObject({ major: '1', minor: '36' });
    for (const path of ['/apis/toys.example/v1', '/apis/apps/v9', '/api/v2', '/nope'])
      expect((await target.request(path)).status).toBe(404);
  });

  it("a CRD's kind appears in discovery once established, and is served at its paths", async () => {
    const target = await serve();
    expect(
      (
        await target.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          method: 'POST',
          body: gadgetCrd,
        })
      ).status,
    ).toBe(201);
    await target.memory.settle();
    expect((await target.request('/apis/toys.example/v1')).json.resources).toEqual([
      expect.objectContaining({ name: 'gadgets', kind: 'Gadget', namespaced: true }),
      expect.objectContaining({ name: 'gadgets/status' }),
    ]);
    expect((await target.request('/apis')).json.groups.map((g: { name: string }) => g.name)).toContain('toys.example');
    const created = await target.request('/apis/toys.example/v1/namespaces/default/gadgets', {
      method: 'POST',
      body: { apiVersion: 'toys.example/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1 } },
    });
    expect(created.status).toBe(201);
    expect(created.json.metadata).toMatchObject({ name: 'g', namespace: 'default', generation: 1 });
    // a namespaced path for a cluster-scoped kind, an unknown subresource: not served
    expect((await target.request('/api/v1/namespaces/default/namespaces/x')).status).toBe(404);
    expect((await target.request('/api/v1/namespaces/default/configmaps/x/scale')).status).toBe(404);
    // namespaced kinds: listed across namespaces, but neither created nor addressed outside one
    expect((await target.request('/apis/toys.example/v1/gadgets')).json.items.map((o: any) => o.metadata.name)).toEqual(
      ['g'],
    );
    expect(
      (
        await target.request('/apis/toys.example/v1/gadgets', {
          method: 'POST',
          body: { apiVersion: 'toys.example/v1', kind: 'Gadget', metadata: { name: 'h' } },
        })
      ).json,
    ).toMatchObject({ reason: 'MethodNotAllowed', code: 405 });
    expect((await target.request('/apis/toys.example/v1/gadgets/g')).status).toBe(404);
    // deleting the CRD removes its kind (and objects) from discovery and from the paths
    await target.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.toys.example', {
      method: 'DELETE',
    });
    await target.memory.settle();
    expect((await target.request('/apis/toys.example/v1')).status).toBe(404);
    expect((await target.request('/apis/toys.example/v1/namespaces/default/gadgets')).status).toBe(404);
    expect((await target.request('/apis')).json.groups.map((g: { name: string }) => g.name)).not.toContain(
      'toys.example',
    );
  });
});

describe('memory cluster over HTTP: requests and answers', () => {
  it('CRUD with Status error bodies carrying reason, details and code', async () => {
    const target = await serve();
    const base = '/api/v1/namespaces/default/configmaps';
    const created = await target.request(base, { method: 'POST', body: configMap('a', { k: 'v' }) });
    expect(created.status).toBe(201);
    expect(created.json.metadata.namespace).toBe('default');
    expect((await target.request(`${base}/a`)).json.data).toEqual({ k: 'v' });
    const missing = await target.request(`${base}/zzz`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      details: { name: 'zzz', kind: 'configmaps' },
    });
    const duplicate = await target.request(base, { method: 'POST', body: configMap('a') });
    expect(duplicate.json).toMatchObject({ reason: 'AlreadyExists', code: 409 });
    const stale = await target.request(`${base}/a`, {
      method: 'PUT',
      body: { ...configMap('a', { k: 'w' }), metadata: { name: 'a', resourceVersion: '1' } },
    });
    expect(stale.json).toMatchObject({ reason: 'Conflict', code: 409 });
    const invalid = await target.request(base, { method: 'POST', body: configMap('Not_A_Name') });
    expect(invalid.json).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(
      (
        await target.request(base, {
          method: 'POST',
          body: { ...configMap('b'), metadata: { name: 'b', namespace: 'other' } },
        })
      ).json,
    ).toMatchObject({ reason: 'BadRequest', code: 400 });
    expect((await target.request(base, { method: 'POST', body: '{not json' })).json).toMatchObject({
      reason: 'BadRequest',
      code: 400,
    });
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`;
    expect((await target.request(base, { method: 'POST', body: deep })).json).toMatchObject({
      code: 400,
      message: expect.stringMatching(/nested deeper than 200 levels/),
    });
    const deleted = await target.request(`${base}/a`, { method: 'DELETE' });
    expect(deleted.json).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'a', kind: 'configmaps' },
    });
    expect(target.memory.objects().filter((o) => o.kind === 'ConfigMap')).toEqual([]);
  });

  it('patch types: json-patch, merge-patch, apply with fieldManager, strategic merge with lists and directives; unknown types and strategic patches of custom resources answer 415', async () => {
    const target = await serve();
    const path = '/api/v1/namespaces/default/configmaps/p';
    await target.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('p', { a: '1' }) });
    expect(
      (
        await target.request(path, {
          method: 'PATCH',
          contentType: 'application/json-patch+json',
          body: [{ op: 'add', path: '/data/b', value: '2' }],
        })
      ).json.data,
    ).toEqual({ a: '1', b: '2' });
    expect(
      (
        await target.request(path, {
          method: 'PATCH',
          contentType: 'application/merge-patch+json; charset=utf-8',
          body: { data: { a: null } },
        })
      ).json.data,
    ).toEqual({ b: '2' });
    const applyYaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  c: "3"\n';
    expect(
      (
        await target.request(`${path}?fieldManager=me`, {
          method: 'PATCH',
          contentType: 'application/apply-patch+yaml',
          body: applyYaml,
        })
      ).json.data,
    ).toEqual({ b: '2', c: '3' });
    expect(
      (await target.request(path, { method: 'PATCH', contentType: 'application/apply-patch+yaml', body: applyYaml }))
        .json,
    ).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(
      (
        await target.request(`${path}?force=true`, {
          method: 'PATCH',
          contentType: 'application/merge-patch+json',
          body: {},
        })
      ).json,
    ).toMatchObject({ reason: 'Invalid', code: 422 });
    const strategic = 'application/strategic-merge-patch+json';
    const refused = await target.request(path, { method: 'PATCH', contentType: 'text/plain', body: { data: {} } });
    expect(refused.status).toBe(415);
    expect(refused.json).toMatchObject({
      kind: 'Status',
      reason: 'UnsupportedMediaType',
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    });
    // kubectl patch's and kubectl edit's default for built-in kinds: finalizers merge (a set), `$patch: replace`
    // replaces data.
    for (const body of [{ metadata: { finalizers: ['example.com/x'] } }, { data: { $patch: 'replace', d: '4' } }]) {
      const merged = await target.request(path, { method: 'PATCH', contentType: strategic, body });
      expect(merged.status).toBe(200);
    }
    const patched = (await target.request(path)).json;
    expect(patched.data).toEqual({ d: '4' });
    expect(patched.metadata.finalizers).toEqual(['example.com/x']);
  });

  it('status subresource: PUT and PATCH on /status change status only', async () => {
    const target = await serve();
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    await target.request('/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: deployment });
    const patched = await target.request('/apis/apps/v1/namespaces/default/deployments/d/status', {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 9 }, status: { replicas: 3 } },
    });
    expect(patched.json.status).toMatchObject({ replicas: 3 });
    expect(patched.json.spec.replicas).toBe(1);
    expect(patched.json.metadata.generation).toBe(1);
  });

  it('delete with propagationPolicy (query or DeleteOptions body): Orphan keeps the dependent', async () => {
    const target = await serve();
    const owner = (
      await target.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('owner') })
    ).json;
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
    await target.request('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: { ...configMap('dep'), metadata: { name: 'dep', ownerReferences } },
    });
    const held = await target.request('/api/v1/namespaces/default/configmaps/owner', {
      method: 'DELETE',
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' },
    });
    expect(held.json.metadata.finalizers).toEqual(['orphan']);
    await target.memory.settle();
    const names = target.memory
      .objects()
      .filter((o) => o.kind === 'ConfigMap')
      .map((o) => o.metadata.name);
    expect(names).toEqual(['dep']);
    expect(
      (
        await target.request('/api/v1/namespaces/default/configmaps/dep?propagationPolicy=Sideways', {
          method: 'DELETE',
        })
      ).json,
    ).toMatchObject({ reason: 'Invalid', code: 422 });
    // refused rather than ignored: the in-memory server does not implement them
    expect(
      (
        await target.request('/api/v1/namespaces/default/configmaps/dep', {
          method: 'DELETE',
          body: { preconditions: { uid: 'x' } },
        })
      ).json,
    ).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: expect.stringMatching(/the UID in the precondition \(x\) does not match/),
    });
    expect(
      (await target.request('/api/v1/namespaces/default/configmaps/dep?dryRun=All', { method: 'DELETE' })).json,
    ).toMatchObject({ code: 400, message: expect.stringMatching(/dry-run/) });
    expect(
      target.memory
        .objects()
        .filter((o) => o.kind === 'ConfigMap')
        .map((o) => o.metadata.name),
    ).toEqual(['dep']);
  });

  it('list: label and field selectors, limit and continue (every object once, one resourceVersion)', async () => {
    const target = await serve();
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      await target.request('/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        body: configMap(name, {}, { tier: name < 'c' ? 'front' : 'back' }),
      });
    const base = '/api/v1/namespaces/default/configmaps';
    const selected = (await target.request(`${base}?labelSelector=${encodeURIComponent('tier in (back)')}`)).json;
    expect(selected.kind).toBe('ConfigMapList');
    expect(selected.items.map((o: any) => o.metadata.name)).toEqual(['c', 'd', 'e']);
    expect(
      (await target.request(`${base}?fieldSelector=metadata.name%3Db`)).json.items.map((o: any) => o.metadata.name),
    ).toEqual(['b']);
    expect((await target.request(`${base}?fieldSelector=metadata.name!%3Db`)).json.items).toHaveLength(4);
    expect((await target.request(`${base}?fieldSelector=status.phase%3DX`)).json).toMatchObject({ code: 400 });
    expect((await target.request(`${base}?labelSelector=${encodeURIComponent('a in (')}`)).json).toMatchObject({
      reason: 'BadRequest',
      code: 400,
    });
    const seen: string[] = [];
    const versions = new Set<string>();
    let next = '';
    for (let page = 0; page < 10; page++) {
      const answer = (await target.request(`${base}?limit=2${next ? `&continue=${next}` : ''}`)).json;
      seen.push(...answer.items.map((o: any) => o.metadata.name));
      versions.add(answer.metadata.resourceVersion);
      next = answer.metadata.continue ?? '';
      if (next === '') break;
      expect(answer.metadata.remainingItemCount).toBe(5 - seen.length);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(versions.size).toBe(1);
    expect((await target.request(`${base}?continue=garbage`)).json).toMatchObject({ code: 400 });
  });

  it('faults reach the client as HTTP answers: 429 with Retry-After, 500, 409 from a concurrent writer, a dropped connection in an outage', async () => {
    const target = await serve({ seed: 3 });
    const base = '/api/v1/namespaces/default/configmaps';
    const created = (await target.request(base, { method: 'POST', body: configMap('f', { v: '1' }) })).json;
    target.memory.setFaults({
      errors: [
        { rate: 1, tag: 'TooManyRequests', code: 429, retryAfterMs: 2000, verbs: ['get'] },
        { rate: 1, tag: 'Internal', code: 500, verbs: ['list'] },
      ],
    });
    const throttled = await target.request(`${base}/f`);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('2');
    expect(throttled.json).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 2 },
    });
    expect((await target.request(base)).json).toMatchObject({ reason: 'InternalError', code: 500 });
    target.memory.setFaults({ conflicts: [{ rate: 1, verbs: ['update'] }] });
    expect(
      (await target.request(`${base}/f`, { method: 'PUT', body: { ...created, data: { v: '2' } } })).json,
    ).toMatchObject({ reason: 'Conflict', code: 409 });
    target.memory.setFaults({});
    target.memory.unavailableFor(60_000);
    await expect(target.request(`${base}/f`)).rejects.toThrow(/fetch failed/);
    await expect(target.request('/api/v1')).rejects.toThrow(/fetch failed/);
  });
});

describe('memory cluster over HTTP: watch', () => {
  it("streams JSON lines from a resourceVersion, with bookmarks on the cluster's clock", async () => {
    const clock = new ManualClock(0);
    const target = await serve({ clock, bookmarkIntervalMs: 60_000 });
    const base = '/api/v1/namespaces/default/configmaps';
    const list = (await target.request(base)).json;
    const watch = await watchLines(
      target,
      `${base}?watch=1&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}&labelSelector=w%3D1`,
    );
    try {
      expect(watch.status).toBe(200);
      await target.request(base, { method: 'POST', body: configMap('seen', {}, { w: '1' }) });
      await target.request(base, { method: 'POST', body: configMap('unseen', {}, { w: '2' }) });
      await target.request(`${base}/seen`, { method: 'DELETE' });
      await eventually(
        () =>
          expect(watch.lines.map((l) => `${l.type}:${l.object.metadata.name}`)).toEqual(['ADDED:seen', 'DELETED:seen']),
        5_000,
        5,
      );
      await clock.advance(60_000);
      await eventually(
        () =>
          expect(watch.lines.at(-1)).toMatchObject({
            type: 'BOOKMARK',
            object: {
              kind: 'ConfigMap',
              apiVersion: 'v1',
              metadata: { resourceVersion: expect.stringMatching(/^\d+$/) },
            },
          }),
        5_000,
        5,
      );
    } finally {
      watch.abort();
    }
  });

  it('a too-old resourceVersion: 200, then an ERROR event with a 410 Expired Status, then the end', async () => {
    const target = await serve();
    await target.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      method: 'POST',
      body: gadgetCrd,
    });
    await target.memory.settle();
    const watch = await watchLines(
      target,
      '/apis/toys.example/v1/namespaces/default/gadgets?watch=true&resourceVersion=1',
    );
    await watch.ended;
    expect(watch.status).toBe(200);
    expect(watch.lines).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 }),
      },
    ]);
  });

  it("a fault on the watch request is the request's HTTP answer, as kube-apiserver's, not a 200 and an ERROR event", async () => {
    const target = await serve();
    target.memory.setFaults({
      errors: [
        { rate: 1, tag: 'TooManyRequests', code: 429, retryAfterMs: 2000, verbs: ['watch'], message: 'slow down' },
      ],
    });
    const refused = await fetch(`${target.url}/api/v1/namespaces/default/configmaps?watch=true`, {
      headers: { authorization: `Bearer ${target.token}` },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toMatchObject({ kind: 'Status', code: 429, reason: 'TooManyRequests' });
    // Once the faults stop, the same request is served: 200 at once, before any event.
    target.memory.setFaults({});
    const served = await watchLines(target, '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    expect(served.status).toBe(200);
    served.abort();
  });

  it("without a resourceVersion: ADDED for what exists; timeoutSeconds ends the stream on the cluster's clock; a field selector filters", async () => {
    const clock = new ManualClock(0);
    const target = await serve({ clock });
    const base = '/api/v1/namespaces/default/configmaps';
    for (const name of ['x', 'y']) await target.request(base, { method: 'POST', body: configMap(name) });
    const watch = await watchLines(target, `${base}?watch=1&timeoutSeconds=30&fieldSelector=metadata.name%3Dy`);
    await eventually(
      () => expect(watch.lines.map((l) => `${l.type}:${l.object.metadata.name}`)).toEqual(['ADDED:y']),
      5_000,
      5,
    );
    await clock.advance(30_000);
    await watch.ended;
    expect(watch.lines).toHaveLength(1);
    // the object-path form selects the same way
    const single = await watchLines(target, `${base}/x?watch=true&timeoutSeconds=1`);
    await eventually(
      () => expect(single.lines.map((l) => `${l.type}:${l.object.metadata.name}`)).toEqual(['ADDED:x']),
      5_000,
      5,
    );
    await clock.advance(1_000);
    await single.ended;
  });

  it('sendInitialEvents (watch-list: kubectl wait, client-go informers): ADDED per object, the initial-events-end bookmark at the list version, then changes', async () => {
    const target = await serve();
    const base = '/api/v1/namespaces/default/configmaps';
    for (const name of ['x', 'y', 'z']) await target.request(base, { method: 'POST', body: configMap(name) });
    const listed = (await target.request(base)).json.metadata.resourceVersion;
    const watch = await watchLines(
      target,
      `${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&fieldSelector=metadata.name!%3Dz`,
    );
    await eventually(() => expect(watch.lines).toHaveLength(3), 5_000, 5);
    await target.request(base, { method: 'POST', body: configMap('later') });
    await eventually(() => expect(watch.lines).toHaveLength(4), 5_000, 5);
    expect(watch.lines.map((l) => `${l.type}:${l.object.metadata.name ?? ''}`)).toEqual([
      'ADDED:x',
      'ADDED:y',
      'BOOKMARK:',
      'ADDED:later',
    ]);
    expect(watch.lines[2].object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: listed, annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
    watch.abort();
  });

  it('an API-server restart cuts open streams (no ERROR event); resuming from the old resourceVersion is 410', async () => {
    const target = await serve();
    const watch = await watchLines(target, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1');
    await target.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: configMap('before') });
    await eventually(() => expect(watch.lines).toHaveLength(1), 5_000, 5);
    target.memory.restart();
    await watch.ended;
    // a real restart closes the TCP connection: the stream stops without a final event
    expect(watch.lines.map((l) => l.type)).toEqual(['ADDED']);
    const resumed = await watchLines(target, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1');
    await resumed.ended;
    expect(resumed.lines.map((l) => l.type)).toEqual(['ERROR']);
    expect(resumed.lines[0].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it('close() ends open watch streams and stops listening', async () => {
    const target = await endpoint();
    const watch = await watchLines(target, '/api/v1/namespaces/default/configmaps?watch=1');
    await target.close();
    await watch.ended;
    await expect(fetch(`${target.url}/version`)).rejects.toThrow();
    await target.close();
  });
});
