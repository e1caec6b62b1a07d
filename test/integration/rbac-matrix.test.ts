/**
 * The RBAC matrix on a real API server: the objects `kreconcile rbac` prints are applied, a token
 * of the operator's ServiceAccount is requested, and SelfSubjectAccessReviews asked as it show
 * what the API server's authorizer lets the operator do, in each mode the generator offers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { LEADER_LEASE_NAME, type RbacOptions } from '../../app/manifests/rbac.js';
import {
  adminIdentity,
  canI,
  installOperator,
  type AccessQuestion,
  type ApiIdentity,
} from '../support/api-identities.js';
import { connect, describeWithApiServer, freshNamespaces, uniqueName } from '../support/kubernetes-env.js';

type Row = readonly [string, AccessQuestion];

const ask = async (identity: ApiIdentity, rows: ReadonlyArray<Row>): Promise<Record<string, boolean>> =>
  Object.fromEntries(
    await Promise.all(rows.map(async ([label, question]) => [label, await canI(identity, question)] as const)),
  );

describeWithApiServer("RBAC matrix: what the operator's generated RBAC lets it do", (env) => {
  let admin: KubernetesCluster;
  let adminId: ApiIdentity;
  let ops: string;
  let teamA: string;
  let teamADb: string;
  let other: string;

  beforeAll(async () => {
    admin = connect(env);
    adminId = adminIdentity(env.kubeconfigPath);
    [ops, teamA, teamADb, other] = (await freshNamespaces(admin, ['kr-ops', 'kr-team-a', 'kr-team-a-db', 'kr-other']))
      .namespaces as [string, string, string, string];
  });

  /** Applies the RBAC for `options` (its own names) and returns the operator's token identity. */
  const operatorWith = async (options: Omit<RbacOptions, 'namespace' | 'name'>): Promise<ApiIdentity> =>
    (await installOperator(admin, adminId, { ...options, namespace: ops, name: uniqueName('kreconcile') })).identity;

  /** What no mode may ever grant: escalation, cluster-wide Secrets, kube-system, other tenants. */
  const never: ReadonlyArray<Row> = [
    [
      'create ClusterRoleBindings',
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
    ],
    [
      'create RoleBindings in a tenant namespace',
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'rolebindings', namespace: 'kube-system' },
    ],
    ['bind ClusterRoles', { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' }],
    ['list Secrets cluster-wide', { verb: 'list', resource: 'secrets' }],
    ['get Secrets in kube-system', { verb: 'get', resource: 'secrets', namespace: 'kube-system' }],
    ['create ConfigMaps in kube-system', { verb: 'create', resource: 'configmaps', namespace: 'kube-system' }],
    [
      'create Deployments in kube-system',
      { verb: 'create', group: 'apps', resource: 'deployments', namespace: 'kube-system' },
    ],
    ['delete Namespaces', { verb: 'delete', resource: 'namespaces' }],
    [
      'update another Lease',
      {
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'kube-system',
        name: 'kube-controller-manager',
      },
    ],
    ['impersonate users', { verb: 'impersonate', resource: 'users', name: 'admin' }],
    ['impersonate groups', { verb: 'impersonate', resource: 'groups', name: 'system:masters' }],
    [
      'impersonate ServiceAccounts in kube-system',
      { verb: 'impersonate', resource: 'serviceaccounts', namespace: 'kube-system', name: 'default' },
    ],
  ];

  const ownApi = (): ReadonlyArray<Row> => [
    ['watch Applications everywhere', { verb: 'watch', group: 'kreconcile.io', resource: 'applications' }],
    [
      'patch Application status',
      { verb: 'patch', group: 'kreconcile.io', resource: 'applications', subresource: 'status', namespace: teamA },
    ],
    [
      'update Application finalizers',
      { verb: 'update', group: 'kreconcile.io', resource: 'applications', subresource: 'finalizers', namespace: teamA },
    ],
    ['create Events', { verb: 'create', resource: 'events', namespace: teamA }],
    ['create the Lease', { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: ops }],
    [
      'update the Lease by name',
      { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: ops, name: LEADER_LEASE_NAME },
    ],
  ];

  const allTrue = (rows: ReadonlyArray<Row>): Record<string, boolean> =>
    Object.fromEntries(rows.map(([label]) => [label, true]));
  const allFalse = (rows: ReadonlyArray<Row>): Record<string, boolean> =>
    Object.fromEntries(rows.map(([label]) => [label, false]));

  it('per tenant namespace: children only in the named namespaces, the Lease by name, nothing else', async () => {
    const operator = await operatorWith({ tenantNamespaces: [teamA, teamADb] });
    const children: ReadonlyArray<Row> = [
      [`create Deployments in ${teamA}`, { verb: 'create', group: 'apps', resource: 'deployments', namespace: teamA }],
      [`delete ConfigMaps in ${teamADb}`, { verb: 'delete', resource: 'configmaps', namespace: teamADb }],
      [`get Secrets in ${teamA} (hook tokens)`, { verb: 'get', resource: 'secrets', namespace: teamA }],
    ];
    const elsewhere: ReadonlyArray<Row> = [
      [`create ConfigMaps in ${other}`, { verb: 'create', resource: 'configmaps', namespace: other }],
      ['list ConfigMaps cluster-wide', { verb: 'list', resource: 'configmaps' }],
      [`get Secrets in ${other}`, { verb: 'get', resource: 'secrets', namespace: other }],
      [
        `impersonate ServiceAccounts in ${teamA}`,
        { verb: 'impersonate', resource: 'serviceaccounts', namespace: teamA, name: 'deployer' },
      ],
      [
        'update the Lease in another namespace',
        { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: teamA, name: LEADER_LEASE_NAME },
      ],
    ];
    expect(await ask(operator, [...ownApi(), ...children])).toEqual(allTrue([...ownApi(), ...children]));
    expect(await ask(operator, [...never, ...elsewhere])).toEqual(allFalse([...never, ...elsewhere]));
  });

  it('impersonation required: no child right anywhere, only impersonating ServiceAccounts of the tenant namespaces', async () => {
    const operator = await operatorWith({ impersonation: 'required', tenantNamespaces: [teamA] });
    const can: ReadonlyArray<Row> = [
      [
        `impersonate ServiceAccounts in ${teamA}`,
        { verb: 'impersonate', resource: 'serviceaccounts', namespace: teamA, name: 'deployer' },
      ],
    ];
    const cannot: ReadonlyArray<Row> = [
      [`create ConfigMaps in ${teamA}`, { verb: 'create', resource: 'configmaps', namespace: teamA }],
      [`get Secrets in ${teamA}`, { verb: 'get', resource: 'secrets', namespace: teamA }],
      [
        `impersonate ServiceAccounts in ${other}`,
        { verb: 'impersonate', resource: 'serviceaccounts', namespace: other, name: 'deployer' },
      ],
    ];
    expect(await ask(operator, [...ownApi(), ...can])).toEqual(allTrue([...ownApi(), ...can]));
    expect(await ask(operator, [...never, ...cannot])).toEqual(allFalse([...never, ...cannot]));
  });

  it('the default (cluster-wide children): common kinds everywhere but never Secrets cluster-wide', async () => {
    const operator = await operatorWith({});
    const can: ReadonlyArray<Row> = [
      [`patch Deployments in ${other}`, { verb: 'patch', group: 'apps', resource: 'deployments', namespace: other }],
    ];
    const cannot: ReadonlyArray<Row> = [
      [`get Secrets in ${other}`, { verb: 'get', resource: 'secrets', namespace: other }],
      ['create ClusterRoles', { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' }],
    ];
    // kube-system is not excluded here: cluster-wide child rights are the admin's explicit choice.
    const neverButKubeSystemChildren = never.filter(
      ([label]) => !label.endsWith('in kube-system') || label.includes('Secrets') || label.includes('impersonate'),
    );
    expect(await ask(operator, [...ownApi(), ...can])).toEqual(allTrue([...ownApi(), ...can]));
    expect(await ask(operator, [...neverButKubeSystemChildren, ...cannot])).toEqual(
      allFalse([...neverButKubeSystemChildren, ...cannot]),
    );
  });
});
