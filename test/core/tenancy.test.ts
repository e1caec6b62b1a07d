/** Tenancy in the pure core: default own-namespace-only, the admin policy, adoption, and no write outside it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  plan,
  type Action,
  type ForbiddenAction,
  type Plan,
  type Resource,
  type TenancyPolicy,
} from '../../core/internal.js';
import { manifestArbitrary, ownedBy } from '../../core/model/resource.arbitrary.js';
import { OWNER_MARK, application, marked, scopes, served } from './fixtures.js';

const configMap = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { a: '1' },
});
const clusterRoleBinding: Resource = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'take-over' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
};

const planWith = (
  manifest: ReadonlyArray<Resource>,
  live: ReadonlyArray<Resource> | undefined,
  tenancy?: TenancyPolicy,
  extra: { adopt?: boolean; deleting?: boolean } = {},
): Plan =>
  plan({
    application: application(
      { manifest, ...(extra.adopt ? { adopt: true } : {}) },
      extra.deleting ? { deleting: true } : {},
    ),
    live,
    scopes,
    now: 'now',
    ...(tenancy === undefined ? {} : { options: { tenancy } }),
  });

const stalledOf = (result: Plan) => result.status.conditions?.find((c) => c.type === 'Stalled');
const forbiddenOf = (result: Plan): ReadonlyArray<ForbiddenAction> =>
  result.actions.filter((a): a is ForbiddenAction => a.type === 'forbidden');
const WRITES: ReadonlyArray<Action['type']> = ['create', 'patch', 'delete'];
const writesOf = (result: Plan): ReadonlyArray<Action> => result.actions.filter((a) => WRITES.includes(a.type));

describe('tenancy: the default policy (own namespace only)', () => {
  it('a child in another namespace is forbidden, and nothing else of the Application is written', () => {
    const result = planWith([configMap('mine'), configMap('theirs', 'kube-system')], []);
    expect(writesOf(result)).toEqual([]);
    expect(forbiddenOf(result)).toEqual([
      {
        type: 'forbidden',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: 'theirs' },
        rule: 'Destination',
        reason:
          'namespace kube-system is not an allowed destination for Applications in default (policy destinations: default)',
        changes: [],
      },
    ]);
    expect(stalledOf(result)).toMatchObject({ status: 'True', reason: 'Forbidden' });
    expect(stalledOf(result)?.message).toContain('v1 ConfigMap kube-system/theirs (Destination:');
    expect(result.summary).toEqual({ create: 0, patch: 0, delete: 0, conflict: 0, forbidden: 1 });
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 60_000, reason: 'Forbidden' });
  });

  it('a manifest CRD redefining ClusterRoleBinding (or CRD itself) as namespaced changes nothing: still forbidden (issue 19)', () => {
    const redefine = (group: string, kind: string): Resource => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${kind.toLowerCase()}s.${group}` },
      spec: { group, scope: 'Namespaced', names: { kind, plural: `${kind.toLowerCase()}s` } },
    });
    // The platform-team policy the attack needs: CRDs and one cluster kind allowed.
    const policy: TenancyPolicy = {
      clusterKinds: [
        {
          from: '*',
          kinds: ['apiextensions.k8s.io/CustomResourceDefinition', 'rbac.authorization.k8s.io/ClusterRole'],
        },
      ],
    };
    const result = planWith(
      [
        redefine('rbac.authorization.k8s.io', 'ClusterRoleBinding'),
        redefine('apiextensions.k8s.io', 'CustomResourceDefinition'),
        clusterRoleBinding,
      ],
      [],
      policy,
    );
    expect(forbiddenOf(result).map((a) => [a.ref.kind, a.ref.namespace, a.rule])).toEqual([
      ['ClusterRoleBinding', undefined, 'ClusterScoped'],
    ]);
    expect(stalledOf(result)).toMatchObject({ status: 'True', reason: 'Forbidden' });
    expect(writesOf(result)).toEqual([]);
  });

  it('a cluster-scoped child (ClusterRoleBinding) is forbidden', () => {
    const result = planWith([configMap('mine'), clusterRoleBinding], []);
    expect(forbiddenOf(result).map((a) => [a.ref.kind, a.rule])).toEqual([['ClusterRoleBinding', 'ClusterScoped']]);
    expect(forbiddenOf(result)[0]?.reason).toBe(
      'rbac.authorization.k8s.io/ClusterRoleBinding is cluster-scoped and not allowed for Applications in default (policy clusterKinds: none)',
    );
    expect(writesOf(result)).toEqual([]);
  });

  it('nothing is deleted while a child is forbidden: the previous children stay, the status keeps what it knew', () => {
    const previous = served(marked(configMap('old', 'default')));
    const status = { lastAppliedManifest: [configMap('old', 'default')] };
    const result = plan({
      application: application({ manifest: [configMap('x', 'kube-system')] }, { status }),
      live: [previous],
      scopes,
      now: 'now',
    });
    expect(writesOf(result)).toEqual([]);
    expect(result.status.lastAppliedManifest).toEqual(status.lastAppliedManifest);
  });

  it('the finalizer is still added to a new Application with a forbidden child', () => {
    const result = plan({
      application: application({ manifest: [configMap('x', 'kube-system')] }, { finalizer: false }),
      live: [],
      scopes,
      now: 'now',
    });
    expect(result.actions.map((a) => a.type)).toEqual(['addFinalizer', 'forbidden']);
  });

  it('planning from status alone (no live read) forbids the same children', () => {
    const result = planWith([configMap('x', 'kube-system')], undefined);
    expect(forbiddenOf(result)).toHaveLength(1);
    expect(writesOf(result)).toEqual([]);
  });

  it('an object outside the destinations carrying our owner mark is never pruned, and never deleted with the Application', () => {
    const planted = served(marked(configMap('planted', 'kube-system')));
    const mine = served(marked(configMap('mine', 'default')));
    const pruned = planWith([configMap('other')], [planted, mine]);
    expect(pruned.actions.filter((a) => a.type === 'delete').map((a) => a.ref.name)).toEqual(['mine']);
    const deleting = planWith([configMap('mine')], [planted, mine], undefined, { deleting: true });
    expect(deleting.actions.map((a) => `${a.type} ${a.ref.name}`)).toEqual(['delete mine']);
    const finished = planWith([configMap('mine')], [planted], undefined, { deleting: true });
    expect(finished.actions.map((a) => a.type)).toEqual(['removeFinalizer']);
  });
});

describe('tenancy: the admin policy', () => {
  const teamPolicy: TenancyPolicy = {
    destinations: [{ from: 'default', to: ['team-a-db'] }],
    clusterKinds: [{ from: 'default', kinds: ['rbac.authorization.k8s.io/ClusterRoleBinding'] }],
  };

  it('a destination rule lets the Application write to the named namespace only', () => {
    expect(writesOf(planWith([configMap('db', 'team-a-db')], [], teamPolicy)).map((a) => a.ref)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a-db', name: 'db' },
    ]);
    expect(forbiddenOf(planWith([configMap('db', 'team-b')], [], teamPolicy)).map((a) => a.rule)).toEqual([
      'Destination',
    ]);
  });

  it('rules apply to their source namespace only', () => {
    const elsewhere: TenancyPolicy = { destinations: [{ from: 'team-b', to: ['team-a-db'] }] };
    expect(forbiddenOf(planWith([configMap('db', 'team-a-db')], [], elsewhere))).toHaveLength(1);
  });

  it('a cluster kind rule allows that kind; `Kind` alone names the core group; `*` is explicit', () => {
    expect(writesOf(planWith([clusterRoleBinding], [], teamPolicy))).toHaveLength(1);
    const namespaceChild = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } } as Resource;
    expect(forbiddenOf(planWith([namespaceChild], [], teamPolicy))).toHaveLength(1);
    expect(
      writesOf(planWith([namespaceChild], [], { clusterKinds: [{ from: 'default', kinds: ['Namespace'] }] })),
    ).toHaveLength(1);
    expect(
      writesOf(
        planWith([namespaceChild, clusterRoleBinding, configMap('x', 'y')], [], {
          destinations: [{ from: '*', to: ['*'] }],
          clusterKinds: [{ from: '*', kinds: ['*'] }],
        }),
      ),
    ).toHaveLength(3);
  });
});

describe('tenancy: adoption', () => {
  const unowned = served(configMap('existing', 'default'));
  const unownedElsewhere = served(configMap('existing', 'team-a-db'));
  const withDb: TenancyPolicy = { destinations: [{ from: 'default', to: ['team-a-db'] }] };

  it("by default spec.adopt takes over objects in the Application's own namespace", () => {
    expect(
      writesOf(planWith([configMap('existing')], [unowned], undefined, { adopt: true })).map((a) => a.type),
    ).toEqual(['patch']);
  });

  it('by default spec.adopt never takes over an object in another (even allowed) namespace', () => {
    const result = planWith([configMap('existing', 'team-a-db')], [unownedElsewhere], withDb, { adopt: true });
    expect(forbiddenOf(result).map((a) => a.rule)).toEqual(['Adoption']);
    expect(writesOf(result)).toEqual([]);
  });

  it('adoption: destinations adopts in allowed destinations; never adopts nowhere', () => {
    expect(
      writesOf(
        planWith(
          [configMap('existing', 'team-a-db')],
          [unownedElsewhere],
          { ...withDb, adoption: 'destinations' },
          { adopt: true },
        ),
      ),
    ).toHaveLength(1);
    expect(
      forbiddenOf(planWith([configMap('existing')], [unowned], { adoption: 'never' }, { adopt: true })).map(
        (a) => a.rule,
      ),
    ).toEqual(['Adoption']);
  });

  it('spec.adopt of an object in kube-system is forbidden by its destination first', () => {
    const system = served(configMap('coredns', 'kube-system'));
    expect(
      forbiddenOf(planWith([configMap('coredns', 'kube-system')], [system], undefined, { adopt: true })).map(
        (a) => a.rule,
      ),
    ).toEqual(['Destination']);
  });
});

// Property: whatever the policy, no plan writes outside what it allows (an oracle written apart from
// core/plan/tenancy.ts).
const NAMESPACES = ['default', 'other', 'third'] as const;
const policyArbitrary: fc.Arbitrary<TenancyPolicy> = fc.record({
  destinations: fc.array(
    fc.record({ from: fc.constantFrom('default', 'other', '*'), to: fc.subarray(['default', 'other', 'third', '*']) }),
    { maxLength: 3 },
  ),
  clusterKinds: fc.array(
    fc.record({
      from: fc.constantFrom('default', 'other', '*'),
      kinds: fc.subarray(['Namespace', 'rbac.authorization.k8s.io/ClusterRole', 'music.example/Label', '*']),
    }),
    { maxLength: 2 },
  ),
  adoption: fc.constantFrom('ownNamespace' as const, 'destinations' as const, 'never' as const),
});

const allowedBy = (policy: TenancyPolicy, action: Action): boolean => {
  const rules = (policy.destinations ?? []).filter((r) => r.from === '*' || r.from === 'default');
  if (action.ref.namespace !== undefined)
    return (
      action.ref.namespace === 'default' ||
      rules.some((r) => r.to.includes('*') || r.to.includes(action.ref.namespace as string))
    );
  const kinds = (policy.clusterKinds ?? [])
    .filter((r) => r.from === '*' || r.from === 'default')
    .flatMap((r) => r.kinds);
  const group = action.ref.apiVersion.includes('/') ? action.ref.apiVersion.split('/')[0] : '';
  return kinds.includes('*') || kinds.includes(group === '' ? action.ref.kind : `${group}/${action.ref.kind}`);
};

describe('property: no plan ever writes outside the policy', () => {
  it('creates, patches and deletes only allowed targets; a forbidden child means no writes at all', () => {
    fc.assert(
      fc.property(
        policyArbitrary,
        manifestArbitrary(4),
        fc.boolean(),
        fc.boolean(),
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 3 }),
            fc.constantFrom(...NAMESPACES),
            fc.constantFrom<string | undefined>(OWNER_MARK, undefined, 'x/y'),
          ),
          { maxLength: 5 },
        ),
        (policy, manifest, adopt, deleting, livePicks) => {
          const live = livePicks.flatMap(([index, namespace, owner], i) => {
            const resource = manifest[index % manifest.length]!;
            const placed = {
              ...resource,
              metadata: { ...resource.metadata, namespace, name: i % 2 === 0 ? resource.metadata.name : `stray-${i}` },
            } as Resource;
            return [served(ownedBy(placed, owner), i)];
          });
          const unique = [
            ...new Map(live.map((o) => [`${o.kind}|${o.metadata.namespace}|${o.metadata.name}`, o])).values(),
          ];
          const result = planWith(manifest, unique, policy, { adopt, deleting });
          for (const action of writesOf(result))
            expect(allowedBy(policy, action), `${action.type} ${JSON.stringify(action.ref)}`).toBe(true);
          if (forbiddenOf(result).length > 0) expect(writesOf(result)).toEqual([]);
          // Adoption only where the policy allows it: a patch of an unowned object stays in the own namespace by
          // default.
          const unowned = new Set(
            unique
              .filter((o) => o.metadata.annotations?.['kreconcile.io/owner'] === undefined)
              .map((o) => `${o.kind}|${o.metadata.namespace}|${o.metadata.name}`),
          );
          for (const action of result.actions.filter(
            (a) => a.type === 'patch' && unowned.has(`${a.ref.kind}|${a.ref.namespace}|${a.ref.name}`),
          )) {
            expect(
              policy.adoption === 'destinations' ||
                (policy.adoption === 'ownNamespace' && action.ref.namespace === 'default'),
            ).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
