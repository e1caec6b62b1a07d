/** `plan`: actions and their order, ownership, finalizer, deletion, conflicts, status and outcome. */
import { describe, it, expect } from 'vitest';
import {
  FINALIZER,
  builtinScopes,
  plan,
  type ApplicationSpec,
  type JsonObject,
  type Plan,
  type Resource,
} from '../../core/internal.js';
import {
  APP_UID,
  OPEN_TENANCY,
  OWNER_MARK,
  actionsOf,
  application,
  marked,
  scopes,
  served,
  writes,
} from './fixtures.js';

const CONTROLLER_REFERENCE = {
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  name: 'app',
  uid: APP_UID,
  controller: true,
  blockOwnerDeletion: true,
};

const control = (min: number, max: number) => ({
  observer_schema_list_min_length: min,
  observer_schema_list_max_length: max,
});

const configMap = (name: string, data: object = { a: '1' }, namespace?: string): Resource =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    data,
  }) as Resource;
const deployment = (name: string, replicas = 1): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

/** The object as the cluster holds it after our create (namespace defaulted, marks, server fields). */
const ours = (resource: Resource, namespace: string | undefined = 'default'): Resource =>
  served(
    marked({ ...resource, metadata: { ...resource.metadata, ...(namespace === undefined ? {} : { namespace }) } }),
  );

const planOf = (
  spec: ApplicationSpec,
  live: ReadonlyArray<Resource> | undefined,
  options: Parameters<typeof application>[1] = {},
  now = 'now',
): Plan => plan({ application: application(spec, options), live, scopes, now });
/** `planOf` under a policy allowing every namespace and cluster-scoped kind. */
const openPlanOf = (spec: ApplicationSpec, live: ReadonlyArray<Resource> | undefined): Plan =>
  plan({ application: application(spec), live, scopes, now: 'now', options: { tenancy: OPEN_TENANCY } });

const typesOf = (result: Plan) =>
  result.actions.map(
    (action) => `${action.type} ${action.ref.kind}${action.ref.name === 'app' ? '' : `/${action.ref.name}`}`,
  );
const condition = (result: Plan, type: string) => result.status.conditions?.find((c) => c.type === type);

describe('plan: order of actions', () => {
  it('creates in install order: Namespace, CRD, ServiceAccount, Secret, ConfigMap, RBAC, Service, workloads, unknown kinds last', () => {
    const crd: Resource = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.io' },
      spec: { group: 'example.io', names: { kind: 'Gadget', plural: 'gadgets' }, scope: 'Namespaced' },
    };
    const manifest: ReadonlyArray<Resource> = [
      { apiVersion: 'example.io/v1', kind: 'Gadget', metadata: { name: 'g' } },
      deployment('web'),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb' } },
      configMap('settings'),
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
      crd,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
    ];
    expect(typesOf(openPlanOf({ manifest }, []))).toEqual([
      'create Namespace/team',
      'create CustomResourceDefinition/gadgets.example.io',
      'create ServiceAccount/sa',
      'create Secret/s',
      'create ConfigMap/settings',
      'create Role/r',
      'create RoleBinding/rb',
      'create Service/web',
      'create Deployment/web',
      'create Gadget/g',
    ]);
  });

  it('keeps manifest order within a kind', () => {
    expect(typesOf(planOf({ manifest: [configMap('b'), configMap('a'), configMap('c')] }, []))).toEqual([
      'create ConfigMap/b',
      'create ConfigMap/a',
      'create ConfigMap/c',
    ]);
  });

  it('deletes in reverse install order, before creations, then patches', () => {
    const live = [
      ours(configMap('old')),
      ours(deployment('old')),
      ours({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'old-ns' } }, undefined),
      ours({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'old' } }),
      ours(deployment('web', 1)),
    ];
    const result = planOf({ manifest: [deployment('web', 3), configMap('new')] }, live);
    expect(typesOf(result)).toEqual([
      'delete Deployment/old',
      'delete Service/old',
      'delete ConfigMap/old',
      'delete Namespace/old-ns',
      'create ConfigMap/new',
      'patch Deployment/web',
    ]);
    expect(actionsOf(result, 'delete').every((action) => action.reason === 'RemovedFromSpec')).toBe(true);
  });
});

