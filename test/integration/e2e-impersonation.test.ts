/**
 * Impersonation end to end on a real API server (issue 10, Build 3): the operator runs under a
 * ServiceAccount token with the RBAC `kreconcile rbac --impersonation required` prints (no child
 * rights at all); `alice`, whose only right is Applications in team-a, asks it for children; every
 * child is read and written as the Application's ServiceAccount, so the API server applies that
 * account's RBAC: what it may not do is refused by the server and reported in the status.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { childClusters } from '../../app/access/child-access.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import type { ObjectRef, Resource } from '../../core/internal.js';
import {
  adminIdentity,
  applyAll,
  canI,
  clusterWithToken,
  installOperator,
  postJson,
  serviceAccountToken,
  type ApiIdentity,
} from '../support/api-identities.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectOwnedBy,
  hasFinalizer,
  readExisting,
  readObject,
  reconcileLog,
  waitForCondition,
  type ReconcileLog,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespaces, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;
const RBAC = 'rbac.authorization.k8s.io/v1';

const configMap = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { LOG_LEVEL: 'info' },
});

const deployment = (name: string): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: 'nginx:1.27' }] } },
  },
});

describeWithApiServer("end to end: impersonating the Application's ServiceAccount", (env) => {
  let admin: KubernetesCluster;
  let adminId: ApiIdentity;
  let alice: KubernetesCluster;
  let operatorId: ApiIdentity;
  let operator: Operator;
  let log: ReconcileLog;
  let ops: string;
  let teamA: string;
  let cleanup: (() => Promise<void>) | undefined;

  const application = (
    name: string,
    manifest: ReadonlyArray<Resource>,
    serviceAccountName?: string,
    spec: Record<string, unknown> = {},
  ): Resource => {
    const object = applicationObject(teamA, name, manifest) as unknown as { spec: Record<string, unknown> };
    return {
      ...object,
      spec: { ...object.spec, ...spec, ...(serviceAccountName === undefined ? {} : { serviceAccountName }) },
    } as unknown as Resource;
  };

  const stalled = (name: string, reason: string) =>
    waitForCondition(admin, applicationRef(teamA, name), 'Stalled', { status: 'True', reason }, CONVERGE_MS);

  beforeAll(async () => {
    admin = connect(env);
    adminId = adminIdentity(env.kubeconfigPath);
    const fresh = await freshNamespaces(admin, ['kr-imp-ops', 'kr-imp-team-a', 'kr-imp-users']);
    cleanup = fresh.cleanup;
    const [opsNs, teamANs, users] = fresh.namespaces as [string, string, string];
    ops = opsNs;
    teamA = teamANs;

    // The operator: exactly what `kreconcile rbac --impersonation required --tenant-namespace <team-a>` prints.
    const installed = await installOperator(admin, adminId, {
      namespace: ops,
      name: 'kreconcile-imp',
      impersonation: 'required',
      tenantNamespaces: [teamA],
    });
    operatorId = installed.identity;

    // The tenant's ServiceAccount: ConfigMaps yes, Deployments read-only.
    await applyAll(admin, [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: teamA } },
      {
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: 'deployer', namespace: teamA },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
        ],
      },
      {
        apiVersion: RBAC,
        kind: 'RoleBinding',
        metadata: { name: 'deployer', namespace: teamA },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' },
        subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: teamA }],
      },
      // A workload's account with hooks: ConfigMaps and the hook Secret.
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'batch-runner', namespace: teamA } },
      {
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: 'batch-runner', namespace: teamA },
        rules: [
          {
            apiGroups: [''],
            resources: ['configmaps', 'secrets'],
            verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
          },
        ],
      },
      {
        apiVersion: RBAC,
        kind: 'RoleBinding',
        metadata: { name: 'batch-runner', namespace: teamA },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'batch-runner' },
        subjects: [{ kind: 'ServiceAccount', name: 'batch-runner', namespace: teamA }],
      },
      // alice: Applications in team-a, nothing else.
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

    const operatorCluster = installed.cluster;
    log = reconcileLog();
    operator = await startOperator({
      cluster: operatorCluster,
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace: teamA,
      readiness: 'existence',
      // What `kreconcile run --require-service-account` wires (runFlagsFor adds --no-watch-children).
      childClusterFor: childClusters({ require: true }, operatorCluster.impersonate),
      watchChildren: false,
      // A permissive admin policy: the core's tenancy lets these through, so the API server's
      // answer to the impersonated requests is what is tested (defence in depth).
      tenancy: {
        destinations: [{ from: teamA, to: ['kube-system'] }],
        clusterKinds: [{ from: teamA, kinds: ['rbac.authorization.k8s.io/ClusterRoleBinding'] }],
      },
      onReconciled: log.onReconciled,
      hooks: { callbackUrl: 'http://kreconcile.kreconcile-system.svc:8080', listen: { host: '127.0.0.1', port: 0 } },
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  it('the setup holds: alice may only write Applications, the operator may not write children itself', async () => {
    const direct = await alice.create(configMap('by-alice', teamA))();
    expect(E.isLeft(direct) && direct.left._tag).toBe('Forbidden');
    expect(await canI(operatorId, { verb: 'create', resource: 'configmaps', namespace: teamA })).toBe(false);
    expect(await canI(operatorId, { verb: 'create', group: 'apps', resource: 'deployments', namespace: teamA })).toBe(
      false,
    );
    expect(
      await canI(operatorId, { verb: 'impersonate', resource: 'serviceaccounts', namespace: teamA, name: 'deployer' }),
    ).toBe(true);
  });

  it('Impersonate-User alone makes the operator the ServiceAccount, with the groups the API server derives for it', async () => {
    const review = await postJson(
      operatorId,
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      { 'Impersonate-User': `system:serviceaccount:${teamA}:deployer` },
    );
    expect(review.status).toBe(201);
    const userInfo = (review.body.status as { userInfo: { username: string; groups: string[] } }).userInfo;
    expect(userInfo.username).toBe(`system:serviceaccount:${teamA}:deployer`);
    expect([...userInfo.groups].sort()).toEqual([
      'system:authenticated',
      'system:serviceaccounts',
      `system:serviceaccounts:${teamA}`,
    ]);
  });

  describe('with spec.serviceAccountName', () => {
    it('creates a child the ServiceAccount may create: the operator could not have written it itself', async () => {
      await must(alice.create(application('settings', [configMap('settings')], 'deployer')));
      const app = await waitForCondition(
        admin,
        applicationRef(teamA, 'settings'),
        'Ready',
        { status: 'True' },
        CONVERGE_MS,
      );
      expectOwnedBy(
        await readExisting(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'settings' }),
        app,
      );
      expect(hasFinalizer(app)).toBe(true);
    });

    it('a child the ServiceAccount may not create is refused by the API server and reported, naming both; no retry loop', async () => {
      await must(alice.create(application('web', [configMap('web-config'), deployment('web')], 'deployer')));
      const app = await stalled('web', 'Forbidden');
      expect(conditionOf(app, 'Stalled')?.message).toBe(
        `Forbidden: ServiceAccount ${teamA}/deployer may not create apps/v1 Deployment ${teamA}/web (missing right: create deployments.apps in namespace ${teamA})`,
      );
      expect(
        await readObject(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: teamA, name: 'web' }),
      ).toBeUndefined();
      // What the account may do was done (install order: the ConfigMap before the Deployment).
      expectOwnedBy(
        await readExisting(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'web-config' }),
        app,
      );
      // Terminal: not requeued with backoff, and our own status write does not trigger another
      // reconcile (the finalizer write does, once: that second attempt is refused the same way).
      await eventually(() => expect(operator.controller.idle).toBe(true), CONVERGE_MS);
      const reconciles = log.resultsFor(`${teamA}/web`).length;
      await sleep(3_000);
      expect(log.resultsFor(`${teamA}/web`).length).toBe(reconciles);
      expect(reconciles).toBeLessThanOrEqual(3);
      expect(log.resultsFor(`${teamA}/web`).every((result) => result._tag === 'Failed' && result.terminal)).toBe(true);
    });

    it('a child in another namespace or of a cluster-scoped kind, though the admin policy allows it, is refused by the API server: nothing is written outside team-a', async () => {
      const escalation = {
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: `${teamA}-alice-admin` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: teamA }],
      } as unknown as Resource;
      await must(alice.create(application('escalate', [escalation], 'deployer')));
      await must(alice.create(application('cross', [configMap(`${teamA}-planted`, 'kube-system')], 'deployer')));
      for (const name of ['escalate', 'cross']) {
        const app = await stalled(name, 'Forbidden');
        expect(conditionOf(app, 'Stalled')?.message).toContain(`ServiceAccount ${teamA}/deployer may not`);
      }
      expect(
        await readObject(admin, { apiVersion: RBAC, kind: 'ClusterRoleBinding', name: `${teamA}-alice-admin` }),
      ).toBeUndefined();
      expect(
        await readObject(admin, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'kube-system',
          name: `${teamA}-planted`,
        }),
      ).toBeUndefined();
    });

    it('a header smuggled into spec.serviceAccountName is rejected by the CRD before the operator sees it', async () => {
      const created = await alice.create(
        application('smuggle', [configMap('smuggle')], 'x\r\nImpersonate-Group: system:masters'),
      )();
      expect(E.isLeft(created) && created.left._tag).toBe('Invalid');
    });

    it('a hook callback is checked against the hook Secret read as the ServiceAccount: the operator itself may not read Secrets', async () => {
      await must(
        alice.create(application('batch', [configMap('batch-input')], 'batch-runner', { hooks: ['complete'] })),
      );
      await waitForCondition(admin, applicationRef(teamA, 'batch'), 'Ready', { status: 'True' }, CONVERGE_MS);
      expect(await canI(operatorId, { verb: 'get', resource: 'secrets', namespace: teamA })).toBe(false);
      const secret = await readExisting(admin, {
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: teamA,
        name: `batch.${teamA}.kreconcile-hooks`,
      });
      const data = (secret as unknown as { data: Record<string, string> }).data;
      const token = Buffer.from(data['complete-token'] ?? '', 'base64').toString('utf8');
      const url = `http://127.0.0.1:${operator.callbackAddress?.port}/v1/namespaces/${teamA}/applications/batch/complete`;
      const post = async (bearer: string) =>
        (await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } })).status;
      expect(await post('not-the-token')).toBe(401);
      expect(await readObject(admin, applicationRef(teamA, 'batch'))).toBeDefined();
      expect(await post(token)).toBe(202);
      await eventually(async () => {
        expect(await readObject(admin, applicationRef(teamA, 'batch'))).toBeUndefined();
        expect(
          await readObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'batch-input' }),
        ).toBeUndefined();
      }, CONVERGE_MS);
    });

    it('deleting the Application deletes its children as the ServiceAccount, then releases the finalizer', async () => {
      const ref: ObjectRef = applicationRef(teamA, 'settings');
      await must(alice.delete(ref));
      await eventually(async () => {
        expect(await readObject(admin, ref)).toBeUndefined();
        expect(
          await readObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'settings' }),
        ).toBeUndefined();
      }, CONVERGE_MS);
    });
  });

  it('without a ServiceAccount (required by the operator) the Application is Stalled and nothing is written', async () => {
    await must(alice.create(application('anonymous', [configMap('anonymous')])));
    const app = await stalled('anonymous', 'ServiceAccountRequired');
    expect(conditionOf(app, 'Stalled')?.message).toContain('set spec.serviceAccountName');
    expect(hasFinalizer(app)).toBe(false);
    expect(
      await readObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name: 'anonymous' }),
    ).toBeUndefined();
  });
});
