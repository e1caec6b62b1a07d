/**
 * Contract: discovery, create/get/list/update/delete, their errors, resourceVersion, concurrency, generation, cluster
 * scope.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import type { Resource } from '../../core/model/resource.js';
import {
  asNumber,
  configMap,
  configMapRef,
  expectError,
  failure,
  must,
  unique,
  widget,
  widgetApiVersion,
  widgetRef,
  type ContractEnv,
} from './contract-support.js';

const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

export const crudContract = (env: () => ContractEnv): void => {
  it('discovery: scopes of built-in and custom kinds; UnknownKind for kinds not served', async () => {
    const { cluster } = env();
    expect(await must(cluster.scopeOf('v1', 'ConfigMap'))).toBe('Namespaced');
    expect(await must(cluster.scopeOf(widgetApiVersion, 'Widget'))).toBe('Namespaced');
    expect(await must(cluster.scopeOf('v1', 'Namespace'))).toBe('Cluster');
    expect(await must(cluster.scopeOf('rbac.authorization.k8s.io/v1', 'ClusterRole'))).toBe('Cluster');
    expectError(await failure(cluster.scopeOf('contract.kreconcile.io/v1', 'Nonexistent')), 'UnknownKind', 404);
  });

  it('unknown kinds and versions answer UnknownKind (404) on every verb', async () => {
    const { cluster, namespace } = env();
    const ref = { apiVersion: 'contract.kreconcile.io/v1', kind: 'Nonexistent', namespace, name: 'x' };
    expectError(await failure(cluster.get(ref)), 'UnknownKind', 404);
    expectError(
      await failure(cluster.list({ apiVersion: ref.apiVersion, kind: ref.kind, namespace })),
      'UnknownKind',
      404,
    );
    expectError(
      await failure(cluster.create({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: 'x', namespace } })),
      'UnknownKind',
      404,
    );
    expectError(
      await failure(cluster.get({ apiVersion: 'apps/v9', kind: 'Deployment', namespace, name: 'x' })),
      'UnknownKind',
      404,
    );
  });

  it('create answers the stored object with server fields, and get returns the same', async () => {
    const { cluster, namespace } = env();
    const created = await must(cluster.create(configMap(namespace, unique('cm'), { a: '1' })));
    expect(created.metadata.namespace).toBe(namespace);
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(rfc3339);
    asNumber(created.metadata.resourceVersion);
    expect(created.data).toEqual({ a: '1' });
    const read = await must(cluster.get(configMapRef(namespace, created.metadata.name)));
    expect(read).toEqual(O.some(created));
  });

  it('create of an existing name answers AlreadyExists (409) and changes nothing', async () => {
    const { cluster, namespace } = env();
    const name = unique('cm');
    const first = await must(cluster.create(configMap(namespace, name, { v: 'first' })));
    expectError(await failure(cluster.create(configMap(namespace, name, { v: 'second' }))), 'AlreadyExists', 409);
    expect(await must(cluster.get(configMapRef(namespace, name)))).toEqual(O.some(first));
  });

  it('a missing object: get answers none; delete, update and patch answer NotFound (404)', async () => {
    const { cluster, namespace } = env();
    const ref = configMapRef(namespace, unique('missing'));
    expect(await must(cluster.get(ref))).toEqual(O.none);
    expectError(await failure(cluster.delete(ref)), 'NotFound', 404);
    expectError(await failure(cluster.update(configMap(namespace, ref.name))), 'NotFound', 404);
    expectError(await failure(cluster.patch(ref, { type: 'merge', body: { data: { a: 'b' } } })), 'NotFound', 404);
  });

  it('create in a namespace that does not exist answers NotFound (404)', async () => {
    const { cluster } = env();
    expectError(await failure(cluster.create(configMap(unique('no-such-ns'), 'x'))), 'NotFound', 404);
  });

  it('an invalid name answers Invalid (422)', async () => {
    const { cluster, namespace } = env();
    expectError(await failure(cluster.create(configMap(namespace, 'Bad_Name'))), 'Invalid', 422);
  });

  it('a resourceVersion on a new object is refused (500, as the storage layer answers)', async () => {
    const { cluster, namespace } = env();
    const object = configMap(namespace, unique('cm'));
    expectError(
      await failure(cluster.create({ ...object, metadata: { ...object.metadata, resourceVersion: '12345' } })),
      'Internal',
      500,
    );
  });

  it('objects are keyed by namespace: the same name lives in two namespaces', async () => {
    const { cluster, namespace } = env();
    const other = unique('kr-other');
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: other } }));
    try {
      const name = unique('same');
      const here = await must(cluster.create(configMap(namespace, name, { where: 'here' })));
      const there = await must(cluster.create(configMap(other, name, { where: 'there' })));
      expect(here.metadata.uid).not.toBe(there.metadata.uid);
      const read = await must(cluster.get(configMapRef(other, name)));
      expect(O.isSome(read) && read.value.data).toEqual({ where: 'there' });
    } finally {
      await cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: other })();
    }
  });

  it('resourceVersion increases with every write; a list carries a version at least as new', async () => {
    const { cluster, namespace } = env();
    const name = unique('cm');
    const created = await must(cluster.create(configMap(namespace, name, { n: '1' })));
    const updated = await must(cluster.update({ ...created, data: { n: '2' } }));
    const patched = await must(
      cluster.patch(configMapRef(namespace, name), { type: 'merge', body: { data: { n: '3' } } }),
    );
    expect(asNumber(updated.metadata.resourceVersion)).toBeGreaterThan(asNumber(created.metadata.resourceVersion));
    expect(asNumber(patched.metadata.resourceVersion)).toBeGreaterThan(asNumber(updated.metadata.resourceVersion));
    const list = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }));
    expect(asNumber(list.resourceVersion)).toBeGreaterThanOrEqual(asNumber(patched.metadata.resourceVersion));
    expect(list.items.find((item) => item.metadata.name === name)).toEqual(patched);
  });

  it('update with a stale resourceVersion answers Conflict (409) and keeps the newer object', async () => {
    const { cluster, namespace } = env();
    const created = await must(cluster.create(configMap(namespace, unique('cm'), { v: '1' })));
    const newer = await must(cluster.update({ ...created, data: { v: '2' } }));
    expectError(await failure(cluster.update({ ...created, data: { v: 'stale' } })), 'Conflict', 409);
    expect(await must(cluster.get(configMapRef(namespace, created.metadata.name)))).toEqual(O.some(newer));
  });

  it('update without resourceVersion: unconditional for built-ins, Invalid (422) for custom resources', async () => {
    const { cluster, namespace } = env();
    const cm = await must(cluster.create(configMap(namespace, unique('cm'), { v: '1' })));
    const { resourceVersion: _cm, ...cmMeta } = cm.metadata;
    const updated = await must(cluster.update({ ...cm, metadata: cmMeta, data: { v: '2' } }));
    expect(updated.data).toEqual({ v: '2' });
    const w = await must(cluster.create(widget(namespace, unique('w'), { size: 1 })));
    const { resourceVersion: _w, ...wMeta } = w.metadata;
    expectError(await failure(cluster.update({ ...w, metadata: wMeta, spec: { size: 2 } })), 'Invalid', 422);
  });

  it('a write that changes nothing is not a write: same resourceVersion, no new generation', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 })));
    const again = await must(cluster.update(created));
    expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const patched = await must(
      cluster.patch(widgetRef(namespace, name), { type: 'merge', body: { spec: { size: 1 } } }),
    );
    expect(patched.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(patched.metadata.generation).toBe(1);
  });

  it('generation: 1 on create, bumped by spec changes only (not labels, not status)', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 })));
    expect(created.metadata.generation).toBe(1);
    const resized = await must(cluster.update({ ...created, spec: { ...(created.spec as object), size: 2 } }));
    expect(resized.metadata.generation).toBe(2);
    const labelled = await must(
      cluster.update({ ...resized, metadata: { ...resized.metadata, labels: { touched: 'yes' } } }),
    );
    expect(labelled.metadata.generation).toBe(2);
    expect(asNumber(labelled.metadata.resourceVersion)).toBeGreaterThan(asNumber(resized.metadata.resourceVersion));
    const statused = await must(cluster.updateStatus({ ...labelled, status: { phase: 'Ready' } }));
    expect(statused.metadata.generation).toBe(2);
    expect(statused.status).toEqual({ phase: 'Ready' });
  });

  it('delete of an object without finalizers removes it at once (none), and it is gone', async () => {
    const { cluster, namespace } = env();
    const created = await must(cluster.create(configMap(namespace, unique('cm'))));
    const ref = configMapRef(namespace, created.metadata.name);
    expect(await must(cluster.delete(ref))).toEqual(O.none);
    expect(await must(cluster.get(ref))).toEqual(O.none);
    const list = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }));
    expect(list.items.map((item) => item.metadata.name)).not.toContain(created.metadata.name);
  });

  it('dry-run create answers the object as it would be stored, and stores nothing', async () => {
    const { cluster, namespace } = env();
    const name = unique('dry');
    const answer = await must(cluster.create(deployment(namespace, name), { dryRun: true }));
    expect((answer.spec as { replicas?: number }).replicas).toBe(1);
    expect(await must(cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name }))).toEqual(O.none);
  });

  it('a write naming a namespace for a cluster-scoped kind is refused, nothing written (issue 19: it would act cluster-wide)', async () => {
    const { cluster } = env();
    const name = unique('contract-scoped');
    const ref = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name };
    const body = {
      ...ref,
      metadata: { name, namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    } as Resource;
    const refused = await cluster.create(body)();
    expect(E.isLeft(refused) && refused.left).toMatchObject({
      _tag: 'Forbidden',
      message:
        'ClusterRoleBinding is cluster-scoped (API discovery) but the write names namespace default: refused, it would act cluster-wide',
    });
    const patched = await cluster.patch({ ...ref, namespace: 'default' }, { type: 'merge', body: { metadata: {} } })();
    expect(E.isLeft(patched) && patched.left._tag).toBe('Forbidden');
    expect(await must(cluster.get(ref))).toEqual(O.none);
  });

  it('cluster-scoped kinds live without a namespace (Namespace, ClusterRole)', async () => {
    const { cluster } = env();
    const nsName = unique('kr-scope');
    const ns = await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsName } }));
    try {
      expect(ns.metadata.namespace).toBeUndefined();
      expect((ns.status as { phase?: string }).phase).toBe('Active');
      expect(ns.metadata.labels?.['kubernetes.io/metadata.name']).toBe(nsName);
      expect((ns.spec as { finalizers?: ReadonlyArray<string> }).finalizers).toEqual(['kubernetes']);
      const relabelled = await must(cluster.update({ ...ns, metadata: { ...ns.metadata, labels: { other: 'x' } } }));
      expect(relabelled.metadata.labels).toEqual({ other: 'x', 'kubernetes.io/metadata.name': nsName });
      const listed = await must(
        cluster.list({ apiVersion: 'v1', kind: 'Namespace', labelSelector: `kubernetes.io/metadata.name=${nsName}` }),
      );
      expect(listed.items.map((item) => item.metadata.name)).toEqual([nsName]);
    } finally {
      await cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: nsName })();
    }
    const roleName = unique('contract-role');
    const ref = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: roleName };
    const role = await must(
      cluster.create({
        ...ref,
        metadata: { name: roleName, labels: { contract: roleName } },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      }),
    );
    expect(role.metadata.namespace).toBeUndefined();
    expect(await must(cluster.get(ref))).toEqual(O.some(role));
    const roles = await must(
      cluster.list({ apiVersion: ref.apiVersion, kind: ref.kind, labelSelector: `contract=${roleName}` }),
    );
    expect(roles.items).toEqual([role]);
    expect(await must(cluster.delete(ref))).toEqual(O.none);
    expect(await must(cluster.get(ref))).toEqual(O.none);
  });

  it('hostile keys are data: `__proto__` and `constructor` round-trip and pollute nothing', async () => {
    const { cluster, namespace } = env();
    const spec = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "size": 1}',
    ) as Resource['metadata'];
    const created = await must(cluster.create(widget(namespace, unique('w'), spec)));
    const read = await must(cluster.get(widgetRef(namespace, created.metadata.name)));
    const stored = O.isSome(read) ? (read.value.spec as Record<string, unknown>) : {};
    expect(Object.prototype.hasOwnProperty.call(stored, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
};

/** A minimal valid Deployment (apps/v1 requires a selector matching the template). */
export const deployment = (
  namespace: string,
  name: string,
  images: ReadonlyArray<string> = ['nginx:1.25'],
): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: images.map((image, i) => ({ name: `c${i}`, image, ports: [{ containerPort: 8080 + i }] })) },
    },
  },
});