describe('plan: creates', () => {
  it('the body is the whole desired resource plus ownership marks; server-set metadata dropped', () => {
    const resource: Resource = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        labels: { app: 'web' },
        annotations: { note: 'x' },
        uid: 'stale',
        resourceVersion: '7',
        managedFields: [],
      },
      data: { a: '1' },
    };
    const [create] = actionsOf(planOf({ manifest: [resource] }, []), 'create');
    expect(create?.body).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        namespace: 'default',
        labels: { app: 'web', 'app.kubernetes.io/managed-by': 'kreconcile' },
        annotations: { note: 'x', 'kreconcile.io/owner': OWNER_MARK },
        ownerReferences: [
          {
            apiVersion: 'kreconcile.io/v1alpha1',
            kind: 'Application',
            name: 'app',
            uid: APP_UID,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { a: '1' },
    });
  });

  it('cluster-scoped resources have no namespace and no ownerReference; other namespaces no ownerReference', () => {
    const namespaceResource: Resource = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', namespace: 'ignored' },
    };
    const creates = actionsOf(openPlanOf({ manifest: [namespaceResource, configMap('c', {}, 'team')] }, []), 'create');
    expect(creates.map((c) => c.ref)).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', name: 'team' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'team' },
    ]);
    expect(creates.map((c) => c.body.metadata.ownerReferences)).toEqual([undefined, undefined]);
    expect(creates[0]?.body.metadata.namespace).toBeUndefined();
  });

  it('the same name in two namespaces is two resources', () => {
    const result = openPlanOf({ manifest: [configMap('c', { a: '1' }), configMap('c', { a: '2' }, 'other')] }, [
      ours(configMap('c', { a: '2' }), 'other'),
    ]);
    expect(result.actions.map((a) => [a.type, a.ref.namespace])).toEqual([['create', 'default']]);
  });

  it('a list longer than its maximum is created within it', () => {
    const song: Resource = {
      apiVersion: 'music.example/v1',
      kind: 'Song',
      metadata: { name: 's' },
      spec: { rythms: ['a', 'b', 'c'], other: [1, 2] },
    };
    const observerSchema = [
      {
        apiVersion: 'music.example/v1',
        kind: 'Song',
        metadata: { name: 's' },
        spec: { rythms: [null, control(1, 2)] },
      },
    ];
    const [create] = actionsOf(planOf({ manifest: [song], observerSchema }, []), 'create');
    expect(create?.body.spec).toEqual({ rythms: ['a', 'b'], other: [1, 2] });
  });
});

