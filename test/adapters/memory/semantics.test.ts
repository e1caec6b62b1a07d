/** Memory adapter: copies and immutability, hostile keys, clocks and seeds, kinds, status routes. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock } from '../../../adapters/memory/index.js';
import { cmRef, configMap, failure, must } from './support.js';

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
};

describe('memory API server semantics', () => {
  it('answers are private deep copies; inputs are never mutated (frozen inputs work)', async () => {
    const cluster = createMemoryCluster();
    const input = deepFreeze(configMap('a', { k: 'v' }));
    const created = await must(cluster.create(input));
    expect(input.metadata).toEqual({ name: 'a', namespace: 'default' });
    (created.data as Record<string, string>).k = 'mutated';
    const read = await must(cluster.get(cmRef('a')));
    expect(O.isSome(read) && read.value.data).toEqual({ k: 'v' });
    const snapshot = cluster.objects();
    (snapshot.find((o) => o.metadata.name === 'a')?.metadata as { name: string }).name = 'renamed';
    expect(cluster.objects().some((o) => o.metadata.name === 'renamed')).toBe(false);
    await must(cluster.update(deepFreeze({ ...created, data: { k: 'v2' } })));
  });

  it('hostile keys through every patch type stay data and pollute no prototype', async () => {
    const cluster = createMemoryCluster();
    // Not empty: the server drops an empty `data` (omitempty), and a JSON patch below needs it.
    await must(cluster.create(configMap('h', { x: '1' })));
    await must(
      cluster.patch(cmRef('h'), { type: 'json', operations: [{ op: 'add', path: '/data/__proto__', value: 'json' }] }),
    );
    await must(
      cluster.patch(cmRef('h'), {
        type: 'merge',
        body: JSON.parse('{"data": {"constructor": "merge", "__proto__": "merge"}}'),
      }),
    );
    const read = await must(cluster.get(cmRef('h')));
    const data = O.isSome(read) ? (read.value.data as Record<string, unknown>) : {};
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toBe('merge');
    expect(Object.getOwnPropertyDescriptor(data, 'constructor')?.value).toBe('merge');
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'json')).toBe(false);
  });

  it('timestamps come from the injected clock; UIDs and generated names from the seed', async () => {
    const make = async () => {
      const cluster = createMemoryCluster({ clock: new ManualClock(Date.UTC(2030, 4, 6, 7, 8, 9, 500)), seed: 11 });
      return must(
        cluster.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '', generateName: 'job-', namespace: 'default' },
        }),
      );
    };
    const first = await make();
    expect(first.metadata.creationTimestamp).toBe('2030-05-06T07:08:09Z');
    expect(first.metadata.name).toMatch(/^job-[a-z0-9]{5}$/);
    expect(await make()).toEqual(first);
  });

  it('namespaced objects without a namespace live in default; a cluster-scoped write naming a namespace is refused', async () => {
    const cluster = createMemoryCluster();
    const cm = await must(cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' } }));
    expect(cm.metadata.namespace).toBe('default');
    // The API server would drop the namespace; the port refuses, as the Kubernetes adapter does (issue 19).
    const named = await cluster.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r', namespace: 'default' },
    })();
    expect(E.isLeft(named) && named.left._tag).toBe('Forbidden');
    const role = await must(
      cluster.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } }),
    );
    expect(role.metadata.namespace).toBeUndefined();
  });

  it('registerKind serves a kind without a CRD; a CRD change of group or scope is refused', async () => {
    const cluster = createMemoryCluster();
    cluster.registerKind({
      group: 'example.com',
      version: 'v2',
      kind: 'Gear',
      plural: 'gears',
      scope: 'Cluster',
      statusSubresource: false,
    });
    expect(await must(cluster.scopeOf('example.com/v2', 'Gear'))).toBe('Cluster');
    expect((await failure(cluster.get({ apiVersion: 'example.com/v1', kind: 'Gear', name: 'g' })))._tag).toBe(
      'UnknownKind',
    );
    // Both calls run now, before any background work: the definition is stored, its kind not served yet.
    const creating = cluster.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    })();
    const early = cluster.list({ apiVersion: 'example.com/v1', kind: 'Thing' })();
    const created = await creating;
    const crd = E.isRight(created) ? created.right : expect.fail('create failed');
    expect(crd.status).toEqual({ conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    const earlyAnswer = await early;
    expect(E.isLeft(earlyAnswer) && earlyAnswer.left._tag).toBe('UnknownKind');
    await cluster.settle();
    const established = await must(
      cluster.get({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name }),
    );
    const conditions = O.isSome(established)
      ? (established.value.status as { conditions: ReadonlyArray<{ type: string; status: string }> }).conditions
      : [];
    expect(conditions.map((c) => [c.type, c.status])).toEqual([
      ['NamesAccepted', 'True'],
      ['Established', 'True'],
    ]);
    await must(cluster.list({ apiVersion: 'example.com/v1', kind: 'Thing' }));
    const current = O.isSome(established) ? established.value : crd;
    expect(
      (await failure(cluster.update({ ...current, spec: { ...(current.spec as object), scope: 'Cluster' } })))._tag,
    ).toBe('Invalid');
    expect((await failure(cluster.create({ ...crd, metadata: { name: 'wrong.example.com' } })))._tag).toBe('Invalid');
  });

  it('update and patch of a kind without status subresource keep status; /status answers NotFound', async () => {
    const cluster = createMemoryCluster();
    await must(cluster.create(configMap('s')));
    expect((await failure(cluster.patchStatus(cmRef('s'), { type: 'merge', body: { status: {} } })))._tag).toBe(
      'NotFound',
    );
  });

  it('apply without a field manager is Invalid; a patch may not rename the object', async () => {
    const cluster = createMemoryCluster();
    await must(cluster.create(configMap('x')));
    expect(
      (await failure(cluster.patch(cmRef('x'), { type: 'apply', fieldManager: '', body: configMap('x') })))._tag,
    ).toBe('Invalid');
    expect((await failure(cluster.patch(cmRef('x'), { type: 'merge', body: { metadata: { name: 'y' } } })))._tag).toBe(
      'BadRequest',
    );
  });

  it('generation: kinds without one never get it; a Deployment bumps on annotation changes too', async () => {
    const cluster = createMemoryCluster();
    const cm = await must(cluster.create(configMap('g')));
    expect(cm.metadata.generation).toBeUndefined();
    const deployment = await must(
      cluster.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: 'default' },
        spec: {
          selector: { matchLabels: { a: 'd' } },
          template: { metadata: { labels: { a: 'd' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } },
        },
      }),
    );
    const annotated = await must(
      cluster.patch(
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'd' },
        { type: 'merge', body: { metadata: { annotations: { note: 'x' } } } },
      ),
    );
    const labelled = await must(
      cluster.patch(
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'd' },
        { type: 'merge', body: { metadata: { labels: { l: 'x' } } } },
      ),
    );
    expect([deployment.metadata.generation, annotated.metadata.generation, labelled.metadata.generation]).toEqual([
      1, 2, 2,
    ]);
  });

  it('built-in status writes: spec and generation kept, metadata taken, finalizer rule and kind rules applied', async () => {
    const cluster = createMemoryCluster();
    const ns = await must(
      cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: { a: '1' } } }),
    );
    const written = await must(
      cluster.updateStatus({ ...ns, metadata: { ...ns.metadata, labels: { b: '2' } }, spec: { finalizers: [] } }),
    );
    expect(written.metadata.labels).toEqual({ b: '2', 'kubernetes.io/metadata.name': 'n' });
    expect(written.spec).toEqual({ finalizers: ['kubernetes'] });
    const ref = { apiVersion: 'v1', kind: 'Service', namespace: 'n', name: 's' };
    await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'n', finalizers: ['x.io/f'] },
        spec: { ports: [{ port: 80 }] },
      }),
    );
    const deleting = await must(cluster.delete(ref));
    const svc = O.isSome(deleting) ? deleting.value : expect.fail('the finalizer should hold the Service');
    expect(
      (
        await failure(
          cluster.updateStatus({ ...svc, metadata: { ...svc.metadata, finalizers: ['x.io/f', 'x.io/new'] } }),
        )
      )._tag,
    ).toBe('Invalid');
    await must(cluster.updateStatus({ ...svc, metadata: { ...svc.metadata, finalizers: [] } }));
    expect(await must(cluster.get(ref))).toEqual(O.none);
  });

  it('a Service that becomes ExternalName frees its cluster IP for the next Service', async () => {
    const cluster = createMemoryCluster();
    const first = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'a', namespace: 'default' },
        spec: { ports: [{ port: 80 }] },
      }),
    );
    await must(
      cluster.patch(
        { apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'a' },
        { type: 'merge', body: { spec: { type: 'ExternalName', externalName: 'x.example.com' } } },
      ),
    );
    const second = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'b', namespace: 'default' },
        spec: { ports: [{ port: 80 }] },
      }),
    );
    expect((second.spec as { clusterIP: string }).clusterIP).toBe((first.spec as { clusterIP: string }).clusterIP);
  });
});
