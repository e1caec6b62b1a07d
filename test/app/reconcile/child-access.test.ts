/**
 * Impersonation through the reconcile seam, on the memory cluster: children are read and written
 * with the ServiceAccount's client, the Application, its finalizer and status with the operator's;
 * a refused write or read stalls the Application with a message naming the account and the child,
 * and is not retried. (The real API server's side is test/integration/e2e-impersonation.test.ts.)
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import {
  childClusters,
  childIdentity,
  wrapImpersonated,
  type ServiceAccountPolicy,
  type ServiceAccountRef,
} from '../../../app/access/child-access.js';
import {
  reconcileApplication,
  type ReconcileDeps,
  type ReconcileResult,
} from '../../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  clusterError,
  conditionOf,
  type Application,
  type Cluster,
  type ClusterError,
  type Resource,
} from '../../../core/internal.js';

type Call = { readonly who: string; readonly verb: string; readonly kind: string };
type Rule = (verb: string, kind: string) => boolean;

/** Records every call; refuses what `allows` denies with the API server's wording for an impersonated user. */
const identity = (cluster: Cluster, who: string, calls: Call[], allows: Rule = () => true): Cluster => {
  const guard = <A>(
    verb: string,
    kind: string,
    namespace: string | undefined,
    run: () => TE.TaskEither<ClusterError, A>,
  ): TE.TaskEither<ClusterError, A> => {
    calls.push({ who, verb, kind });
    return allows(verb, kind)
      ? run()
      : TE.left(
          clusterError(
            'Forbidden',
            `${kind.toLowerCase()}s is forbidden: User "${who}" cannot ${verb} resource "${kind.toLowerCase()}s" in the namespace "${namespace}"`,
          ),
        );
  };
  return {
    ...cluster,
    get: (ref) => guard('get', ref.kind, ref.namespace, () => cluster.get(ref)),
    list: (query) => guard('list', query.kind, query.namespace, () => cluster.list(query)),
    create: (object, options) =>
      guard('create', object.kind, object.metadata.namespace, () => cluster.create(object, options)),
    update: (object, options) =>
      guard('update', object.kind, object.metadata.namespace, () => cluster.update(object, options)),
    patch: (ref, patch, options) => guard('patch', ref.kind, ref.namespace, () => cluster.patch(ref, patch, options)),
    delete: (ref, options) => guard('delete', ref.kind, ref.namespace, () => cluster.delete(ref, options)),
    patchStatus: (ref, patch) => guard('patchStatus', ref.kind, ref.namespace, () => cluster.patchStatus(ref, patch)),
    updateStatus: (object) =>
      guard('updateStatus', object.kind, object.metadata.namespace, () => cluster.updateStatus(object)),
  };
};

const appRef = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'team-a', name: 'shop' };
const manifest = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { LOG_LEVEL: 'info' } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    },
  },
];

type World = {
  readonly memory: MemoryCluster;
  readonly calls: Call[];
  readonly deps: ReconcileDeps;
  readonly impersonated: ServiceAccountRef[];
};

const world = async (spec: Record<string, unknown>, policy: ServiceAccountPolicy, tenant: Rule): Promise<World> => {
  const clock = new ManualClock();
  const memory = createMemoryCluster({ clock, seed: 11 });
  await memory.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } })();
  await memory.create({
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: { name: 'shop', namespace: 'team-a' },
    spec,
  } as unknown as Resource)();
  const calls: Call[] = [];
  const impersonated: ServiceAccountRef[] = [];
  const deps: ReconcileDeps = {
    cluster: identity(memory, 'operator', calls),
    scopes: builtinScopes,
    now: () => new Date(clock.now()).toISOString(),
    random: () => 0.5,
    childClusterFor: childClusters(policy, (account) => {
      impersonated.push(account);
      return identity(memory, `system:serviceaccount:${account.namespace}:${account.name}`, calls, tenant);
    }),
  };
  return { memory, calls, deps, impersonated };
};

const read = async (
  w: World,
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
): Promise<Resource | undefined> => {
  const got = await w.memory.get(ref)();
  if (E.isLeft(got)) throw new Error(got.left.message);
  return O.toUndefined(got.right);
};

const stalledOf = async (w: World) =>
  conditionOf(((await read(w, appRef)) as unknown as Application).status?.conditions, 'Stalled');

const reconcileTwice = async (w: World): Promise<ReconcileResult> => {
  await reconcileApplication(appRef, w.deps);
  return reconcileApplication(appRef, w.deps);
};

/** May read everything, may not create Deployments. */
const noDeployments = (verb: string, kind: string): boolean => !(verb === 'create' && kind === 'Deployment');