describe('plan: patches', () => {
  it('patch observed fields only, against the live object, and explain them', () => {
    const live = {
      ...ours(deployment('web', 1)),
      spec: { replicas: 1, paused: true, template: { spec: { containers: [{ name: 'c', image: 'nginx:old' }] } } },
    };
    const [patch] = actionsOf(planOf({ manifest: [deployment('web', 3)] }, [live]), 'patch');
    expect(patch).toEqual({
      type: 'patch',
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      patch: [
        { op: 'replace', path: '/spec/replicas', value: 3 },
        { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'c' },
        { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx' },
      ],
      changes: [
        { path: 'spec.replicas', from: 1, to: 3 },
        { path: 'spec.template.spec.containers[0].image', from: 'nginx:old', to: 'nginx' },
      ],
    });
  });

  it("another actor's change to a non-observed field stands", () => {
    const live = {
      ...ours(deployment('web')),
      spec: {
        replicas: 1,
        template: { spec: { containers: [{ name: 'c', image: 'nginx', resources: {} }] } },
        strategy: 'x',
      },
    };
    expect(writes(planOf({ manifest: [deployment('web')] }, [live]))).toEqual([]);
  });

  it('top-level status never counts as drift (LoadBalancer Service)', () => {
    const service: Resource = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'LoadBalancer' },
    };
    const live = { ...ours(service), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } };
    const result = planOf({ manifest: [service] }, [live]);
    expect(result.actions).toEqual([]);
    expect(result.status.lastObservedManifest?.[0]?.status).toEqual({ loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } });
  });

  it('a schema observing labels or annotations whole does not remove our marks', () => {
    const resource = configMap('c');
    const withNote = {
      ...resource,
      metadata: { ...resource.metadata, labels: { app: 'web' }, annotations: { note: 'x' } },
    } as Resource;
    const observerSchema = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: null, annotations: null } },
    ] as unknown as ReadonlyArray<Resource>;
    const live = ours(withNote);
    expect(planOf({ manifest: [withNote], observerSchema }, [live]).actions).toEqual([]);
    const drifted = {
      ...live,
      metadata: { ...live.metadata, labels: { ...live.metadata.labels, app: 'changed' } },
    } as Resource;
    const [patch] = actionsOf(planOf({ manifest: [withNote], observerSchema }, [drifted]), 'patch');
    expect(patch?.patch).toEqual([{ op: 'replace', path: '/metadata/labels/app', value: 'web' }]);
  });
});

describe('plan: ownership', () => {
  it('a live object without owner mark is a conflict (Stalled NotOwned), never written; the rest proceeds', () => {
    const foreign = { ...configMap('c'), metadata: { name: 'c', namespace: 'default' } } as Resource;
    const result = planOf({ manifest: [configMap('c', { a: 'mine' }), configMap('d')] }, [foreign]);
    expect(result.actions).toEqual([
      {
        type: 'create',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'd' },
        body: expect.anything(),
        changes: [],
      },
      {
        type: 'conflict',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c' },
        reason: 'NotOwned',
        changes: [],
      },
    ]);
    expect(condition(result, 'Stalled')).toMatchObject({ status: 'True', reason: 'NotOwned' });
    expect(condition(result, 'Stalled')?.message).toContain('v1 ConfigMap default/c');
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 60_000, reason: 'NotOwned' });
  });

  it('with spec.adopt, an unmarked object is taken over: our marks (and controller ownerReference) are added even when it is in sync', () => {
    const live = { ...configMap('c'), metadata: { name: 'c', namespace: 'default', labels: { x: 'y' } } } as Resource;
    const result = planOf({ manifest: [configMap('c')], adopt: true }, [live]);
    expect(result.actions).toEqual([
      {
        type: 'patch',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c' },
        patch: [
          { op: 'add', path: '/metadata/labels/app.kubernetes.io~1managed-by', value: 'kreconcile' },
          { op: 'add', path: '/metadata/annotations', value: { 'kreconcile.io/owner': OWNER_MARK } },
          { op: 'add', path: '/metadata/ownerReferences', value: [CONTROLLER_REFERENCE] },
        ],
        changes: [
          { path: 'metadata.labels["app.kubernetes.io/managed-by"]', to: 'kreconcile' },
          { path: 'metadata.annotations["kreconcile.io/owner"]', to: OWNER_MARK },
          { path: 'metadata.ownerReferences', to: CONTROLLER_REFERENCE },
        ],
      },
    ]);
  });

  it("adoption leaves another controller's ownerReference alone (one controller per object)", () => {
    const claimed = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true };
    const live = {
      ...configMap('c'),
      metadata: { name: 'c', namespace: 'default', ownerReferences: [claimed] },
    } as Resource;
    const [patch] = actionsOf(planOf({ manifest: [configMap('c')], adopt: true }, [live]), 'patch');
    expect(patch?.patch.map((op) => op.path)).toEqual(['/metadata/labels', '/metadata/annotations']);
  });

  it('adoption marks survive a field patch that writes the annotations map whole', () => {
    const desired = { ...configMap('c'), metadata: { name: 'c', annotations: { note: 'hi' } } } as Resource;
    const live = { ...configMap('c'), metadata: { name: 'c', namespace: 'default' } } as Resource;
    const [patch] = actionsOf(planOf({ manifest: [desired], adopt: true }, [live]), 'patch');
    expect(patch?.patch).toEqual([
      { op: 'add', path: '/metadata/annotations', value: { note: 'hi' } },
      { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/managed-by': 'kreconcile' } },
      { op: 'add', path: '/metadata/annotations/kreconcile.io~1owner', value: OWNER_MARK },
      { op: 'add', path: '/metadata/ownerReferences', value: [CONTROLLER_REFERENCE] },
    ]);
  });

  it('objects owned by another Application are never touched, even with adopt, nor deleted', () => {
    const theirs = ours(configMap('c'));
    const foreign = {
      ...theirs,
      metadata: { ...theirs.metadata, annotations: { 'kreconcile.io/owner': 'default/other' } },
    } as Resource;
    const strayForeign = { ...foreign, metadata: { ...foreign.metadata, name: 'stray' } } as Resource;
    const result = planOf({ manifest: [configMap('c', { a: 'mine' })], adopt: true }, [foreign, strayForeign]);
    expect(result.actions).toEqual([
      {
        type: 'conflict',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c' },
        reason: 'OwnedByAnother',
        owner: 'default/other',
        changes: [],
      },
    ]);
    expect(condition(result, 'Stalled')?.message).toContain('(owner default/other)');
  });

  it('live objects carrying our mark but no longer desired are pruned, even without any status', () => {
    expect(
      typesOf(planOf({ manifest: [configMap('keep')] }, [ours(configMap('keep')), ours(configMap('gone'))])),
    ).toEqual(['delete ConfigMap/gone']);
  });
});

