/**
 * What `kubectl get` needs beyond plain objects, on the memory endpoint: the real server's printer
 * columns for built-in kinds, `kubectl get all` (discovery categories), short names, watches in
 * Table form (`kubectl get -w`) and `kubectl auth can-i` (SelfSubjectAccessReview).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../support/eventually.js';
import { endpoint, watchLines, type Endpoint } from './http-support.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

const opened: Endpoint[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((target) => target.close()));
});
const serve = async (): Promise<Endpoint> => {
  const served = await endpoint({ workloads: true });
  opened.push(served);
  return served;
};

const tableOf = async (target: Endpoint, path: string): Promise<any> => {
  const response = await fetch(`${target.url}${path}`, {
    headers: { authorization: `Bearer ${target.token}`, accept: TABLE },
  });
  expect(response.status).toBe(200);
  return response.json();
};

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } },
  },
};

describe('kubectl get on the memory endpoint', () => {
  it('prints a Deployment with READY, UP-TO-DATE, AVAILABLE and the wide columns', async () => {
    const target = await serve();
    expect(
      (await target.request('/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: deployment }))
        .status,
    ).toBe(201);
    const table = await tableOf(target, '/apis/apps/v1/namespaces/default/deployments');
    expect(table.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`)).toEqual([
      'Name:0',
      'Ready:0',
      'Up-to-date:0',
      'Available:0',
      'Age:0',
      'Containers:1',
      'Images:1',
      'Selector:1',
    ]);
    const [row] = table.rows;
    expect(row.cells[0]).toBe('web');
    expect(row.cells[1]).toMatch(/^\d\/2$/);
    expect(row.cells.slice(5)).toEqual(['app', 'nginx:1.27', 'app=web']);
  });

  it('advertises the real short names and categories, so `kubectl get all` and `get deploy` resolve', async () => {
    const target = await serve();
    const apps = await target.request('/apis/apps/v1');
    const deployments = apps.json.resources.find((r: { name: string }) => r.name === 'deployments');
    expect(deployments).toMatchObject({ shortNames: ['deploy'], categories: ['all'], singularName: 'deployment' });
    const core = await target.request('/api/v1');
    const byName = new Map(core.json.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('services')).toMatchObject({ shortNames: ['svc'], categories: ['all'] });
    expect(byName.get('configmaps')).toMatchObject({ shortNames: ['cm'] });
    expect((byName.get('configmaps') as { categories?: unknown }).categories).toBeUndefined();
  });

  it('streams a watch as one-row Tables, the column definitions in the first event only', async () => {
    const target = await serve();
    const watch = await watchLines(target, '/api/v1/namespaces/default/configmaps?watch=true', TABLE);
    for (const name of ['a', 'b'])
      await target.request('/api/v1/namespaces/default/configmaps', {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } },
      });
    await eventually(() => expect(watch.lines).toHaveLength(2));
    watch.abort();
    const [first, second] = watch.lines;
    expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'Table' } });
    expect(first.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(first.object.rows[0].cells.slice(0, 2)).toEqual(['a', 1]);
    expect(second.object.columnDefinitions).toBeNull();
    expect(second.object.rows[0].cells.slice(0, 2)).toEqual(['b', 1]);
  });

  it('answers kubectl auth can-i: every authenticated request is allowed, and says why', async () => {
    const target = await serve();
    const review = await target.request('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'default' } },
      },
    });
    expect(review.status).toBe(201);
    expect(review.json).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', resource: 'deployments' } },
      status: { allowed: true },
    });
    expect(review.json.status.reason).toContain('no RBAC');
    const rules = await target.request('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      method: 'POST',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
    });
    expect(rules.json.status.resourceRules).toEqual([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    const unauthenticated = await target.request('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      body: {},
      token: null,
    });
    expect(unauthenticated.status).toBe(401);
  });
});
