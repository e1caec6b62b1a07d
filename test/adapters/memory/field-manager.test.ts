/**
 * Server-side apply and managedFields on the memory server (adapters/memory/field-manager): the
 * field sets and their FieldsV1 encoding, and ownership as kube-apiserver moves it — conflicts,
 * force, removal of what an applier stops applying, shared ownership of equal values, list and map
 * types from the schema (built-in kinds and a CRD), the status subresource, updates after applies,
 * the cap on update managers, `managedFields: []`. The wording and sets are the real server's,
 * checked against it by test/integration/server-side-apply-sequences.test.ts.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock } from '../../../adapters/memory/index.js';
import { decodeFieldsV1, encodeFieldsV1 } from '../../../adapters/memory/field-manager/fields-v1.js';
import { fieldSetOfPaths, hasPath, pathsOf } from '../../../adapters/memory/field-manager/field-set.js';
import { fieldElement, pathText, type PathElement } from '../../../adapters/memory/field-manager/path-element.js';
import { prefixFromUserAgent } from '../../../adapters/memory/field-manager/user-agent.js';
import type { JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import { crdWithSchema } from '../../support/crd.js';
import { cmRef, failure, must, record } from './support.js';

const f = fieldElement;
const key = (fields: ReadonlyArray<readonly [string, string | number]>): PathElement => ({ kind: 'key', fields });

describe('field sets and FieldsV1', () => {
  const set = fieldSetOfPaths([
    [f('metadata'), f('labels')],
    [f('metadata'), f('labels'), f('app')],
    [f('spec'), f('containers'), key([['name', 'web']])],
    [f('spec'), f('containers'), key([['name', 'web']]), f('image')],
    [f('spec'), f('finalizers'), { kind: 'value', value: 'a' }],
    [f('apiVersion')],
  ]);

  it('encodes members, children and "." in structured-merge-diff order', () => {
    expect(JSON.stringify(encodeFieldsV1(set))).toBe(
      '{"f:apiVersion":{},"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"web\\"}":{".":{},"f:image":{}}},"f:finalizers":{"v:\\"a\\"":{}}}}',
    );
  });

  it('decodes what it encodes, and refuses a malformed key', () => {
    const decoded = decodeFieldsV1(encodeFieldsV1(set));
    expect(E.isRight(decoded) && pathsOf(decoded.right).map(pathText)).toEqual(pathsOf(set).map(pathText));
    expect(E.isRight(decoded) && hasPath(decoded.right, [f('metadata'), f('labels')])).toBe(true);
    expect(E.isRight(decoded) && hasPath(decoded.right, [f('metadata')])).toBe(false);
    expect(E.isLeft(decodeFieldsV1({ 'k:{not json': {} }))).toBe(true);
  });

  it('prints paths as conflicts name them', () => {
    expect(
      pathText([
        f('spec'),
        f('ports'),
        key([
          ['port', 80],
          ['protocol', 'TCP'],
        ]),
        f('name'),
      ]),
    ).toBe('.spec.ports[port=80,protocol="TCP"].name');
  });

  it('takes the manager of a write without fieldManager from the User-Agent prefix', () => {
    expect(prefixFromUserAgent('kubectl-client-side-apply/v1.36.3 (linux/amd64) kubernetes/abc')).toBe(
      'kubectl-client-side-apply',
    );
    expect(prefixFromUserAgent('x\u0000y/1')).toBe('xy');
    expect(prefixFromUserAgent('a'.repeat(300))).toHaveLength(128);
  });
});

const ns = 'default';
const deploymentRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' };

const deployment = (spec: JsonObject, metadata: JsonObject = {}): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: ns, ...metadata },
  spec,
});

const full = (containers: ReadonlyArray<JsonObject>, extra: JsonObject = {}): JsonObject => ({
  replicas: 1,
  selector: { matchLabels: { app: 'web' } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
  ...extra,
});

const apply = (cluster: MemoryCluster, manager: string, body: Resource, force?: boolean) =>
  cluster.patch(
    { apiVersion: body.apiVersion, kind: body.kind, namespace: ns, name: body.metadata.name },
    { type: 'apply', body, fieldManager: manager, ...(force === undefined ? {} : { force }) },
  );

/** Managers as `name/Operation[/subresource]` with their fields as paths. */
const owners = (object: Resource): Record<string, ReadonlyArray<string>> =>
  Object.fromEntries(
    ((object.metadata.managedFields ?? []) as ReadonlyArray<JsonObject>).map((entry) => {
      const decoded = decodeFieldsV1(entry.fieldsV1);
      const name = [entry.manager, entry.operation, entry.subresource].filter((part) => part !== undefined).join('/');
      return [name, E.isRight(decoded) ? pathsOf(decoded.right).map(pathText) : []];
    }),
  );

const memory = () => createMemoryCluster({ clock: new ManualClock(), seed: 3 });