describe('plan: finalizer and deletion', () => {
  it('adds the finalizer first, before any create', () => {
    const result = planOf({ manifest: [configMap('c')] }, [], { finalizer: false });
    expect(result.actions.map((a) => a.type)).toEqual(['addFinalizer', 'create']);
    expect(result.actions[0]).toEqual({
      type: 'addFinalizer',
      ref: { apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', namespace: 'default', name: 'app' },
      finalizer: FINALIZER,
      changes: [{ path: 'metadata.finalizers', to: FINALIZER }],
    });
  });

  it('adding the finalizer alone is progress, not Ready', () => {
    const result = planOf({ manifest: [configMap('c')] }, [ours(configMap('c'))], { finalizer: false });
    expect(result.actions.map((a) => a.type)).toEqual(['addFinalizer']);
    expect(condition(result, 'Reconciling')).toMatchObject({ status: 'True', reason: 'AddingFinalizer' });
  });

  it('on deletion, deletes every child we own (reverse install order), then waits', () => {
    const live = [
      ours(configMap('c')),
      ours(deployment('web')),
      ours({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } }, undefined),
      served(configMap('not-ours')),
    ];
    const result = planOf({ manifest: [configMap('c')] }, live, { deleting: true });
    expect(typesOf(result)).toEqual(['delete Deployment/web', 'delete ConfigMap/c', 'delete Namespace/ns']);
    expect(actionsOf(result, 'delete').every((a) => a.reason === 'ApplicationDeleted')).toBe(true);
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 1000, reason: 'AwaitDeletion' });
  });

  it('children already terminating are not deleted again, but the finalizer waits for them', () => {
    const terminating = {
      ...ours(configMap('c')),
      metadata: { ...ours(configMap('c')).metadata, deletionTimestamp: 't' },
    } as Resource;
    const result = planOf({ manifest: [] }, [terminating], { deleting: true });
    expect(result.actions).toEqual([]);
    expect(result.outcome._tag).toBe('RequeueAfter');
  });

  it('once the children are gone, the finalizer is removed', () => {
    const result = planOf({ manifest: [configMap('c')] }, [served(configMap('not-ours'))], { deleting: true });
    expect(result.actions).toEqual([
      {
        type: 'removeFinalizer',
        ref: { apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', namespace: 'default', name: 'app' },
        finalizer: FINALIZER,
        changes: [{ path: 'metadata.finalizers', from: FINALIZER }],
      },
    ]);
    expect(result.outcome).toEqual({ _tag: 'AwaitChange' });
  });

  it('without a live snapshot, the children are those of lastObservedManifest', () => {
    const status = {
      lastObservedManifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } }],
    };
    expect(typesOf(planOf({ manifest: [] }, undefined, { deleting: true, status }))).toEqual(['delete ConfigMap/c']);
  });

  it('a deleted Application without our finalizer needs nothing', () => {
    const result = planOf({ manifest: [configMap('c')] }, [ours(configMap('c'))], { deleting: true, finalizer: false });
    expect(result.actions).toEqual([]);
    expect(result.outcome).toEqual({ _tag: 'AwaitChange' });
  });
});