describe('impersonation through the reconcile seam', () => {
  it('writes children as the ServiceAccount and the Application as the operator; a refused child stalls it, named, without retry', async () => {
    const w = await world({ manifest, serviceAccountName: 'deployer' }, {}, noDeployments);
    const result = await reconcileApplication(appRef, w.deps);
    expect(result._tag === 'Failed' && result.terminal).toBe(true);
    expect(await stalledOf(w)).toMatchObject({
      status: 'True',
      reason: 'Forbidden',
      message: 'Forbidden: ServiceAccount team-a/deployer may not create apps/v1 Deployment team-a/web',
    });
    expect(
      await read(w, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'web-config' }),
    ).toBeDefined();
    expect(
      await read(w, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team-a', name: 'web' }),
    ).toBeUndefined();
    // The operator's own identity touched only the Application (finalizer, status), never a child.
    expect(new Set(w.calls.filter((c) => c.who === 'operator').map((c) => c.kind))).toEqual(new Set(['Application']));
    expect(w.calls.filter((c) => c.who !== 'operator' && c.verb === 'create').map((c) => c.kind)).toEqual([
      'ConfigMap',
      'Deployment',
    ]);
    expect(new Set(w.calls.filter((c) => c.who !== 'operator').map((c) => c.who))).toEqual(
      new Set(['system:serviceaccount:team-a:deployer']),
    );
  });

  it("uses the default ServiceAccount, always of the Application's own namespace, when the spec names none", async () => {
    const w = await world({ manifest }, { defaultServiceAccount: 'kreconcile-tenant' }, () => true);
    const result = await reconcileTwice(w);
    expect(result._tag).toBe('Done');
    expect(w.impersonated).toContainEqual({ namespace: 'team-a', name: 'kreconcile-tenant' });
    expect(
      await read(w, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'team-a', name: 'web' }),
    ).toBeDefined();
    expect(w.calls.filter((c) => c.who === 'operator' && c.kind !== 'Application')).toEqual([]);
  });

  it('reads live state as the ServiceAccount on every reconcile: one list per kind and namespace, one get per desired resource', async () => {
    const w = await world({ manifest, serviceAccountName: 'deployer' }, {}, () => true);
    await reconcileTwice(w);
    w.calls.length = 0;
    await reconcileApplication(appRef, w.deps);
    const reads = w.calls
      .filter((c) => c.who !== 'operator' && (c.verb === 'list' || c.verb === 'get'))
      .map((c) => `${c.verb} ${c.kind}`);
    expect(reads.sort()).toEqual(['get ConfigMap', 'get Deployment', 'list ConfigMap', 'list Deployment']);
  });

  it('stalls an Application naming no ServiceAccount when one is required, touching nothing', async () => {
    const w = await world({ manifest }, { require: true }, () => true);
    const result = await reconcileApplication(appRef, w.deps);
    expect(result._tag === 'Done' && result.plan.actions).toEqual([]);
    expect(await stalledOf(w)).toMatchObject({ status: 'True', reason: 'ServiceAccountRequired' });
    expect((await stalledOf(w))?.message).toContain('set spec.serviceAccountName');
    expect(w.calls.filter((c) => c.kind !== 'Application')).toEqual([]);
    expect((await read(w, appRef))?.metadata.finalizers).toBeUndefined();
  });

  it('refuses a hostile spec.serviceAccountName before it reaches a header', async () => {
    const w = await world({ manifest, serviceAccountName: 'x\r\nImpersonate-Group: system:masters' }, {}, () => true);
    await reconcileApplication(appRef, w.deps);
    expect(await stalledOf(w)).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(w.impersonated).toEqual([]);
    expect(w.calls.filter((c) => c.kind !== 'Application')).toEqual([]);
  });

  it('stalls, naming the ServiceAccount, when it may not even read the children', async () => {
    const w = await world({ manifest, serviceAccountName: 'deployer' }, {}, (verb) => verb !== 'list');
    const result = await reconcileApplication(appRef, w.deps);
    expect(result._tag === 'Done' && result.plan.actions).toEqual([]);
    const stalled = await stalledOf(w);
    expect(stalled).toMatchObject({ status: 'True', reason: 'Forbidden' });
    expect(stalled?.message).toMatch(
      /^Forbidden: ServiceAccount team-a\/deployer may not read what this Application manages: .*cannot list/,
    );
  });

  it('stalls, naming the operator, when its own rights do not let it read the children (namespace-bound RBAC)', async () => {
    const w = await world({ manifest }, {}, () => true);
    const deps: ReconcileDeps = {
      ...w.deps,
      cluster: identity(w.memory, 'operator', w.calls, (verb, kind) => kind === 'Application' || verb !== 'list'),
    };
    const result = await reconcileApplication(appRef, deps);
    expect(result._tag === 'Done' && result.plan.actions).toEqual([]);
    expect(await stalledOf(w)).toMatchObject({ status: 'True', reason: 'Forbidden' });
    expect((await stalledOf(w))?.message).toMatch(
      /^Forbidden: the operator may not read what this Application manages: .*cannot list/,
    );
  });

  it('names the operator when its own rights refuse a child write', async () => {
    const w = await world({ manifest }, {}, () => true);
    const deps: ReconcileDeps = { ...w.deps, cluster: identity(w.memory, 'operator', w.calls, noDeployments) };
    const result = await reconcileApplication(appRef, deps);
    expect(result._tag === 'Failed' && result.terminal).toBe(true);
    expect((await stalledOf(w))?.message).toBe(
      'Forbidden: the operator may not create apps/v1 Deployment team-a/web (its RBAC: see kreconcile rbac --help)',
    );
  });

  it("tells a refused impersonation (the operator's right) from a refused request (the tenant's)", async () => {
    const cannotImpersonate =
      'users "system:serviceaccount:team-a:deployer" is forbidden: User "system:serviceaccount:kreconcile-system:kreconcile" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-a"';
    const w = await world({ manifest, serviceAccountName: 'deployer' }, {}, () => true);
    const refusing = identity(w.memory, 'operator', w.calls, () => false);
    const deps: ReconcileDeps = {
      ...w.deps,
      // A refused impersonation refuses every request alike (reads run concurrently: any may answer first).
      childClusterFor: childClusters({}, () => ({
        ...refusing,
        list: () => TE.left(clusterError('Forbidden', cannotImpersonate)),
        get: () => TE.left(clusterError('Forbidden', cannotImpersonate)),
      })),
    };
    await reconcileApplication(appRef, deps);
    expect((await stalledOf(w))?.message).toBe(
      'Forbidden: the operator may not impersonate ServiceAccount team-a/deployer (grant it impersonate on serviceaccounts in team-a: see kreconcile rbac --help)',
    );
  });
});

