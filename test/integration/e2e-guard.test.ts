/**
 * Issue 22 on a real API server, driven by the operator: a PVC that leaves the manifest under a
 * guard rule is not deleted and its Application is `Stalled GuardDenied` until approved by the
 * plan digest, then deleted and released by the PVC protection controller, the Application Ready;
 * a child under `kreconcile.io/prune: disabled` survives its Application's deletion
 * without its owner marks; `driftPolicy: Report` leaves another actor's change and reports it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { approvalsPolicy } from '../../app/manifests/approvals.js';
import { installScopedPolicy } from '../support/admission-policies.js';
import type { GuardPolicy, ObjectRef, Resource } from '../../core/internal.js';
import { applicationRef, conditionOf, readApplication, readObject } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;

const GUARD: GuardPolicy = {
  rules: [{ name: 'keep-volumes', deny: { actions: ['delete', 'recreate'], kinds: ['PersistentVolumeClaim'] } }],
};

const configMap = (name: string, annotations: Record<string, string> = {}, mode = 'a'): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, annotations },
  data: { mode },
});

const VOLUME = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
} as unknown as Resource;

const applicationOf = (namespace: string, name: string, spec: Record<string, unknown>): Resource =>
  ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec,
  }) as unknown as Resource;

describeWithApiServer('end to end: guard policy, protection and drift reports (issue 22)', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;
  let uninstall: (() => Promise<void>) | undefined;
  const approvals = `kreconcile-approvals-${process.pid}-${Date.now()}`;
  const ref = (kind: string, name: string, apiVersion = 'v1'): ObjectRef => ({ apiVersion, kind, namespace, name });

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-guard'));
    // Approvals are accepted only where their admission policy is installed and bound (docs/decisions/0026).
    uninstall = await installScopedPolicy(cluster, approvalsPolicy(approvals), namespace);
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      readiness: 'existence',
      guard: GUARD,
      admissionPolicies: { approvals },
    });
  });

  afterAll(async () => {
    await operator?.stop(10_000);
    await uninstall?.();
    await cleanup();
  });

  const stalled = async (name: string) =>
    conditionOf(await readApplication(cluster, applicationRef(namespace, name)), 'Stalled');

  it('a PVC leaving the manifest is not deleted, the Application is GuardDenied; approving the digest lets it through', async () => {
    await must(cluster.create(applicationOf(namespace, 'db', { manifest: [configMap('settings'), VOLUME] })));
    await eventually(
      async () => expect(await readObject(cluster, ref('PersistentVolumeClaim', 'data'))).toBeDefined(),
      CONVERGE_MS,
    );
    await must(
      cluster.patch(applicationRef(namespace, 'db'), {
        type: 'merge',
        body: { spec: { manifest: [configMap('settings', {}, 'b')] } },
      }),
    );
    const denied = await eventually(async () => {
      const condition = await stalled('db');
      expect(condition).toMatchObject({ status: 'True', reason: 'GuardDenied' });
      return condition!;
    }, CONVERGE_MS);
    expect(denied.message).toContain(`rule "keep-volumes" denies delete of v1 PersistentVolumeClaim ${namespace}/data`);
    expect(
      (await readObject(cluster, ref('PersistentVolumeClaim', 'data')))?.metadata.deletionTimestamp,
    ).toBeUndefined();
    expect((await readObject(cluster, ref('ConfigMap', 'settings')))?.data).toEqual({ mode: 'a' });
    const digest = /approve=(sha256:[0-9a-f]{64})/.exec(denied.message)?.[1];
    await must(
      cluster.patch(applicationRef(namespace, 'db'), {
        type: 'merge',
        body: { metadata: { annotations: { 'kreconcile.io/approve': digest! } } },
      }),
    );
    await eventually(async () => {
      const pvc = await readObject(cluster, ref('PersistentVolumeClaim', 'data'));
      expect(pvc === undefined || pvc.metadata.deletionTimestamp !== undefined).toBe(true);
      expect((await readObject(cluster, ref('ConfigMap', 'settings')))?.data).toEqual({ mode: 'b' });
    }, CONVERGE_MS);
    // The protection controller releases the claim no pod uses: it is gone, and the Application Ready
    // (not WaitingForDeletion for a claim the operator's cache still held).
    await eventually(async () => {
      expect(await readObject(cluster, ref('PersistentVolumeClaim', 'data'))).toBeUndefined();
      const application = await readApplication(cluster, applicationRef(namespace, 'db'));
      expect(conditionOf(application, 'Ready')).toMatchObject({ status: 'True' });
    }, CONVERGE_MS);
  });

  it('a child under prune: disabled survives its Application deletion without its owner marks', async () => {
    await must(
      cluster.create(
        applicationOf(namespace, 'kept', {
          manifest: [configMap('keeper', { 'kreconcile.io/prune': 'disabled' }), configMap('goner')],
        }),
      ),
    );
    await eventually(
      async () =>
        expect((await readObject(cluster, ref('ConfigMap', 'keeper')))?.metadata.ownerReferences).toHaveLength(1),
      CONVERGE_MS,
    );
    await must(cluster.delete(applicationRef(namespace, 'kept')));
    await eventually(async () => {
      expect(await readObject(cluster, applicationRef(namespace, 'kept'))).toBeUndefined();
      expect(await readObject(cluster, ref('ConfigMap', 'goner'))).toBeUndefined();
    }, CONVERGE_MS);
    const keeper = await readObject(cluster, ref('ConfigMap', 'keeper'));
    expect(keeper?.metadata.annotations).toEqual({ 'kreconcile.io/prune': 'disabled' });
    expect(keeper?.metadata.labels?.['app.kubernetes.io/managed-by']).toBeUndefined();
    expect(keeper?.metadata.ownerReferences ?? []).toEqual([]);
  });

  it("driftPolicy Report leaves another actor's change in place and reports it", async () => {
    await must(
      cluster.create(applicationOf(namespace, 'watched', { driftPolicy: 'Report', manifest: [configMap('watched')] })),
    );
    await eventually(
      async () => expect(await readObject(cluster, ref('ConfigMap', 'watched'))).toBeDefined(),
      CONVERGE_MS,
    );
    await eventually(
      async () =>
        expect(conditionOf(await readApplication(cluster, applicationRef(namespace, 'watched')), 'Ready')?.status).toBe(
          'True',
        ),
      CONVERGE_MS,
    );
    await must(cluster.patch(ref('ConfigMap', 'watched'), { type: 'merge', body: { data: { mode: 'theirs' } } }));
    await eventually(async () => {
      const application = await readApplication(cluster, applicationRef(namespace, 'watched'));
      expect(application.status?.drift).toEqual([
        {
          resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'watched', namespace },
          path: 'data.mode',
          live: 'theirs',
          desired: 'a',
        },
      ]);
    }, CONVERGE_MS);
    expect((await readObject(cluster, ref('ConfigMap', 'watched')))?.data).toEqual({ mode: 'theirs' });
  });
});