describe('plan: status and outcome', () => {
  it('Ready when nothing is planned; lastTransitionTime kept while a status does not change', () => {
    const first = planOf({ manifest: [configMap('c')] }, [ours(configMap('c'))], {}, 't1');
    expect(first.actions).toEqual([]);
    expect(first.outcome).toEqual({ _tag: 'AwaitChange' });
    expect(first.status.observedGeneration).toBe(1);
    expect(condition(first, 'Ready')).toEqual({
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: '1 resources match the desired state',
      lastTransitionTime: 't1',
      observedGeneration: 1,
    });
    const second = planOf(
      { manifest: [configMap('c')] },
      [ours(configMap('c'))],
      { status: first.status, generation: 2 },
      't2',
    );
    expect(
      second.status.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime, c.observedGeneration]),
    ).toEqual([
      ['Ready', 'True', 't1', 2],
      ['Reconciling', 'False', 't1', 2],
      ['Stalled', 'False', 't1', 2],
    ]);
    const third = planOf(
      { manifest: [configMap('c', { a: 'changed' })] },
      [ours(configMap('c'))],
      { status: second.status },
      't3',
    );
    expect(third.status.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Ready', 'False', 't3'],
      ['Reconciling', 'True', 't3'],
      ['Stalled', 'False', 't1'],
    ]);
  });

  it('an unknown kind: Stalled UnknownKind naming the resource, no actions', () => {
    const result = planOf(
      { manifest: [configMap('c'), { apiVersion: 'nope.example/v1', kind: 'Thing', metadata: { name: 't' } }] },
      [],
    );
    expect(result.actions).toEqual([]);
    expect(condition(result, 'Stalled')).toMatchObject({ status: 'True', reason: 'UnknownKind' });
    expect(condition(result, 'Stalled')?.message).toContain('spec.manifest[1]: unknown kind Thing in nope.example/v1');
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 60_000, reason: 'UnknownKind' });
  });

  it('a kind learned from the live snapshot is known for that plan only (nothing cached across plans)', () => {
    const app = application({ manifest: [{ apiVersion: 'nope.example/v1', kind: 'Thing', metadata: { name: 't' } }] });
    const liveThing = served(
      marked({ apiVersion: 'nope.example/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' } }),
    );
    const known = plan({ application: app, live: [liveThing], scopes: builtinScopes, now: 'now' });
    expect(condition(known, 'Stalled')?.status).toBe('False');
    const unknown = plan({ application: app, live: [], scopes: builtinScopes, now: 'now' });
    expect(condition(unknown, 'Stalled')?.reason).toBe('UnknownKind');
    expect(unknown.actions).toEqual([]);
  });

  it('an invalid spec plans no actions and keeps the status manifests', () => {
    const good = planOf({ manifest: [configMap('c')] }, [ours(configMap('c'))]);
    const result = planOf(
      { manifest: [{ apiVersion: 'v1', metadata: { name: 'x' } } as unknown as Resource] },
      [ours(configMap('c'))],
      { status: good.status, generation: 2 },
    );
    expect(result.actions).toEqual([]);
    expect(result.status.lastAppliedManifest).toEqual(good.status.lastAppliedManifest);
    expect(result.status.lastObservedManifest).toEqual(good.status.lastObservedManifest);
    expect(result.status.mangledObserverSchema).toEqual(good.status.mangledObserverSchema);
    expect(condition(result, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'InvalidSpec',
      observedGeneration: 2,
    });
    expect(result.outcome).toEqual({ _tag: 'AwaitChange' });
  });

  it('a desired object of ours still terminating is waited for, neither patched nor created', () => {
    const terminating = {
      ...ours(configMap('c')),
      metadata: { ...ours(configMap('c')).metadata, deletionTimestamp: 't' },
      data: { a: 'old' },
    } as Resource;
    const result = planOf({ manifest: [configMap('c')] }, [terminating]);
    expect(result.actions).toEqual([]);
    expect(condition(result, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'WaitingForDeletion',
      message: 'waiting for v1 ConfigMap default/c to be deleted',
    });
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 1000, reason: 'VerifyActions' });
  });

  it('summary counts the actions by type', () => {
    const result = planOf({ manifest: [configMap('a'), configMap('b'), deployment('web', 2)] }, [
      ours(deployment('web')),
      ours(configMap('x')),
    ]);
    expect(result.summary).toEqual({ create: 2, patch: 1, delete: 1, conflict: 0 });
  });
});