describe('server-side apply', () => {
  it('a create then an apply by another manager of a field the creator set: 409 with the real message and causes', async () => {
    const cluster = memory();
    await must(cluster.create(deployment(full([{ name: 'web', image: 'nginx:1' }])), { fieldManager: 'creator' }));
    const error = await failure(apply(cluster, 'applier', deployment({ replicas: 3 })));
    expect(error.code).toBe(409);
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "creator" using apps/v1: .spec.replicas');
    expect(error.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "creator" using apps/v1', field: '.spec.replicas' },
    ]);
    const two = await failure(
      apply(
        cluster,
        'applier',
        deployment({ replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } }),
      ),
    );
    expect(two.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "creator" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image',
    );
  });

  it('force takes the conflicting fields; the creator keeps the rest (its defaults included)', async () => {
    const cluster = memory();
    await must(cluster.create(deployment(full([{ name: 'web', image: 'nginx:1' }])), { fieldManager: 'creator' }));
    const forced = await must(apply(cluster, 'applier', deployment({ replicas: 3 }), true));
    expect(forced.spec).toMatchObject({ replicas: 3 });
    const byOwner = owners(forced);
    expect(byOwner['applier/Apply']).toEqual(['.spec.replicas']);
    expect(byOwner['creator/Update']).not.toContain('.spec.replicas');
    expect(byOwner['creator/Update']).toContain('.spec.revisionHistoryLimit');
  });

  it('a field the applier stops applying is removed, unless another manager owns it', async () => {
    const cluster = memory();
    await must(
      apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }]), { labels: { a: '1', b: '2' } })),
    );
    await must(apply(cluster, 'two', deployment({}, { labels: { b: '2' } })));
    const after = await must(
      apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }], { minReadySeconds: 4 }))),
    );
    expect(after.metadata.labels).toEqual({ b: '2' });
    const dropped = await must(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }]))));
    expect((dropped.spec as JsonObject).minReadySeconds).toBeUndefined();
  });

  it('equal values are shared without conflict and stay while one owner is left', async () => {
    const cluster = memory();
    await must(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }], { minReadySeconds: 7 }))));
    const shared = await must(apply(cluster, 'two', deployment({ minReadySeconds: 7 })));
    expect(owners(shared)['two/Apply']).toEqual(['.spec.minReadySeconds']);
    expect(owners(shared)['one/Apply']).toContain('.spec.minReadySeconds');
    const kept = await must(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }]))));
    expect((kept.spec as JsonObject).minReadySeconds).toBe(7);
    const gone = await must(apply(cluster, 'two', deployment({})));
    expect((gone.spec as JsonObject).minReadySeconds).toBeUndefined();
  });

  it('listType map keys containers by name; listType atomic (args) conflicts as a whole', async () => {
    const cluster = memory();
    await must(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1', args: ['a'] }]))));
    const both = await must(
      apply(cluster, 'two', deployment({ template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } })),
    );
    const containers = (both.spec as { template: { spec: { containers: ReadonlyArray<JsonObject> } } }).template.spec
      .containers;
    expect(containers.map((c) => c.name)).toEqual(['web', 'side']);
    const error = await failure(
      apply(cluster, 'two', deployment({ template: { spec: { containers: [{ name: 'web', args: ['b'] }] } } })),
    );
    expect(error.causes?.map((c) => c.field)).toEqual(['.spec.template.spec.containers[name="web"].args']);
  });

  it('listType set: finalizers of two appliers merge; one dropped goes', async () => {
    const cluster = memory();
    const cm = (finalizers: ReadonlyArray<string>): Resource => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: ns, finalizers },
    });
    await must(apply(cluster, 'one', cm(['example.com/a'])));
    const merged = await must(apply(cluster, 'two', cm(['example.com/b'])));
    expect(merged.metadata.finalizers).toEqual(['example.com/a', 'example.com/b']);
    expect(owners(merged)['two/Apply']).toEqual(['.metadata.finalizers[="example.com/b"]']);
    const dropped = await must(apply(cluster, 'one', cm([])));
    expect(dropped.metadata.finalizers).toEqual(['example.com/b']);
    await must(cluster.patch(cmRef('c'), { type: 'merge', body: { metadata: { finalizers: null } } }));
  });

  it('the status subresource: managers recorded with subresource status; spec fields are not theirs', async () => {
    const cluster = memory();
    await must(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }]))));
    await must(
      cluster.patchStatus(deploymentRef, {
        type: 'apply',
        fieldManager: 'controller',
        force: true,
        body: { ...deployment({ replicas: 9 }), status: { replicas: 1 } },
      }),
    );
    const updated = await must(
      cluster.patchStatus(
        deploymentRef,
        { type: 'merge', body: { status: { readyReplicas: 1 } } },
        { fieldManager: 'kubelet-ish' },
      ),
    );
    expect(owners(updated)['controller/Apply/status']).toEqual(['.status.replicas']);
    expect(owners(updated)['kubelet-ish/Update/status']).toEqual(['.status.readyReplicas']);
    expect((updated.spec as JsonObject).replicas).toBe(1);
  });

  it('an update after an apply takes the field it changed; the next apply conflicts with the updater', async () => {
    const cluster = memory();
    await must(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }]))));
    await must(
      cluster.patch(deploymentRef, { type: 'merge', body: { spec: { replicas: 5 } } }, { fieldManager: 'editor' }),
    );
    const stored = await must(cluster.get(deploymentRef));
    const object = stored._tag === 'Some' ? stored.value : deployment({});
    expect(owners(object)['editor/Update']).toEqual(['.spec.replicas']);
    expect(owners(object)['one/Apply']).not.toContain('.spec.replicas');
    const error = await failure(apply(cluster, 'one', deployment(full([{ name: 'web', image: 'nginx:1' }]))));
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "editor" using apps/v1: .spec.replicas');
  });

  it('keys a custom resource list by its CRD listType map keys; the CRD map-type atomic owns as a whole', async () => {
    const cluster = memory();
    await must(
      cluster.create(
        crdWithSchema({
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                ports: {
                  type: 'array',
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['name'],
                  items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                },
                selector: {
                  type: 'object',
                  'x-kubernetes-map-type': 'atomic',
                  additionalProperties: { type: 'string' },
                },
              },
            },
          },
        }),
      ),
    );
    const widget = (spec: JsonObject): Resource => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec,
    });
    await must(apply(cluster, 'one', widget({ ports: [{ name: 'http', port: 80 }], selector: { a: '1' } })));
    const both = await must(apply(cluster, 'two', widget({ ports: [{ name: 'grpc', port: 90 }] })));
    expect(owners(both)['two/Apply']).toEqual([
      '.spec.ports[name="grpc"]',
      '.spec.ports[name="grpc"].name',
      '.spec.ports[name="grpc"].port',
    ]);
    expect(owners(both)['one/Apply']).toContain('.spec.selector');
    const error = await failure(apply(cluster, 'two', widget({ selector: { b: '2' } })));
    expect(error.causes?.map((c) => c.field)).toEqual(['.spec.selector']);
  });
});

