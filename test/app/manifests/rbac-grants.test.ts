/**
 * The rights to write the RBAC that Applications ship (app/manifests/rbac-grants.ts), and
 * `kreconcile rbac --kinds-from-applications` printing them: the declared roles' rules held
 * exactly, `bind` by name for roles referenced but not declared, `escalate` only for an aggregated
 * ClusterRole, a wildcard said aloud. test/integration/rbac-grants.test.ts checks them on a real
 * API server.
 */
import { describe, expect, it } from 'vitest';
import { declaredRbac, rbacGrants } from '../../../app/manifests/rbac-grants.js';
import type { Resource } from '../../../core/internal.js';
import { runCli } from '../../cli/support/run-cli.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

const manifest: ReadonlyArray<Resource> = [
  {
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: 'read' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  },
  {
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'read' },
    roleRef: ref('ClusterRole', 'read'),
    subjects: [],
  },
  {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: 'view' },
    roleRef: ref('ClusterRole', 'view'),
    subjects: [],
  },
  {
    apiVersion: RBAC,
    kind: 'Role',
    metadata: { name: 'cfg', namespace: 'b' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['update'] }],
  },
  {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: 'ext', namespace: 'b' },
    roleRef: ref('Role', 'platform-role'),
    subjects: [],
  },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-rbac' } },
];

describe('rbacGrants', () => {
  it('holds the declared rules, binds by name what is referenced but not declared, no escalate', () => {
    const grants = rbacGrants(declaredRbac(manifest, 'a'));
    expect(grants.clusterRules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        verbs: ['bind'],
        resourceNames: ['view'],
      },
    ]);
    expect([...grants.namespaceRules]).toEqual([
      [
        'b',
        [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['update'] },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['roles'],
            verbs: ['bind'],
            resourceNames: ['platform-role'],
          },
        ],
      ],
    ]);
    expect(grants.wildcards).toEqual([]);
    expect(JSON.stringify(grants)).not.toContain('escalate');
  });

  it('an aggregated ClusterRole needs escalate (its rules are the aggregation), a wildcard is named', () => {
    const grants = rbacGrants(
      declaredRbac(
        [
          {
            apiVersion: RBAC,
            kind: 'ClusterRole',
            metadata: { name: 'agg' },
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
          },
          {
            apiVersion: RBAC,
            kind: 'Role',
            metadata: { name: 'all' },
            rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
          },
        ],
        'a',
      ),
    );
    expect(grants.clusterRules).toEqual([
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['escalate'] },
    ]);
    expect(grants.wildcards).toEqual(['Role all']);
  });

  it('kreconcile rbac --kinds-from-applications prints them, bound to the operator', async () => {
    const app = `apiVersion: kreconcile.io/v1alpha1\nkind: Application\nmetadata: {name: mon, namespace: a}\nspec:\n  manifest: ${JSON.stringify(manifest)}\n`;
    const result = await runCli(['rbac', '-f', 'app.yaml', '--kinds-from-applications', '-o', 'json'], {
      files: { 'app.yaml': app },
    });
    expect(result.code).toBe(0);
    const objects = (
      JSON.parse(result.stdout) as { items: Array<{ kind: string; metadata: { name: string; namespace?: string } }> }
    ).items;
    expect(
      objects
        .filter((o) => o.metadata.name === 'kreconcile-rbac-grants')
        .map((o) => `${o.kind} ${o.metadata.namespace ?? ''}`),
    ).toEqual(['ClusterRole ', 'ClusterRoleBinding ', 'Role b', 'RoleBinding b']);
    const none = await runCli(['rbac'], {});
    expect(none.stdout).not.toContain('rbac-grants');
  });
});
