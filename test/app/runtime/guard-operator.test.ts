/**
 * The guard policy through the operator on the memory cluster (issue 22): a PersistentVolumeClaim
 * that leaves the manifest under a rule denying its deletion is not deleted, and nothing else of
 * that plan is written; the Application is `Stalled GuardDenied` naming the rule and the digest;
 * a wrong approval changes nothing, the approval naming the plan's digest lets exactly it through.
 * Approvals are accepted only where the approvals admission policy is installed and bound
 * (docs/decisions/0026): without it, the operator accepts none and the condition says why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import { approvalsPolicy, approvalsPolicyBinding } from '../../../app/manifests/approvals.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  type Application,
  type GuardPolicy,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf } from '../hooks/support.js';
import { distinct, runUntil } from '../../support/operator-clock.js';

let operator: Operator | undefined;

afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const GUARD: GuardPolicy = {
  rules: [
    { name: 'keep-volumes', deny: { actions: ['delete', 'recreate'], kinds: ['PersistentVolumeClaim'] } },
    { name: 'few-deletes', maxDeletes: 3 },
  ],
};

const settings = (value: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings' },
  data: { mode: value },
});

const VOLUME = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
} as unknown as Resource;

const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'db',
};
const pvcRef: ObjectRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data' };

const find = (cluster: MemoryCluster, ref: ObjectRef): Resource | undefined =>
  cluster
    .objects()
    .find((o) => o.kind === ref.kind && o.metadata.namespace === ref.namespace && o.metadata.name === ref.name);

const application = (cluster: MemoryCluster): Application | undefined =>
  find(cluster, appRef) as unknown as Application | undefined;

const condition = (cluster: MemoryCluster, type: 'Ready' | 'Stalled') =>
  conditionOf(application(cluster)?.status?.conditions, type);

/**
 * The operator over the memory cluster, with the approvals admission policy as `kreconcile rbac` prints it (unless
 * `approvalsPolicyInstalled` is false).
 */
const setUp = async (approvalsPolicyInstalled = true) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock });
  await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
  if (approvalsPolicyInstalled)
    for (const object of [approvalsPolicy(), approvalsPolicyBinding()])
      expect((await cluster.create(object)())._tag).toBe('Right');
  await cluster.create(applicationOf('shop', 'db', { manifest: [settings('a'), VOLUME] }))();
  operator = await startOperator({
    cluster,
    clock,
    random: distinct(),
    workers: 1,
    readiness: 'existence',
    guard: GUARD,
  });
  await runUntil(clock, () => condition(cluster, 'Ready')?.status === 'True');
  return { clock, cluster };
};

const annotate = async (cluster: MemoryCluster, value: string) => {
  const patched = await cluster.patch(appRef, {
    type: 'merge',
    body: { metadata: { annotations: { 'kreconcile.io/approve': value } } },
  })();
  expect(patched._tag).toBe('Right');
};

