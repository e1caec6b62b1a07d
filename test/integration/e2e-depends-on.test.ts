/**
 * `spec.dependsOn` on a real API server (issue 23 item 2), the operator's resync off (10 h): the
 * CRD keeps the field as written; A→B→C converges in order (nothing of B or C is written while A's
 * Widget is not ready; the children's resourceVersions give the order); a cycle stalls every member
 * naming it; deleting A waits while B depends on it, and proceeds once B is gone.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type ObjectRef, type Resource } from '../../core/internal.js';
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

const READY = 'has(self.status) && self.status.phase == "Ready"';

describeWithApiServer('spec.dependsOn between Applications on a real API server', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-depends-on'));
    operator = await startOperator({
      cluster: admin,
      clock: realClock,
      random: Math.random,
      namespace,
      resyncMs: 10 * 60 * 60_000,
      planOptions: { readinessRequeueMs: 300, stalledRequeueMs: 300 },
    });
  });
  afterAll(async () => {
    await operator?.stop(5_000);
    await cleanup?.();
  });

  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { name } });
  const configMapRef = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

  const create = async (name: string, spec: Record<string, unknown>): Promise<ObjectRef> => {
    const application = {
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name, namespace },
      spec,
    } as unknown as Resource;
    await must(admin.create(application));
    return applicationRef(namespace, name);
  };

  const version = async (ref: ObjectRef): Promise<bigint> =>
    BigInt((await readObject(admin, ref))?.metadata.resourceVersion ?? '-1');

  it('A→B→C converges in order; B and C write nothing while A is not Ready', async () => {
    const c = await create('c', { manifest: [configMap('c-config')], dependsOn: [{ name: 'b' }] });
    const b = await create('b', { manifest: [configMap('b-config')], dependsOn: [{ name: 'a', namespace }] });
    const widget = { apiVersion: WIDGET_API, kind: 'Widget', metadata: { name: 'a-widget' }, spec: { size: 1 } };
    const a = await create('a', {
      manifest: [widget, configMap('a-config')],
      readiness: [{ kind: 'Widget', ready: READY }],
    });
    // The API server kept the field as written (the CRD declares it).
    expect((await readApplication(admin, b)).spec.dependsOn).toEqual([{ name: 'a', namespace }]);
    await waitForCondition(admin, b, 'Reconciling', {
      status: 'True',
      reason: 'DependencyNotReady',
      message: expect.stringContaining(`${namespace}/a (not ready: `) as string,
    });
    await waitForCondition(admin, c, 'Reconciling', { status: 'True', reason: 'DependencyNotReady' });
    await eventually(async () => expect(await readObject(admin, configMapRef('a-config'))).toBeDefined(), 30_000);
    expect(await readObject(admin, configMapRef('b-config'))).toBeUndefined();
    expect(await readObject(admin, configMapRef('c-config'))).toBeUndefined();
    expect((await readApplication(admin, b)).metadata.finalizers ?? []).toEqual([]);

    await must(
      admin.patchStatus(
        { apiVersion: WIDGET_API, kind: 'Widget', namespace, name: 'a-widget' },
        { type: 'merge', body: { status: { phase: 'Ready' } } },
      ),
    );
    for (const ref of [a, b, c]) await waitForCondition(admin, ref, 'Ready', { status: 'True' }, 30_000);
    const [va, vb, vc] = await Promise.all(['a-config', 'b-config', 'c-config'].map((n) => version(configMapRef(n))));
    expect(va).toBeLessThan(vb!);
    expect(vb).toBeLessThan(vc!);
  });

  it('a cycle stalls every member, naming it', async () => {
    const x = await create('x', { manifest: [configMap('x-config')], dependsOn: [{ name: 'y' }] });
    const y = await create('y', { manifest: [configMap('y-config')], dependsOn: [{ name: 'x' }] });
    const self = await create('self', { manifest: [configMap('self-config')], dependsOn: [{ name: 'self' }] });
    await waitForCondition(admin, x, 'Stalled', {
      status: 'True',
      reason: 'DependencyCycle',
      message: expect.stringContaining(`${namespace}/x → ${namespace}/y → ${namespace}/x`) as string,
    });
    await waitForCondition(admin, y, 'Stalled', { status: 'True', reason: 'DependencyCycle' });
    await waitForCondition(admin, self, 'Stalled', {
      status: 'True',
      message: expect.stringContaining(`${namespace}/self → ${namespace}/self`) as string,
    });
    for (const name of ['x-config', 'y-config', 'self-config'])
      expect(await readObject(admin, configMapRef(name))).toBeUndefined();
  });

  it('deleting A waits while B depends on it, then proceeds once B is gone', async () => {
    const a = await create('base', { manifest: [configMap('base-config')] });
    const b = await create('user', { manifest: [configMap('user-config')], dependsOn: [{ name: 'base' }] });
    await waitForCondition(admin, b, 'Ready', { status: 'True' }, 30_000);
    await must(admin.delete(a));
    const waiting = await waitForCondition(admin, a, 'Reconciling', {
      status: 'True',
      reason: 'DependantsExist',
      message: expect.stringContaining(`${namespace}/user`) as string,
    });
    expect(waiting.metadata.deletionTimestamp).toBeDefined();
    expect(waiting.metadata.finalizers).toContain('kreconcile.io/cleanup');
    expect(await readObject(admin, configMapRef('base-config'))).toBeDefined();
    await must(admin.delete(b));
    await eventually(async () => {
      expect(await readObject(admin, a)).toBeUndefined();
      expect(await readObject(admin, configMapRef('base-config'))).toBeUndefined();
    }, 30_000);
  });
});
