/**
 * Applications that ship RBAC (issue 36 item 10) on a real API server: the RBAC `kreconcile rbac
 * --kinds-from-applications` derives (app/manifests/rbac-grants.ts) lets the operator write the
 * ClusterRoles, Roles and bindings its Applications declare, and nothing more: a role granting a
 * right the Applications' roles do not, or a binding to a role they neither declare nor reference,
 * is refused by the API server's escalation check. Without the grants, the same writes are refused
 * with the missing rights listed. Names are unique per run (the control plane is shared).
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { declaredRbac, rbacGrants } from '../../app/manifests/rbac-grants.js';
import { showClusterError, type Resource } from '../../core/internal.js';
import { adminIdentity, installOperator, type ApiIdentity } from '../support/api-identities.js';
import { connect, describeWithApiServer, freshNamespaces, uniqueName } from '../support/kubernetes-env.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
const RBAC_KINDS = ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].map((kind) => ({
  apiVersion: RBAC,
  kind,
}));

describeWithApiServer('Applications that ship RBAC: the operator may write exactly what they declare', (env) => {
  let admin: KubernetesCluster;
  let adminId: ApiIdentity;
  let ops: string;
  let tenant: string;
  let cleanup: () => Promise<void>;
  const clusterRole = uniqueName('kr-monitor-read');
  const created: Resource[] = [];

  const manifest = (): ReadonlyArray<Resource> => [
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: clusterRole },
      rules: [{ apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: clusterRole },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
      subjects: [{ kind: 'ServiceAccount', name: 'monitor', namespace: tenant }],
    },
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: 'monitor-view', namespace: tenant },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'monitor', namespace: tenant }],
    },
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name: 'monitor-config', namespace: tenant },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: ['monitor'] }],
    },
    {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: 'monitor-config', namespace: tenant },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'monitor-config' },
      subjects: [{ kind: 'ServiceAccount', name: 'monitor', namespace: tenant }],
    },
  ];

  beforeAll(async () => {
    admin = connect(env);
    adminId = adminIdentity(env.kubeconfigPath);
    const made = await freshNamespaces(admin, ['kr-rbac-ops', 'kr-rbac-tenant']);
    [ops, tenant] = made.namespaces as [string, string];
    cleanup = made.cleanup;
  });
  afterAll(async () => {
    for (const object of created)
      await admin.delete({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name })();
    await cleanup();
  });

  const operatorWith = async (withGrants: boolean): Promise<KubernetesCluster> =>
    (
      await installOperator(admin, adminId, {
        namespace: ops,
        name: uniqueName('kreconcile'),
        childKinds: RBAC_KINDS,
        ...(withGrants ? { rbacGrants: rbacGrants(declaredRbac(manifest(), tenant)) } : {}),
      })
    ).cluster;

  const write = async (cluster: KubernetesCluster, object: Resource): Promise<string | undefined> => {
    const answer = await cluster.create(object)();
    if (E.isRight(answer) && answer.right.metadata.namespace === undefined) created.push(object);
    return E.isLeft(answer) ? showClusterError(answer.left) : undefined;
  };

  it('without the grants the API server refuses the roles, naming every missing right', async () => {
    const operator = await operatorWith(false);
    const refusal = await write(operator, {
      ...(manifest()[0] as Resource),
      metadata: { name: uniqueName('kr-no-grants') },
    });
    expect(refusal).toContain('attempting to grant RBAC permissions not currently held');
    expect(refusal).toContain('{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list" "watch"]}');
    expect(refusal).toContain('{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "watch"]}');
  }, 30_000);

  it('with them it writes every declared role and binding, and nothing beyond', async () => {
    const operator = await operatorWith(true);
    for (const object of manifest())
      expect(await write(operator, object), `${object.kind} ${object.metadata.name}`).toBeUndefined();
    // More than the Applications declare: refused.
    const wider = {
      ...(manifest()[0] as Resource),
      metadata: { name: uniqueName('kr-wider') },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    };
    expect(await write(operator, wider)).toContain('attempting to grant RBAC permissions not currently held');
    const toAdmin: Resource = {
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: 'monitor-admin', namespace: tenant },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'monitor', namespace: tenant }],
    };
    expect(await write(operator, toAdmin)).toContain('attempting to grant RBAC permissions not currently held');
  }, 30_000);
});
