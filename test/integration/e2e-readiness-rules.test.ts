/**
 * `spec.readiness` on a real API server (issue 23 item 1): the operator counts a Widget ready by
 * its CEL rule once its status says so; its `failed` rule, and its `timeout` passing, make the
 * Application `Stalled ReadinessFailed` naming the object, the expression and the values read. The
 * Application CRD keeps `spec.readiness` and `status.readinessWaits` (an unknown field would be
 * pruned), so the wait's start survives in the stored status.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type ObjectRef, type Resource } from '../../core/index.js';
import {
  WIDGET_API,
  applicationRef,
  readApplication,
  readObject,
  waitForCondition,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const READY = 'self.status.phase == "Ready"';
const FAILED = 'self.status.phase == "Failed"';

describeWithApiServer('readiness rules in CEL on a real API server', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-readiness'));
    operator = await startOperator({
      cluster: admin,
      clock: realClock,
      random: Math.random,
      namespace,
      planOptions: { readinessRequeueMs: 300, stalledRequeueMs: 300 },
    });
  });
  afterAll(async () => {
    await operator?.stop(5_000);
    await cleanup?.();
  });

  const widgetRef = (name: string): ObjectRef => ({ apiVersion: WIDGET_API, kind: 'Widget', namespace, name });

  const create = async (name: string, rule: Record<string, string>): Promise<ObjectRef> => {
    const widget = { apiVersion: WIDGET_API, kind: 'Widget', metadata: { name }, spec: { size: 1 } };
    const application = {
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name, namespace },
      spec: { manifest: [widget], readiness: [{ kind: 'Widget', ready: READY, ...rule }] },
    } as unknown as Resource;
    await must(admin.create(application));
    const ref = applicationRef(namespace, name);
    // The API server kept the rules (the CRD declares them): the stored spec has them as written.
    expect((await readApplication(admin, ref)).spec.readiness).toEqual([{ kind: 'Widget', ready: READY, ...rule }]);
    await eventually(async () => expect(await readObject(admin, widgetRef(name))).toBeDefined(), 30_000);
    return ref;
  };

  const setPhase = async (name: string, phase: string): Promise<void> => {
    await must(admin.patchStatus(widgetRef(name), { type: 'merge', body: { status: { phase } } }));
  };

  it('a Widget becomes Ready by its CEL rule once its status says so, not before', async () => {
    const ref = await create('ready', {});
    await waitForCondition(admin, ref, 'Reconciling', { status: 'True', reason: 'WaitingForReadiness' });
    await setPhase('ready', 'Provisioning');
    const waiting = await waitForCondition(admin, ref, 'Ready', {
      status: 'False',
      message: expect.stringContaining('status.phase="Provisioning"') as string,
    });
    expect(waiting.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(`ready rule \`${READY}\``);
    await setPhase('ready', 'Ready');
    await waitForCondition(admin, ref, 'Ready', { status: 'True', reason: 'Reconciled' });
  });

  it('its failed rule stalls the Application ReadinessFailed, naming the object, the expression and the values read', async () => {
    const ref = await create('failing', { failed: FAILED });
    await setPhase('failing', 'Failed');
    const stalled = await waitForCondition(admin, ref, 'Stalled', { status: 'True', reason: 'ReadinessFailed' });
    expect(stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.message).toBe(
      `Widget ${namespace}/failing: failed rule \`${FAILED}\` (status.phase="Failed") is true`,
    );
  });

  it('its timeout passing stalls the Application ReadinessFailed; the wait is kept in the stored status', async () => {
    const ref = await create('slow', { timeout: '3s' });
    const waiting = await eventually(async () => {
      const application = await readApplication(admin, ref);
      expect(application.status?.readinessWaits).toHaveLength(1);
      return application;
    }, 30_000);
    expect(waiting.status?.readinessWaits?.[0]).toMatchObject({
      apiVersion: WIDGET_API,
      kind: 'Widget',
      name: 'slow',
      namespace,
    });
    const stalled = await waitForCondition(
      admin,
      ref,
      'Stalled',
      { status: 'True', reason: 'ReadinessFailed' },
      30_000,
    );
    expect(stalled.status?.conditions?.find((c) => c.type === 'Stalled')?.message).toContain(
      "after 3s, the rule's timeout",
    );
    expect(stalled.status?.readinessWaits?.[0]?.since).toBe(waiting.status?.readinessWaits?.[0]?.since);
  });
});