describe('the operator under a guard policy', () => {
  it('creations pass; a PVC leaving the manifest is not deleted, nothing of that plan is written, GuardDenied until approved by digest', async () => {
    const { clock, cluster } = await setUp();
    expect(find(cluster, pvcRef)).toBeDefined();
    expect(find(cluster, { ...pvcRef, kind: 'ConfigMap', name: 'settings' })?.data).toEqual({ mode: 'a' });

    // The PVC leaves the manifest, and the ConfigMap changes in the same edit.
    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: [settings('b')] } } })();
    await runUntil(clock, () => condition(cluster, 'Stalled')?.reason === 'GuardDenied');
    const stalled = condition(cluster, 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'GuardDenied' });
    expect(stalled?.message).toContain(
      'rule "keep-volumes" denies delete of v1 PersistentVolumeClaim shop/data; to let this plan through, an approver (RBAC verb approve on applications.kreconcile.io, docs/decisions/0026) runs: kubectl annotate applications.kreconcile.io -n shop db --overwrite kreconcile.io/approve=sha256:',
    );
    const digest = /kreconcile\.io\/approve=(sha256:[0-9a-f]{64})/.exec(stalled?.message ?? '')?.[1];
    // Announced once, by an Event on the Application.
    const events = cluster
      .objects()
      .filter((o) => o.kind === 'Event' && (o as { reason?: string }).reason === 'GuardDenied');
    expect(events.map((o) => (o as { message?: string }).message)).toEqual([stalled?.message]);
    expect(digest).toBeDefined();
    // Keep running: the denial holds, the PVC keeps its owner mark, the ConfigMap is not patched.
    await runUntil(clock, () => false, 5_000);
    expect(find(cluster, pvcRef)?.metadata.annotations?.['kreconcile.io/owner']).toBe('shop/db');
    expect(find(cluster, { ...pvcRef, kind: 'ConfigMap', name: 'settings' })?.data).toEqual({ mode: 'a' });

    // An approval naming another digest approves nothing.
    await annotate(cluster, `sha256:${'0'.repeat(64)}`);
    await runUntil(clock, () => false, 5_000);
    expect(find(cluster, pvcRef)).toBeDefined();
    expect(condition(cluster, 'Stalled')?.reason).toBe('GuardDenied');

    // The admin approves the plan the condition names: exactly it goes through.
    await annotate(cluster, digest!);
    await runUntil(clock, () => find(cluster, pvcRef) === undefined);
    expect(find(cluster, pvcRef)).toBeUndefined();
    expect(find(cluster, { ...pvcRef, kind: 'ConfigMap', name: 'settings' })?.data).toEqual({ mode: 'b' });
    // The claim's deletion is seen through: the Application ends Ready, not WaitingForDeletion.
    await runUntil(clock, () => condition(cluster, 'Ready')?.status === 'True');
    expect(condition(cluster, 'Ready')).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(condition(cluster, 'Stalled')).toMatchObject({ status: 'False' });
  });

  it('an approved digest does not carry over to another plan: a new spec is judged again', async () => {
    const { clock, cluster } = await setUp();
    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: [settings('a')] } } })();
    await runUntil(clock, () => condition(cluster, 'Stalled')?.reason === 'GuardDenied');
    const first = /approve=(sha256:[0-9a-f]{64})/.exec(condition(cluster, 'Stalled')?.message ?? '')?.[1];
    // The approval comes with another spec change in the same write: the plan (and its digest) differ.
    await cluster.patch(appRef, {
      type: 'merge',
      body: {
        metadata: { annotations: { 'kreconcile.io/approve': first! } },
        spec: { manifest: [settings('c')] },
      },
    })();
    await runUntil(clock, () => false, 5_000);
    expect(find(cluster, pvcRef)).toBeDefined();
    const second = /approve=(sha256:[0-9a-f]{64})/.exec(condition(cluster, 'Stalled')?.message ?? '')?.[1];
    expect(condition(cluster, 'Stalled')?.reason).toBe('GuardDenied');
    expect(second).not.toBe(first);
  });

  it('without the approvals admission policy, no approval is accepted, and the condition says why (fail closed)', async () => {
    const { clock, cluster } = await setUp(false);
    expect(operator?.admission.approvals).toBe('ValidatingAdmissionPolicy kreconcile-approvals is not installed');
    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: [settings('b')] } } })();
    await runUntil(clock, () => condition(cluster, 'Stalled')?.reason === 'GuardDenied');
    const message = condition(cluster, 'Stalled')?.message ?? '';
    expect(message).toContain(
      'but no approval is accepted now: ValidatingAdmissionPolicy kreconcile-approvals is not installed: without it anyone who may edit the Application could approve, so this operator accepts no approval',
    );
    // The very digest the condition names approves nothing here.
    const digest = /kreconcile\.io\/approve=(sha256:[0-9a-f]{64})/.exec(message)?.[1];
    expect(digest).toBeDefined();
    await annotate(cluster, digest!);
    await runUntil(clock, () => false, 5_000);
    expect(find(cluster, pvcRef)).toBeDefined();
    expect(condition(cluster, 'Stalled')?.reason).toBe('GuardDenied');
  });

  it('a policy that decides otherwise than this version prints, or one no binding enforces, counts as missing', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock });
    // An edited copy: it no longer asks the authorizer (a policy that allows every approval).
    const edited: Resource = { ...approvalsPolicy(), spec: { validations: [{ expression: 'true' }] } };
    await cluster.create(edited)();
    operator = await startOperator({ cluster, clock, random: distinct(), workers: 1, guard: GUARD });
    expect(operator.admission.approvals).toBe(
      'ValidatingAdmissionPolicy kreconcile-approvals differs from the one this version prints (an older or edited copy)',
    );
    await operator.stop(1_000);
    await cluster.delete({ apiVersion: edited.apiVersion, kind: edited.kind, name: 'kreconcile-approvals' })();
    await cluster.create(approvalsPolicy())();
    await cluster.create({
      ...approvalsPolicyBinding(),
      spec: { policyName: 'kreconcile-approvals', validationActions: ['Audit'] },
    })();
    operator = await startOperator({ cluster, clock, random: distinct(), workers: 1, guard: GUARD });
    expect(operator.admission.approvals).toBe(
      'no ValidatingAdmissionPolicyBinding binds ValidatingAdmissionPolicy kreconcile-approvals with validationActions [Deny]',
    );
  });
});