describe('managedFields on every write', () => {
  it('records the manager, operation, version and time of the memory clock; watch events carry them', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 3 });
    const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns });
    const created = await must(
      cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: ns }, data: { a: '1' } }),
    );
    expect(created.metadata.managedFields).toEqual([
      {
        manager: 'unknown',
        operation: 'Update',
        apiVersion: 'v1',
        time: new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
      },
    ]);
    await cluster.settle();
    expect(watch.events[0]?.type === 'ADDED' && watch.events[0].object.metadata.managedFields).toEqual(
      created.metadata.managedFields,
    );
    watch.stop();
  });

  it('keeps at most ten update managers, the oldest merged into ancient-changes', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 3 });
    // With data: an object created with no field anyone can own is not tracked at all (as on the real server).
    await must(
      cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: ns }, data: { s: 'x' } }),
    );
    let last: Resource | undefined;
    for (let i = 0; i < 12; i++) {
      await clock.advance(2000);
      last = await must(
        cluster.patch(cmRef('c'), { type: 'merge', body: { data: { [`k${i}`]: 'v' } } }, { fieldManager: `m${i}` }),
      );
    }
    const managers = ((last?.metadata.managedFields ?? []) as ReadonlyArray<JsonObject>).map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers).toContain('ancient-changes');
    expect(managers).not.toContain('m0');
    expect(managers).toContain('m11');
  });

  it('managedFields: [] in a request clears them; the object stays untracked until an apply', async () => {
    const cluster = memory();
    await must(
      cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: ns }, data: { a: '1' } }),
    );
    const cleared = await must(cluster.patch(cmRef('c'), { type: 'merge', body: { metadata: { managedFields: [] } } }));
    expect(cleared.metadata.managedFields).toBeUndefined();
    const later = await must(cluster.patch(cmRef('c'), { type: 'merge', body: { data: { b: '2' } } }));
    expect(later.metadata.managedFields).toBeUndefined();
    const error = await failure(
      apply(cluster, 'one', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: ns },
        data: { a: '3' },
      }),
    );
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  });

  it('an apply needs a field manager and no managedFields in its body', async () => {
    const cluster = memory();
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: ns } } as Resource;
    expect((await failure(apply(cluster, '', body))).code).toBe(422);
    const withFields = { ...body, metadata: { ...body.metadata, managedFields: [] } } as Resource;
    expect((await failure(apply(cluster, 'one', withFields))).message).toBe('metadata.managedFields must be nil');
  });
});