describe('wrapImpersonated', () => {
  it('passes every impersonating client through the wrapper (a write fence), and nothing else', async () => {
    const w = await world({ manifest, serviceAccountName: 'deployer' }, {}, () => true);
    const refuseWrites = (cluster: Cluster): Cluster => ({
      ...cluster,
      create: () => TE.left(clusterError('Unavailable', 'fenced: not the leader')),
    });
    const deps: ReconcileDeps = { ...w.deps, childClusterFor: wrapImpersonated(w.deps.childClusterFor!, refuseWrites) };
    const result = await reconcileApplication(appRef, deps);
    expect(result._tag === 'Failed' && result.error.message).toBe('fenced: not the leader');
    expect(
      await read(w, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'web-config' }),
    ).toBeUndefined();
    const app = {
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: 'x', namespace: 'team-a' },
      spec: {},
    } as unknown as Application;
    expect(
      wrapImpersonated(
        childClusters({ require: true }, () => w.memory),
        refuseWrites,
      )(app)._tag,
    ).toBe('Refused');
  });
});

describe('childIdentity', () => {
  const app = (spec: Record<string, unknown>, namespace = 'team-a'): Application => ({
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: { name: 'shop', namespace },
    spec,
  });

  it("prefers the spec's name over the default, in the Application's namespace; the operator's own rights otherwise", () => {
    expect(
      childIdentity(app({ serviceAccountName: 'mine' }), { defaultServiceAccount: 'fallback', require: true }),
    ).toEqual({ _tag: 'ServiceAccount', account: { namespace: 'team-a', name: 'mine' } });
    expect(childIdentity(app({}, 'team-b'), { defaultServiceAccount: 'fallback' })).toEqual({
      _tag: 'ServiceAccount',
      account: { namespace: 'team-b', name: 'fallback' },
    });
    expect(childIdentity(app({}), {})).toEqual({ _tag: 'Operator' });
    expect(childIdentity(app({}), { require: true })._tag).toBe('Refused');
    for (const bad of ['Team', 'a:b', 'kube-system/x', '', 'x'.repeat(254), 42]) {
      expect(childIdentity(app({ serviceAccountName: bad }), {})).toMatchObject({
        _tag: 'Refused',
        reason: 'InvalidSpec',
      });
    }
  });

  it('the policy file chooses which ServiceAccounts an Application may name (issue 19); the admin default is always allowed', () => {
    const tenancy = {
      serviceAccounts: [
        { from: 'team-a', names: ['deployer'] },
        { from: 'team-b', names: ['*'] },
      ],
    };
    expect(childIdentity(app({ serviceAccountName: 'deployer' }), { tenancy })).toEqual({
      _tag: 'ServiceAccount',
      account: { namespace: 'team-a', name: 'deployer' },
    });
    expect(childIdentity(app({ serviceAccountName: 'admin-bound' }), { tenancy })).toEqual({
      _tag: 'Refused',
      reason: 'Forbidden',
      message:
        'spec.serviceAccountName: ServiceAccount team-a/admin-bound is not one Applications in team-a may act as (policy serviceAccounts: deployer): name one of those, or ask the admin to allow it',
    });
    expect(childIdentity(app({ serviceAccountName: 'anything' }, 'team-b'), { tenancy })._tag).toBe('ServiceAccount');
    // No rule for the namespace: none may be named; the admin's default still applies.
    expect(childIdentity(app({ serviceAccountName: 'x' }, 'team-c'), { tenancy })).toMatchObject({
      reason: 'Forbidden',
    });
    expect(childIdentity(app({}, 'team-c'), { tenancy, defaultServiceAccount: 'fallback' })).toEqual({
      _tag: 'ServiceAccount',
      account: { namespace: 'team-c', name: 'fallback' },
    });
    // No serviceAccounts rules at all: any ServiceAccount of the namespace (documented default).
    expect(childIdentity(app({ serviceAccountName: 'admin-bound' }), { tenancy: {} })._tag).toBe('ServiceAccount');
  });
});