describe('plan from status only (live: undefined)', () => {
  const mangled = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: null, args: [null, control(1, 1)] },
    },
  ];

  it('creates what lastObservedManifest lacks, patches its drift, deletes what the spec dropped', () => {
    const web: Resource = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 3, args: ['a'] },
    };
    const status = {
      mangledObserverSchema: mangled,
      lastObservedManifest: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: 'default' },
          spec: { replicas: 1, args: ['a', { observer_schema_list_current_length: 3 }] },
        },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', namespace: 'default' } },
      ] as ReadonlyArray<JsonObject>,
    };
    const result = planOf({ manifest: [web, configMap('new')], observerSchema: mangled }, undefined, { status });
    expect(typesOf(result)).toEqual(['delete ConfigMap/gone', 'create ConfigMap/new', 'patch Deployment/web']);
    expect(actionsOf(result, 'patch')[0]?.patch).toEqual([
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'test', path: '/spec/args/2', value: null },
      { op: 'remove', path: '/spec/args/2' },
      { op: 'test', path: '/spec/args/1', value: null },
      { op: 'remove', path: '/spec/args/1' },
    ]);
    expect(result.status.lastObservedManifest).toEqual(status.lastObservedManifest);
  });

  it('nothing to do when lastObservedManifest matches', () => {
    const status = {
      lastObservedManifest: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } },
      ],
    };
    const result = planOf({ manifest: [configMap('c')] }, undefined, { status });
    expect(result.actions).toEqual([]);
    expect(condition(result, 'Ready')?.status).toBe('True');
  });

  it('malformed lastObservedManifest entries are ignored, never a crash', () => {
    const status = { lastObservedManifest: [{}, { kind: 'ConfigMap' }] as ReadonlyArray<JsonObject> };
    expect(typesOf(planOf({ manifest: [configMap('c')] }, undefined, { status }))).toEqual(['create ConfigMap/c']);
    expect(planOf({ manifest: [] }, undefined, { status, deleting: true }).actions.map((a) => a.type)).toEqual([
      'removeFinalizer',
    ]);
  });
});
