/** The operator RBAC generator: what each admin choice grants, and what no choice ever grants. */
import { describe, expect, it } from 'vitest';
import { LEADER_LEASE_NAME, operatorRbac, runFlagsFor, type RbacOptions } from '../../../app/manifests/rbac.js';
import type { Resource } from '../../../core/internal.js';
import { runCli } from '../../cli/support/run-cli.js';

type Rule = {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
  readonly resourceNames?: string[];
};
type Role = Resource & { readonly rules: Rule[] };
type Binding = Resource & {
  readonly roleRef: { kind: string; name: string };
  readonly subjects: Array<{ kind: string; name: string; namespace: string }>;
};

const rolesOf = (objects: ReadonlyArray<Resource>) =>
  objects.filter((o): o is Role => o.kind === 'ClusterRole' || o.kind === 'Role');
const bindingsOf = (objects: ReadonlyArray<Resource>) =>
  objects.filter((o): o is Binding => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding');

/** Every (scope, group, resource, verb) the objects grant, as `where group/resource verb`. */
const grants = (objects: ReadonlyArray<Resource>): ReadonlyArray<string> =>
  bindingsOf(objects)
    .flatMap((binding) => {
      const role = rolesOf(objects).find(
        (r) => r.kind === binding.roleRef.kind && r.metadata.name === binding.roleRef.name,
      );
      const where = binding.kind === 'ClusterRoleBinding' ? '*' : binding.metadata.namespace;
      return (role?.rules ?? []).flatMap((rule) =>
        rule.apiGroups.flatMap((group) =>
          rule.resources.flatMap((resource) =>
            rule.verbs.map(
              (verb) =>
                `${where} ${group}/${resource} ${verb}${rule.resourceNames ? `:${rule.resourceNames.join(',')}` : ''}`,
            ),
          ),
        ),
      );
    })
    .sort();

/** Its own API, Events, the Lease and the read-only admission-policy check: granted in every mode. */
const isOwnApi = (grant: string): boolean =>
  grant.includes('kreconcile.io') ||
  grant.includes('/events') ||
  grant.includes('/leases') ||
  grant.includes('admissionregistration.k8s.io/');

const operatorSubject = { kind: 'ServiceAccount', name: 'kreconcile', namespace: 'ops' };

describe('operatorRbac', () => {
  const options: RbacOptions = { namespace: 'ops' };

  it('never grants wildcards, RBAC objects, Namespaces or cluster-wide Secrets, whatever the mode', () => {
    for (const mode of [
      options,
      { ...options, impersonation: 'allowed' as const },
      { ...options, impersonation: 'required' as const },
      { ...options, tenantNamespaces: ['team-a'] },
    ]) {
      const granted = grants(operatorRbac(mode));
      expect(
        granted.filter(
          (g) =>
            g.includes('*/') || / \*$/.test(g) || g.includes('rbac.authorization.k8s.io') || g.includes('/namespaces '),
        ),
        JSON.stringify(mode),
      ).toEqual([]);
      expect(granted.filter((g) => g.startsWith('* ') && g.includes('/secrets '))).toEqual([]);
      for (const binding of bindingsOf(operatorRbac(mode))) expect(binding.subjects).toEqual([operatorSubject]);
    }
  });

  it('keeps the Lease in the operator namespace, updated only by name', () => {
    const leases = grants(operatorRbac(options)).filter((g) => g.includes('/leases'));
    expect(leases).toEqual([
      `ops coordination.k8s.io/leases create`,
      `ops coordination.k8s.io/leases get:${LEADER_LEASE_NAME}`,
      `ops coordination.k8s.io/leases update:${LEADER_LEASE_NAME}`,
    ]);
  });

  it('binds child rights per tenant namespace (Secrets included there, for hook tokens) instead of cluster-wide', () => {
    const granted = grants(operatorRbac({ ...options, tenantNamespaces: ['team-a', 'team-a-db'] }));
    const children = granted.filter((g) => !isOwnApi(g));
    expect(new Set(children.map((g) => g.split(' ')[0]))).toEqual(new Set(['team-a', 'team-a-db']));
    expect(children).toContain('team-a apps/deployments create');
    expect(children).toContain('team-a-db /secrets get');
    expect(granted.filter((g) => g.includes('impersonate'))).toEqual([]);
  });

  it('grants only "impersonate serviceaccounts" when impersonation is required: no child right at all', () => {
    const granted = grants(operatorRbac({ ...options, impersonation: 'required', tenantNamespaces: ['team-a'] }));
    const beyondOwnApi = granted.filter((g) => !isOwnApi(g));
    expect(beyondOwnApi).toEqual(['team-a /serviceaccounts impersonate']);
    expect(runFlagsFor({ ...options, impersonation: 'required', defaultServiceAccount: 'tenant' })).toEqual([
      '--require-service-account',
      '--default-service-account',
      'tenant',
      '--no-watch-children',
    ]);
  });

  it('adds impersonation beside child rights when allowed; cluster-wide children by default, only the named kinds when given', () => {
    const allowed = grants(operatorRbac({ ...options, impersonation: 'allowed' }));
    expect(allowed).toContain('* /serviceaccounts impersonate');
    expect(allowed).toContain('* apps/deployments patch');
    const named = grants(
      operatorRbac({ ...options, childKinds: [{ apiVersion: 'example.com/v1', kind: 'Widget' }] }),
    ).filter((g) => !isOwnApi(g));
    // Beside the named kinds: only `get` on ConfigMaps, to read the inventory kreconcile apply keeps (decision 0028).
    expect(new Set(named.map((g) => g.split(' ')[1]))).toEqual(new Set(['example.com/widgets', '/configmaps']));
    expect(named.filter((g) => g.includes('/configmaps'))).toEqual(['* /configmaps get']);
    expect(runFlagsFor(options)).toEqual([]);
  });
});

describe('kreconcile rbac / deploy / run flags', () => {
  it('refuses to derive rights from tenant-written Application files without the explicit flag', async () => {
    const refused = await runCli(['rbac', '-f', 'examples/webapp/app.yaml']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('add --kinds-from-applications');
    const derived = await runCli(['rbac', '-f', 'examples/webapp/app.yaml', '--kinds-from-applications', '-o', 'json']);
    expect(derived.code).toBe(0);
    expect(derived.stdout).toContain('"deployments"');
  });

  it('rejects contradictory or malformed choices with one line each', async () => {
    const contradictory = await runCli(['rbac', '--impersonation', 'required', '--child-kind', 'v1/ConfigMap']);
    expect(contradictory.code).toBe(1);
    expect(contradictory.stderr).toContain('--impersonation required grants the operator no child rights');
    const malformed = await runCli(['rbac', '--child-kind', 'ConfigMap']);
    expect(malformed.stderr).toContain('--child-kind ConfigMap: expected apiVersion/Kind');
    const badAccount = await runCli(['deploy', '--default-service-account', 'Not_A_Name']);
    expect(badAccount.code).toBe(1);
    expect(badAccount.stderr).toContain('--default-service-account Not_A_Name: not a ServiceAccount name');
  });

  it('deploy passes the run flags that match the RBAC it prints', async () => {
    const deployed = await runCli([
      'deploy',
      '--impersonation',
      'required',
      '--default-service-account',
      'kreconcile-tenant',
      '--tenant-namespace',
      'team-a',
      '-o',
      'json',
    ]);
    const items = (
      JSON.parse(deployed.stdout) as {
        items: Array<{ kind: string; spec?: { template: { spec: { containers: Array<{ args: string[] }> } } } }>;
      }
    ).items;
    const args = items.find((item) => item.kind === 'Deployment')?.spec?.template.spec.containers[0]?.args ?? [];
    expect(args).toEqual(
      expect.arrayContaining([
        '--require-service-account',
        '--default-service-account',
        'kreconcile-tenant',
        '--no-watch-children',
      ]),
    );
  });

  it('run refuses impersonation flags on the embedded cluster, which has no RBAC', async () => {
    const result = await runCli([
      'run',
      '--memory',
      '-f',
      'examples/webapp/app.yaml',
      '--require-service-account',
      '--exit-when-converged',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('need a real cluster (the in-memory one has no RBAC)');
  });

  it('prints the garbage-collection policy and its binding; --garbage-collector-user names whom it refuses', async () => {
    const policyOf = (stdout: string) =>
      (JSON.parse(stdout) as { items: ReadonlyArray<Resource> }).items.filter(
        (item) => item.metadata.name === 'kreconcile-garbage-collection',
      );
    const printed = await runCli(['rbac', '-o', 'json']);
    expect(printed.code).toBe(0);
    const [policy, binding] = policyOf(printed.stdout);
    expect([policy?.kind, binding?.kind]).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(JSON.stringify(policy)).toContain(
      "request.userInfo.username in ['system:serviceaccount:kube-system:generic-garbage-collector', 'system:kube-controller-manager']",
    );
    expect(JSON.stringify(binding)).toContain('"validationActions":["Deny"]');
    const named = await runCli(['deploy', '-o', 'json', '--garbage-collector-user', "gc'er"]);
    expect(named.code).toBe(0);
    // A quote in a user name stays inside its CEL string literal.
    expect(JSON.stringify(policyOf(named.stdout)[0])).toContain("request.userInfo.username in ['gc\\\\'er']");
  });
});
