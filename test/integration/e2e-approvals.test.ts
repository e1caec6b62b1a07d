/**
 * Approvals from outside the change, on a real API server (issue 36, docs/decisions/0026): with
 * the ValidatingAdmissionPolicy `kreconcile rbac` prints, the Application's author (who may
 * create, update and patch it) cannot set `kreconcile.io/approve`, by patch or by creating the
 * Application with it; a platform approver bound to ClusterRole kreconcile-approver can, and the
 * operator then carries the denied plan out. The policy is bound to this test's namespace only.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { APPROVER_ROLE, approvalsPolicy, approvalsPolicyBinding, approverRole } from '../../app/manifests/approvals.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { showClusterError, type GuardPolicy, type ObjectRef, type Resource } from '../../core/internal.js';
import { applicationRef, conditionOf, readApplication, readObject } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 30_000;

const GUARD: GuardPolicy = {
  rules: [{ name: 'keep-volumes', deny: { actions: ['delete'], kinds: ['PersistentVolumeClaim'] } }],
};

const VOLUME = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
} as unknown as Resource; // a literal manifest: spec is not in Resource's type

const SETTINGS: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };

const application = (namespace: string, name: string, manifest: ReadonlyArray<Resource>, approval?: string) =>
  ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name,
      namespace,
      ...(approval === undefined ? {} : { annotations: { 'kreconcile.io/approve': approval } }),
    },
    spec: { manifest },
  }) as unknown as Resource; // an Application literal: spec is not in Resource's type

/** JSON Pointer of the approval annotation (`/` escaped as `~1`). */
const APPROVE_PATH = '/metadata/annotations/kreconcile.io~1approve';

const approvePatch = (digest: string) => ({
  type: 'merge' as const,
  body: { metadata: { annotations: { 'kreconcile.io/approve': digest } } },
});

describeWithApiServer('end to end: approving takes a permission editing does not give (issue 36)', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;
  const policyName = `kreconcile-approvals-${process.pid}-${Date.now()}`;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-approve'));
    const roles: ReadonlyArray<Resource> = [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'application-author', namespace },
        rules: [
          {
            apiGroups: ['kreconcile.io'],
            resources: ['applications'],
            verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
          },
        ],
      }, // RBAC literal: rules are not in Resource's type
      ...['application-author', APPROVER_ROLE].map(
        (role) => ({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: role, namespace },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: role === APPROVER_ROLE ? 'ClusterRole' : 'Role',
            name: role,
          },
          subjects: [{ kind: 'ServiceAccount', name: role === APPROVER_ROLE ? 'platform' : 'alice', namespace }],
        }), // RBAC literal: roleRef and subjects are not in Resource's type
      ),
    ];
    // The approver ClusterRole is shared and idempotent (the same rules every run): created once, never deleted.
    await admin.create(approverRole())();
    for (const role of roles) await must(admin.create(role));
    await must(admin.create(approvalsPolicy(policyName)));
    cleanups.push(() =>
      admin.delete({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        name: policyName,
      })(),
    );
    await must(
      admin.create(approvalsPolicyBinding(policyName, policyName, { 'kubernetes.io/metadata.name': namespace })),
    );
    cleanups.push(() =>
      admin.delete({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        name: policyName,
      })(),
    );
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      readiness: 'existence',
      guard: GUARD,
      admissionPolicies: { approvals: policyName },
    });
    // The operator found the policy installed as printed and bound: it accepts approvals.
    expect(operator.admission.approvals).toBeUndefined();
  });

  afterAll(async () => {
    await operator?.stop(10_000);
    for (const undo of cleanups) await undo();
    await cleanup();
  });

  it("the author's own approval is refused by the API server; a platform approver's goes through and the plan is carried out", async () => {
    const alice = admin.impersonate({ namespace, name: 'alice' });
    const platform = admin.impersonate({ namespace, name: 'platform' });
    const ref = applicationRef(namespace, 'db');
    const pvc: ObjectRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name: 'data' };
    await must(alice.create(application(namespace, 'db', [SETTINGS, VOLUME])));
    await eventually(async () => expect(await readObject(admin, pvc)).toBeDefined(), CONVERGE_MS);
    await must(alice.patch(ref, { type: 'merge', body: { spec: { manifest: [SETTINGS] } } }));
    const denied = await eventually(async () => {
      const stalled = conditionOf(await readApplication(admin, ref), 'Stalled');
      expect(stalled).toMatchObject({ status: 'True', reason: 'GuardDenied' });
      return stalled!;
    }, CONVERGE_MS);
    const digest = /approve=(sha256:[0-9a-f]{64})/.exec(denied.message)?.[1];
    expect(digest).toBeDefined();
    expect(denied.message).toContain('an approver (RBAC verb approve on applications.kreconcile.io');

    // The author may edit the Application, but not approve its plan: the admission policy refuses
    // (the policy takes a moment to load: until the first refusal, retry on a fresh value).
    let attempt = 0;
    await eventually(async () => {
      attempt += 1;
      const fresh = `sha256:${String(attempt).padStart(64, '0')}`;
      const refused = await alice.patch(ref, approvePatch(fresh))();
      // Accepted before the policy was loaded: take it back (as an admin may), so nothing the author set stays.
      if (E.isRight(refused))
        await must(admin.patch(ref, { type: 'json', operations: [{ op: 'remove', path: APPROVE_PATH }] }));
      expect(E.isLeft(refused) ? showClusterError(refused.left) : 'accepted').toContain(
        'setting kreconcile.io/approve takes the RBAC verb approve on applications.kreconcile.io',
      );
    }, CONVERGE_MS);
    const selfApproved = await alice.patch(ref, approvePatch(digest!))();
    expect(E.isLeft(selfApproved)).toBe(true);
    expect(E.isLeft(selfApproved) && showClusterError(selfApproved.left)).toContain(
      `system:serviceaccount:${namespace}:alice lacks`,
    );
    // Nor by creating an Application that carries an approval.
    const created = await alice.create(application(namespace, 'other', [SETTINGS], digest))();
    expect(E.isLeft(created)).toBe(true);
    expect((await readApplication(admin, ref)).metadata.annotations?.['kreconcile.io/approve']).toBeUndefined();
    expect((await readObject(admin, pvc))?.metadata.deletionTimestamp).toBeUndefined();
    // Editing anything else still works for the author.
    await must(alice.patch(ref, { type: 'merge', body: { metadata: { labels: { team: 'a' } } } }));

    // The platform approver's approval goes through, and the operator carries the plan out.
    await must(platform.patch(ref, approvePatch(digest!)));
    await eventually(async () => {
      const gone = await readObject(admin, pvc);
      expect(gone === undefined || gone.metadata.deletionTimestamp !== undefined).toBe(true);
    }, CONVERGE_MS);
    // Re-applying the Application with the approval as the approver left it is no new approval: allowed.
    await must(alice.patch(ref, { type: 'merge', body: { metadata: { labels: { team: 'b' } } } }));
  });
});
