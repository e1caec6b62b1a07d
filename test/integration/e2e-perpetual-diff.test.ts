/**
 * Issue 34 item 2 on a real API server: a MutatingAdmissionPolicy (admissionregistration.k8s.io/v1,
 * GA and on by default in 1.36) overrides a label the Application's ConfigMap sets, so every patch
 * that puts it back is answered unchanged (the resourceVersion does not move). The operator ends in
 * `Stalled PerpetualDiff` within the bound (three writes: the one `Patched` Event counts them), with
 * one `PerpetualDiff` Event, and writes nothing more.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, type Resource } from '../../core/internal.js';
import { applicationRef, conditionOf, readApplication, readObject } from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const CONVERGE_MS = 60_000;

/** Sets `metadata.labels.tier` of every ConfigMap in `namespace` to `silver`, whatever was sent. */
const policyOf = (name: string): Resource => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] },
      ],
    },
    failurePolicy: 'Fail',
    reinvocationPolicy: 'Never',
    mutations: [
      {
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"tier": "silver"}}}' },
      },
    ],
  },
});

const bindingOf = (name: string, namespace: string): Resource => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name },
  spec: {
    policyName: name,
    matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
  },
});

describeWithApiServer('end to end: a value the API server does not keep (issue 34, perpetual diff)', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;
  const policy = `kr-perpetual-${randomBytes(4).toString('hex')}`;
  const policyRef = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', name: policy };
  const bindingRef = { ...policyRef, kind: 'MutatingAdmissionPolicyBinding' };

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-perpetual'));
    await must(cluster.create(policyOf(policy)));
    await must(cluster.create(bindingOf(policy, namespace)));
    // The policy takes effect once the server's admission informers have it: probe until it does.
    await eventually(async () => {
      const probe = `probe-${randomBytes(3).toString('hex')}`;
      const created = await must(
        cluster.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: probe, namespace, labels: { tier: 'gold' } },
        }),
      );
      await must(cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: probe }));
      expect(created.metadata.labels?.['tier']).toBe('silver');
    }, 30_000);
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      readiness: 'existence',
    });
  });

  afterAll(async () => {
    await operator?.stop(10_000);
    await cluster.delete(bindingRef)();
    await cluster.delete(policyRef)();
    await cleanup();
  });

  it('ends in Stalled PerpetualDiff after three no-op writes, with one Patched Event counted three times and one PerpetualDiff Event', async () => {
    const app: Resource = {
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'tiered', namespace },
      spec: {
        manifest: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'settings', labels: { tier: 'gold' } },
            data: { mode: 'fast' },
          },
        ],
      },
    };
    await must(cluster.create(app));
    const stalled = await eventually(async () => {
      const condition = conditionOf(await readApplication(cluster, applicationRef(namespace, 'tiered')), 'Stalled');
      expect(condition).toMatchObject({ status: 'True', reason: 'PerpetualDiff' });
      return condition!;
    }, CONVERGE_MS);
    expect(stalled.message).toContain(`v1 ConfigMap ${namespace}/settings: metadata.labels.tier`);
    expect(stalled.message).toContain('a zero value of an omitempty field, a default, or a mutating admission');
    const settings = await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' });
    expect(settings?.metadata.labels?.['tier']).toBe('silver');

    const events = async () =>
      (await must(cluster.list({ apiVersion: 'v1', kind: 'Event', namespace }))).items
        .filter((event) => getIn(event, ['involvedObject', 'name']) === 'tiered')
        .map((event) => ({ reason: getIn(event, ['reason']), count: getIn(event, ['count']) }));
    // Events are sent after the reconcile, best-effort: wait for the stall's own.
    await eventually(
      async () => expect((await events()).some((event) => event.reason === 'PerpetualDiff')).toBe(true),
      15_000,
    );
    const afterStall = await events();
    expect(afterStall.filter((event) => event.reason === 'PerpetualDiff')).toEqual([
      { reason: 'PerpetualDiff', count: 1 },
    ]);
    expect(afterStall.filter((event) => event.reason === 'Patched')).toEqual([{ reason: 'Patched', count: 3 }]);

    // Stopped: ten seconds later, no write more (no Event more, none counted again).
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    expect(await events()).toEqual(afterStall);
  }, 120_000);
});
