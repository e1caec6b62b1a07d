/**
 * Impersonation beside the operator's own rights (`kreconcile rbac --impersonation allowed`, the
 * default wiring of `kreconcile run` on a real cluster), on a real API server: an Application
 * without a ServiceAccount is applied with the operator's rights (children watched), one naming
 * a ServiceAccount only with that account's, even where the operator itself could do more.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { childClusters } from '../../app/access/child-access.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import type { Resource } from '../../core/internal.js';
import { adminIdentity, applyAll, canI, installOperator, type ApiIdentity } from '../support/api-identities.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectOwnedBy,
  readExisting,
  readObject,
  waitForCondition,
} from '../support/e2e-application.js';
import { connect, describeWithApiServer, freshNamespaces, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;
const RBAC = 'rbac.authorization.k8s.io/v1';

const configMap = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
});
const service = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ port: 80 }] },
});

describeWithApiServer("end to end: impersonation allowed beside the operator's own rights", (env) => {
  let admin: KubernetesCluster;
  let operatorId: ApiIdentity;
  let operator: Operator;
  let teamA: string;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    admin = connect(env);
    const adminId = adminIdentity(env.kubeconfigPath);
    const fresh = await freshNamespaces(admin, ['kr-impa-ops', 'kr-impa-team-a']);
    cleanup = fresh.cleanup;
    const [ops, teamANs] = fresh.namespaces as [string, string];
    teamA = teamANs;
    const installed = await installOperator(admin, adminId, {
      namespace: ops,
      name: uniqueName('kreconcile-impa'),
      impersonation: 'allowed',
    });
    operatorId = installed.identity;
    const cluster = installed.cluster;
    await applyAll(admin, [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: teamA } },
      {
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: 'deployer', namespace: teamA },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
          { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
        ],
      },
      {
        apiVersion: RBAC,
        kind: 'RoleBinding',
        metadata: { name: 'deployer', namespace: teamA },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' },
        subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: teamA }],
      },
    ]);
    // What `kreconcile run` wires on a real cluster without the ServiceAccount flags.
    operator = await startOperator({
      cluster,
      clock: realClock,
      random: Math.random,
      namespace: teamA,
      readiness: 'existence',
      childClusterFor: childClusters({}, cluster.impersonate),
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  it("applies an Application without a ServiceAccount with the operator's rights, watching its children", async () => {
    await must(admin.create(applicationObject(teamA, 'own', [configMap('own'), service('own')])));
    const app = await waitForCondition(admin, applicationRef(teamA, 'own'), 'Ready', { status: 'True' }, CONVERGE_MS);
    expectOwnedBy(await readExisting(admin, { apiVersion: 'v1', kind: 'Service', namespace: teamA, name: 'own' }), app);
    expect(operator.controller.watchedKinds).toEqual(expect.arrayContaining(['v1/ConfigMap', 'v1/Service']));
  });

  it("applies one naming a ServiceAccount only with that account's rights, even where the operator could do more", async () => {
    expect(await canI(operatorId, { verb: 'create', resource: 'services', namespace: teamA })).toBe(true);
    const object = applicationObject(teamA, 'tenant', [configMap('tenant'), service('tenant')]) as unknown as {
      spec: Record<string, unknown>;
    };
    await must(
      admin.create({ ...object, spec: { ...object.spec, serviceAccountName: 'deployer' } } as unknown as Resource),
    );
    const app = await waitForCondition(
      admin,
      applicationRef(teamA, 'tenant'),
      'Stalled',
      { status: 'True', reason: 'Forbidden' },
      CONVERGE_MS,
    );
    expect(conditionOf(app, 'Stalled')?.message).toBe(
      `Forbidden: ServiceAccount ${teamA}/deployer may not create v1 Service ${teamA}/tenant (missing right: create services in namespace ${teamA})`,
    );
    expectOwnedBy(
      await readExisting(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'tenant' }),
      app,
    );
    expect(
      await readObject(admin, { apiVersion: 'v1', kind: 'Service', namespace: teamA, name: 'tenant' }),
    ).toBeUndefined();
  });
});
