/**
 * Tenancy and Secrets end to end on a real API server, driven by the operator with its default
 * settings (issue 10): a tenant's Application in team-a cannot make the operator write to
 * kube-system, create a ClusterRoleBinding, adopt a kube-system object or read a kube-system
 * Secret through status; each ends Stalled Forbidden and nothing outside team-a is written. An
 * admin policy team-a → team-a-db lets that one child be created. A Secret written with
 * `stringData` converges (the real server folds it into `data`). The tenant-RBAC (as `alice`),
 * impersonation and the operator's own RBAC are tested in the sec-impersonation suites.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { base64Of, type ObjectRef, type Resource, type TenancyPolicy } from '../../core/internal.js';
import {
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readObject,
  reconcileLog,
  type ReconcileLog,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;
const CANARY = `kube-system-canary-${Math.random().toString(16).slice(2, 10)}`;
const STRING_CANARY = `string-canary-${Math.random().toString(16).slice(2, 10)}`;

const configMap = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  data: { a: '1' },
});

const applicationOf = (namespace: string, name: string, spec: Record<string, unknown>): Resource =>
  ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec,
  }) as unknown as Resource;

describeWithApiServer("end to end: tenancy and Secrets under the operator's default settings", (env) => {
  let cluster: KubernetesCluster;
  let teamA: string;
  let teamADb: string;
  const cleanups: Array<() => Promise<void>> = [];
  let operator: Operator | undefined;
  let log: ReconcileLog;
  // Objects of kube-system this suite plants (unique names: the server is shared with other suites).
  const coredns = uniqueName('coredns');
  const bootstrap = uniqueName('bootstrap');
  const planted = uniqueName('planted');
  const evil = uniqueName('evil');
  const binding = uniqueName('tenant-is-admin');

  const start = async (tenancy?: TenancyPolicy): Promise<void> => {
    await operator?.stop(10_000);
    log = reconcileLog();
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace: teamA,
      readiness: 'existence',
      onReconciled: log.onReconciled,
      ...(tenancy === undefined ? {} : { tenancy }),
    });
  };

  const stalledOf = async (name: string) =>
    conditionOf(await readApplication(cluster, applicationRef(teamA, name)), 'Stalled');

  const kubeSystemVersions = async (): Promise<string> =>
    JSON.stringify(
      await Promise.all(
        [
          readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: coredns }),
          readObject(cluster, { apiVersion: 'v1', kind: 'Secret', namespace: 'kube-system', name: bootstrap }),
          readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: planted }),
        ].map(async (read) => (await read)?.metadata.resourceVersion),
      ),
    );

  beforeAll(async () => {
    cluster = connect(env);
    const a = await freshNamespace(cluster, 'team-a');
    const db = await freshNamespace(cluster, 'team-a-db');
    teamA = a.namespace;
    teamADb = db.namespace;
    cleanups.push(a.cleanup, db.cleanup);
    await must(cluster.create(configMap(coredns, 'kube-system')));
    await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: bootstrap, namespace: 'kube-system' },
        data: { token: base64Of(CANARY) },
      }),
    );
    await must(
      cluster.create({
        ...configMap(planted, 'kube-system'),
        metadata: {
          name: planted,
          namespace: 'kube-system',
          annotations: { 'kreconcile.io/owner': `${teamA}/cross-namespace` },
        },
      }),
    );
    for (const name of [coredns, planted])
      cleanups.push(async () => {
        await cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name })();
      });
    cleanups.push(async () => {
      await cluster.delete({ apiVersion: 'v1', kind: 'Secret', namespace: 'kube-system', name: bootstrap })();
    });
    await start();
  });

  afterAll(async () => {
    await operator?.stop(10_000);
    for (const cleanup of cleanups) await cleanup();
  });

  it('each attack ends Stalled Forbidden naming the child and the rule; nothing outside team-a is written or read into status', async () => {
    const before = await kubeSystemVersions();
    const attacks: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
      [
        'cross-namespace',
        { manifest: [configMap('ok-1'), configMap(evil, 'kube-system')] },
        `v1 ConfigMap kube-system/${evil} (Destination:`,
      ],
      [
        'cluster-binding',
        {
          manifest: [
            configMap('ok-2'),
            {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'ClusterRoleBinding',
              metadata: { name: binding },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
              subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: teamA }],
            },
          ],
        },
        `rbac.authorization.k8s.io/v1 ClusterRoleBinding ${binding} (ClusterScoped:`,
      ],
      [
        'adopt-system',
        { adopt: true, manifest: [configMap('ok-3'), configMap(coredns, 'kube-system')] },
        `v1 ConfigMap kube-system/${coredns} (Destination:`,
      ],
      [
        'read-secret',
        {
          adopt: true,
          manifest: [
            configMap('ok-4'),
            { apiVersion: 'v1', kind: 'Secret', metadata: { name: bootstrap, namespace: 'kube-system' } },
          ],
          observerSchema: [
            { apiVersion: 'v1', kind: 'Secret', metadata: { name: bootstrap, namespace: null }, data: null },
          ],
        },
        `v1 Secret kube-system/${bootstrap} (Destination:`,
      ],
      [
        'database',
        { manifest: [configMap('ok-5'), configMap('db-settings', teamADb)] },
        `v1 ConfigMap ${teamADb}/db-settings (Destination:`,
      ],
    ];
    for (const [name, spec] of attacks) await must(cluster.create(applicationOf(teamA, name, spec)));
    for (const [name, , named] of attacks) {
      const stalled = await eventually(async () => {
        const condition = await stalledOf(name);
        expect(condition).toMatchObject({ status: 'True', reason: 'Forbidden' });
        return condition;
      }, CONVERGE_MS);
      expect(stalled?.message).toContain(named);
    }
    expect(await kubeSystemVersions()).toBe(before);
    expect(
      await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: evil }),
    ).toBeUndefined();
    expect(
      await readObject(cluster, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        name: binding,
      }),
    ).toBeUndefined();
    expect(
      await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamADb, name: 'db-settings' }),
    ).toBeUndefined();
    // Nothing else of a forbidden Application is written either.
    for (const name of ['ok-1', 'ok-2', 'ok-3', 'ok-4', 'ok-5'])
      expect(
        await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamA, name }),
      ).toBeUndefined();
    const statuses = JSON.stringify(
      await Promise.all(
        attacks.map(async ([name]) => (await readApplication(cluster, applicationRef(teamA, name))).status),
      ),
    );
    expect(statuses).not.toContain(CANARY);
    expect(statuses).not.toContain(base64Of(CANARY));
  });

  it('deleting the Application never deletes the kube-system object that claims to be its child', async () => {
    await must(cluster.delete(applicationRef(teamA, 'cross-namespace')));
    await eventually(
      async () => expect(await readObject(cluster, applicationRef(teamA, 'cross-namespace'))).toBeUndefined(),
      CONVERGE_MS,
    );
    expect(
      await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: planted }),
    ).toBeDefined();
  });

  it('with the admin policy team-a → team-a-db the same child is created; the other attacks stay forbidden', async () => {
    await start({ destinations: [{ from: teamA, to: [teamADb] }] });
    await eventually(
      async () => expectReady(await readApplication(cluster, applicationRef(teamA, 'database'))),
      CONVERGE_MS,
    );
    const child = await readObject(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: teamADb,
      name: 'db-settings',
    });
    expect(child?.metadata.annotations?.['kreconcile.io/owner']).toBe(`${teamA}/database`);
    for (const name of ['cluster-binding', 'adopt-system', 'read-secret']) {
      await eventually(async () => expect((await stalledOf(name))?.reason).toBe('Forbidden'), CONVERGE_MS);
    }
  });

  it('a Secret written with stringData converges (Ready, no further writes) and its values stay out of the status', async () => {
    const ref: ObjectRef = applicationRef(teamA, 'secret');
    const secretRef: ObjectRef = { apiVersion: 'v1', kind: 'Secret', namespace: teamA, name: 'db' };
    await must(
      cluster.create(
        applicationOf(teamA, 'secret', {
          manifest: [
            { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { token: STRING_CANARY } },
          ],
        }),
      ),
    );
    await eventually(async () => expectReady(await readApplication(cluster, ref)), CONVERGE_MS);
    const written = await readObject(cluster, secretRef);
    expect(written?.data).toEqual({ token: base64Of(STRING_CANARY) });
    // Reconcile it again a few times: a stringData Secret used to be patched forever (Stalled HotLoop).
    const key = `${teamA}/secret`;
    const seen = log.resultsFor(key).length;
    for (let i = 0; i < 3; i++) operator?.controller.enqueue(key);
    await eventually(() => expect(log.resultsFor(key).length).toBeGreaterThan(seen), CONVERGE_MS);
    const later = log.resultsFor(key).slice(seen);
    expect(
      later.flatMap((result) =>
        result._tag === 'Done' ? result.execution.done.map((d) => d.action.type) : ['failed'],
      ),
    ).toEqual([]);
    expect((await readObject(cluster, secretRef))?.metadata.resourceVersion).toBe(written?.metadata.resourceVersion);
    const application = await readApplication(cluster, ref);
    expectReady(application);
    expect(JSON.stringify(application.status)).not.toContain(STRING_CANARY);
    expect(JSON.stringify(application.status)).not.toContain(base64Of(STRING_CANARY));
  });
});
