/**
 * Issue 19 on a real API server, as the unprivileged tenant `alice` (only Applications in team-a),
 * with the operator under a platform-team `--policy` allowing CRDs and one cluster kind
 * (ClusterRole) and rights to write them: a manifest CRD redefining ClusterRoleBinding as
 * namespaced is refused (`Stalled Forbidden`) and nothing cluster-scoped is written; the same CRD
 * among `kreconcile plan -f` files gives a plan `apply` writes nothing of; a 422 that quotes an
 * adopted Secret and a Secret's kubectl last-applied annotation show only masked values.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { connectKubernetes, connectWritable } from '../../app/cli/live/kubernetes.js';
import { run } from '../../app/cli/main.js';
import type { SavedPlanV1 } from '../../app/cli/saved-plan/format.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { base64Of, type Resource, type TenancyPolicy } from '../../core/internal.js';
import { testIo } from '../cli/support/run-cli.js';
import { adminIdentity, applyAll, clusterWithToken, serviceAccountToken } from '../support/api-identities.js';
import { applicationRef, readApplication, readObject, waitForCondition } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespaces, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;
const RBAC = 'rbac.authorization.k8s.io/v1';
const NOW = '2026-03-02T12:00:00Z';
const CANARY = `pw-${Math.random().toString(16).slice(2, 10)}`;
const OTHER = `other-${Math.random().toString(16).slice(2, 10)}`;
const APPLIED = `applied-${Math.random().toString(16).slice(2, 10)}`;
const LEAKS = [CANARY, OTHER, APPLIED, base64Of(CANARY), base64Of(OTHER), base64Of(APPLIED)];

const redefiningCrd: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'clusterrolebindings.rbac.authorization.k8s.io' },
  spec: {
    group: 'rbac.authorization.k8s.io',
    scope: 'Namespaced',
    names: { kind: 'ClusterRoleBinding', plural: 'clusterrolebindings' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
};

const expectNoLeak = (text: string): void => {
  for (const leak of LEAKS) expect(text, `holds ${leak}`).not.toContain(leak);
};

describeWithApiServer('end to end: scopes, TOSCA-free leaks and the CI path, as alice (issue 19)', (env) => {
  let admin: KubernetesCluster;
  let alice: KubernetesCluster;
  let teamA: string;
  let cleanup: (() => Promise<void>) | undefined;
  let operator: Operator | undefined;
  let dir: string;
  const binding = uniqueName('alice-admin');
  const bindingRef = { apiVersion: RBAC, kind: 'ClusterRoleBinding', name: binding };
  const clusterRoleBinding = (): Resource => ({
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: binding },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: teamA }],
  });
  const application = (name: string, spec: Record<string, unknown>): Resource =>
    ({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name, namespace: teamA },
      spec,
    }) as unknown as Resource;
  const policy = (): TenancyPolicy => ({
    clusterKinds: [
      {
        from: teamA,
        kinds: ['apiextensions.k8s.io/CustomResourceDefinition', 'rbac.authorization.k8s.io/ClusterRole'],
      },
    ],
  });

  beforeAll(async () => {
    admin = connect(env);
    const adminId = adminIdentity(env.kubeconfigPath);
    const fresh = await freshNamespaces(admin, ['kr-scope-team-a', 'kr-scope-users']);
    cleanup = fresh.cleanup;
    const [teamANs, users] = fresh.namespaces as [string, string];
    teamA = teamANs;
    await applyAll(admin, [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'alice', namespace: users } },
      {
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: 'application-author', namespace: teamA },
        rules: [
          {
            apiGroups: ['kreconcile.io'],
            resources: ['applications'],
            verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
          },
        ],
      },
      {
        apiVersion: RBAC,
        kind: 'RoleBinding',
        metadata: { name: 'alice', namespace: teamA },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'application-author' },
        subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: users }],
      },
    ]);
    alice = clusterWithToken(adminId, await serviceAccountToken(adminId, users, 'alice'), 'alice');
    dir = await mkdtemp(join(tmpdir(), 'kr-e2e-scopes-'));
    // The operator with the widest rights (the kubeconfig's) under the platform-team policy: only
    // the core's tenancy and the adapter's scope check stand between alice and cluster-admin.
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace: teamA,
      readiness: 'existence',
      tenancy: policy(),
    });
  });

  afterAll(async () => {
    await operator?.stop(10_000);
    await admin.delete(bindingRef)();
    await cleanup?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('the setup holds: alice may not create a ClusterRoleBinding or a ConfigMap herself', async () => {
    expect((await alice.create(clusterRoleBinding())())._tag).toBe('Left');
    const direct = await alice.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'direct', namespace: teamA },
    })();
    expect(direct._tag === 'Left' && direct.left._tag).toBe('Forbidden');
  });

  it('a manifest CRD redefining ClusterRoleBinding as namespaced: Stalled Forbidden, nothing cluster-scoped written', async () => {
    await must(alice.create(application('escalate', { manifest: [redefiningCrd, clusterRoleBinding()] })));
    const stalled = await waitForCondition(
      admin,
      applicationRef(teamA, 'escalate'),
      'Stalled',
      { status: 'True', reason: 'Forbidden' },
      CONVERGE_MS,
    );
    expect(stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.message).toContain(
      `rbac.authorization.k8s.io/v1 ClusterRoleBinding ${binding} (ClusterScoped:`,
    );
    expect(await readObject(admin, bindingRef)).toBeUndefined();
    expect(
      await readObject(admin, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: 'clusterrolebindings.rbac.authorization.k8s.io',
      }),
    ).toBeUndefined();
    expect(
      await readObject(admin, { apiVersion: RBAC, kind: 'RoleBinding', namespace: teamA, name: binding }),
    ).toBeUndefined();
  });

  it('the CI path: the CRD among plan -f files gives no write, and apply writes nothing', async () => {
    const crdFile = join(dir, 'crd.json');
    const appFile = join(dir, 'app.json');
    const policyFile = join(dir, 'policy.json');
    const planFile = join(dir, 'plan.json');
    await writeFile(crdFile, JSON.stringify(redefiningCrd));
    await writeFile(appFile, JSON.stringify(application('ci', { manifest: [clusterRoleBinding()] })));
    await writeFile(policyFile, JSON.stringify(policy()));
    const cli = async (argv: ReadonlyArray<string>) => {
      const { io, out, err } = testIo({ connect: connectKubernetes, connectWritable });
      const code = await run(argv, io);
      return { code, stdout: out.join(''), stderr: err.join('') };
    };
    const planned = await cli([
      'plan',
      '-f',
      crdFile,
      '-f',
      appFile,
      '--policy',
      policyFile,
      '--kubeconfig',
      env.kubeconfigPath,
      '--now',
      NOW,
      '--out',
      planFile,
    ]);
    // A plan with forbidden actions fails the gate (exit 1, one summary line per Application), and is still saved.
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(/^error: Application kr-scope-team-a-\S+ is Stalled \(.*\), \d+ forbidden: /);
    expect(planned.stderr).toContain('Application(s) stalled: the operator would not carry their plans out');
    expect(planned.stdout).toContain('forbidden (ClusterScoped)');
    const saved = JSON.parse(await readFile(planFile, 'utf8')) as SavedPlanV1;
    expect(saved.metadata.scopes['rbac.authorization.k8s.io/ClusterRoleBinding']).toBe('Cluster');
    expect(saved.applications.flatMap((a) => a.actions.map((action) => action.type))).not.toContain('create');
    await cli(['apply', planFile, '--kubeconfig', env.kubeconfigPath]);
    expect(await readObject(admin, bindingRef)).toBeUndefined();
    // A hand-edited plan claiming the binding namespaced is refused before any write.
    const forged: SavedPlanV1 = {
      ...saved,
      metadata: { ...saved.metadata, scopes: { 'rbac.authorization.k8s.io/ClusterRoleBinding': 'Namespaced' } },
      applications: saved.applications.map((app) => ({
        ...app,
        actions: [
          {
            type: 'create',
            resource: { ...bindingRef, namespace: teamA },
            body: { ...clusterRoleBinding(), metadata: { name: binding, namespace: teamA } },
            changes: [],
            guard: { absent: true },
          },
        ],
      })),
    };
    await writeFile(planFile, JSON.stringify(forged));
    const applied = await cli(['apply', planFile, '--kubeconfig', env.kubeconfigPath]);
    expect(applied.code).toBe(1);
    // The saved plan's digest covers its actions, so the edit is caught first; the scope check behind it
    // (a kind cluster-scoped on the server written in a namespace) is tested in test/cli/scope-redefinition.test.ts.
    expect(applied.stderr).toContain("the saved plan's digest");
    expect(applied.stderr).toContain('nothing was applied');
    expect(await readObject(admin, bindingRef)).toBeUndefined();
  });

  it('a 422 quoting an adopted Secret, and its kubectl last-applied annotation: only masked values', async () => {
    // A Secret created by `kubectl apply`: its last-applied annotation holds a value in clear.
    await must(
      admin.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'db',
          namespace: teamA,
          annotations: {
            'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: 'db', namespace: teamA },
              stringData: { applied: APPLIED },
            }),
          },
        },
        data: { password: base64Of(CANARY), other: base64Of(OTHER), applied: base64Of(APPLIED) },
      }),
    );
    // Adopted with a valid value first, observing its annotations (attack 5) …
    const leakSpec = (password: string) => ({
      adopt: true,
      manifest: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: { password } }],
      observerSchema: [
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', annotations: true }, data: { password: true } },
      ],
    });
    await must(alice.create(application('leak', leakSpec(base64Of('first')))));
    await waitForCondition(admin, applicationRef(teamA, 'leak'), 'Ready', { status: 'True' }, CONVERGE_MS);
    // … then one key set to invalid base64 (attack 4): the server's answer quotes the patched object.
    await must(
      alice.patch(applicationRef(teamA, 'leak'), { type: 'merge', body: { spec: leakSpec('!!!not base64') } }),
    );
    const settled = await eventually(async () => {
      const app = await readApplication(admin, applicationRef(teamA, 'leak'));
      expect(app.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({
        status: 'True',
        observedGeneration: 2,
      });
      return app;
    }, CONVERGE_MS);
    expectNoLeak(JSON.stringify(settled.status));
    const events = await admin.list({ apiVersion: 'v1', kind: 'Event', namespace: teamA })();
    expect(events._tag).toBe('Right');
    expectNoLeak(JSON.stringify(events._tag === 'Right' ? events.right.items : []));
    // A second Application only observing the annotation: a digest in status, never the value.
    await must(
      admin.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'observed',
          namespace: teamA,
          annotations: {
            'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ stringData: { applied: APPLIED } }),
          },
        },
        data: { applied: base64Of(APPLIED) },
      }),
    );
    await must(
      alice.create(
        application('observe', {
          adopt: true,
          manifest: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'observed' } }],
          observerSchema: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'observed', annotations: null } }],
        }),
      ),
    );
    const observed = await eventually(async () => {
      const app = await readApplication(admin, applicationRef(teamA, 'observe'));
      expect(JSON.stringify(app.status?.lastObservedManifest ?? [])).toContain('last-applied-configuration');
      return app;
    }, CONVERGE_MS);
    expectNoLeak(JSON.stringify(observed.status));
    expect(JSON.stringify(observed.status)).toMatch(
      /"kubectl.kubernetes.io\/last-applied-configuration":"sha256:[0-9a-f]{64}"/,
    );
  });
});
