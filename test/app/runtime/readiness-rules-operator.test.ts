/**
 * `spec.readiness` through the operator on the memory cluster (issue 23 item 1): a Widget counts as
 * ready by its CEL rule once its status says so (kstatus alone never would: a Widget has no Ready
 * condition), its `failed` rule stalls the Application `Stalled ReadinessFailed` naming the object,
 * the expression and the values read, and its `timeout` (on the manual clock) does the same; the
 * wait's start is kept in status.readinessWaits, so a new operator keeps counting from it.
 * These run on the manual clock, so the rules are evaluated in the plan (`ruleIsolation: false`):
 * their evaluation in worker threads, on the real clock, is readiness-isolation.test.ts's.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { startOperator, type Operator } from '../../../app/runtime/operator.js';
import { silentLogger, startEmbeddedOperator } from '../../../app/runtime/index.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  type Application,
  type ApplicationStatus,
  type Condition,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import { widgetCrd, widgetGroup } from '../../support/test-crds.js';
import { applicationOf } from '../hooks/support.js';
import { runUntil } from '../../support/operator-clock.js';

let operator: Operator | undefined;

afterEach(async () => {
  await operator?.stop(1_000);
  operator = undefined;
});

const distinct = (): (() => number) => {
  let calls = 0;
  return () => (((calls++ * 0.618033988749895) % 1) + 1) % 1;
};

const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'db',
};
const widgetRef: ObjectRef = { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', namespace: 'shop', name: 'main' };

const widget = { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', metadata: { name: 'main' }, spec: { size: 2 } };

const find = (cluster: MemoryCluster, target: ObjectRef): Resource | undefined =>
  cluster
    .objects()
    .find(
      (o) => o.kind === target.kind && o.metadata.namespace === target.namespace && o.metadata.name === target.name,
    );

const application = (cluster: MemoryCluster): Application | undefined =>
  find(cluster, appRef) as unknown as Application | undefined;

const condition = (cluster: MemoryCluster, type: 'Ready' | 'Reconciling' | 'Stalled'): Condition | undefined =>
  conditionOf(application(cluster)?.status?.conditions, type);

const isTrue = (cluster: MemoryCluster, type: 'Ready' | 'Stalled'): boolean =>
  condition(cluster, type)?.status === 'True';

const setPhase = async (cluster: MemoryCluster, phase: string): Promise<void> => {
  const written = await cluster.patchStatus(widgetRef, { type: 'merge', body: { status: { phase } } })();
  expect(written._tag).toBe('Right');
};

const start = async (rule: Record<string, string>, clock = new ManualClock(), given?: MemoryCluster) => {
  const cluster = given ?? createMemoryCluster({ clock });
  if (given === undefined) {
    await cluster.create(widgetCrd)();
    await cluster.settle();
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    await cluster.create(
      applicationOf('shop', 'db', { manifest: [widget], readiness: [{ kind: 'Widget', ...rule }] }),
    )();
  }
  operator = await startOperator({ cluster, clock, random: distinct(), workers: 1, ruleIsolation: false });
  return { clock, cluster };
};

describe('readiness rules in the operator', () => {
  it('a Widget becomes Ready by its CEL rule once its status says so, not before', async () => {
    const { clock, cluster } = await start({ ready: 'self.status.phase == "Ready"' });
    await runUntil(
      clock,
      () =>
        find(cluster, widgetRef) !== undefined && condition(cluster, 'Reconciling')?.reason === 'WaitingForReadiness',
    );
    await runUntil(clock, () => false, 10_000);
    expect(isTrue(cluster, 'Ready')).toBe(false);
    expect(condition(cluster, 'Reconciling')?.message).toContain(
      'Widget shop/main: ready rule `self.status.phase == "Ready"`',
    );
    await setPhase(cluster, 'Provisioning');
    await runUntil(clock, () => false, 10_000);
    expect(isTrue(cluster, 'Ready')).toBe(false);
    expect(condition(cluster, 'Reconciling')?.message).toContain('status.phase="Provisioning"');
    await setPhase(cluster, 'Ready');
    await runUntil(clock, () => isTrue(cluster, 'Ready'), 10_000);
    expect(isTrue(cluster, 'Ready')).toBe(true);
  });

  it('the failed rule stalls the Application, naming the object, the expression and the values read', async () => {
    const { clock, cluster } = await start({
      ready: 'self.status.phase == "Ready"',
      failed: 'self.status.phase == "Failed"',
    });
    await runUntil(clock, () => find(cluster, widgetRef) !== undefined);
    await setPhase(cluster, 'Failed');
    await runUntil(clock, () => isTrue(cluster, 'Stalled'), 10_000);
    const stalled = condition(cluster, 'Stalled');
    expect(stalled?.reason).toBe('ReadinessFailed');
    expect(stalled?.message).toBe(
      'Widget shop/main: failed rule `self.status.phase == "Failed"` (status.phase="Failed") is true',
    );
    // Recovering un-stalls it.
    await setPhase(cluster, 'Ready');
    await runUntil(clock, () => isTrue(cluster, 'Ready'), 70_000);
    expect(isTrue(cluster, 'Ready')).toBe(true);
  });

  it('the timeout stalls the Application once passed, counted from the start kept in status across operators', async () => {
    const clock = new ManualClock();
    const { cluster } = await start({ ready: 'self.status.phase == "Ready"', timeout: '2m' }, clock);
    await runUntil(clock, () => (application(cluster)?.status?.readinessWaits ?? []).length > 0);
    const since = application(cluster)?.status?.readinessWaits?.[0]?.since;
    expect(since).toBeDefined();
    await runUntil(clock, () => false, 60_000);
    expect(isTrue(cluster, 'Stalled')).toBe(false);
    // A new operator (a restart) counts from the kept start, not from its own.
    await operator?.stop(1_000);
    await start({ ready: '' }, clock, cluster);
    await runUntil(clock, () => isTrue(cluster, 'Stalled'), 120_000);
    const stalled = condition(cluster, 'Stalled');
    expect(stalled?.reason).toBe('ReadinessFailed');
    expect(stalled?.message).toContain('Widget shop/main: ready rule `self.status.phase == "Ready"`');
    expect(stalled?.message).toContain("after 120s, the rule's timeout");
    expect(Date.parse(stalled?.lastTransitionTime ?? '') - Date.parse(since ?? '')).toBeLessThan(125_000);
    expect(application(cluster)?.status?.readinessWaits?.[0]?.since).toBe(since);
  });
});

describe('readiness rules for an embedder', () => {
  it("desired's readiness rules decide its children's readiness, through the runtime API", async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock });
    const crd = parse(
      readFileSync(new URL('../../../examples/embedded-operator/crd.yaml', import.meta.url), 'utf8'),
    ) as Resource;
    expect((await cluster.create(crd)())._tag).toBe('Right');
    await cluster.settle();
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'greeting' }, data: { text: 'hi' } };
    operator = await startEmbeddedOperator({
      cluster,
      clock,
      random: distinct(),
      logger: silentLogger,
      ruleIsolation: false,
      reconciler: {
        apiVersion: 'example.kreconcile.io/v1',
        kind: 'Greeting',
        desired: () => ({
          manifest: [config],
          readiness: [{ kind: 'ConfigMap', ready: 'has(self.data.state) && self.data.state == "ok"' }],
        }),
      },
    });
    const primary = {
      apiVersion: 'example.kreconcile.io/v1',
      kind: 'Greeting',
      metadata: { name: 'g', namespace: 'default' },
      spec: {},
    } as unknown as Resource;
    expect((await cluster.create(primary)())._tag).toBe('Right');
    const conditions = () =>
      (cluster.objects().find((o) => o.kind === 'Greeting')?.status as ApplicationStatus | undefined)?.conditions;
    await runUntil(clock, () => conditionOf(conditions(), 'Reconciling')?.reason === 'WaitingForReadiness');
    expect(conditionOf(conditions(), 'Reconciling')?.message).toContain('ConfigMap default/greeting: ready rule');
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'greeting' };
    expect((await cluster.patch(ref, { type: 'merge', body: { data: { state: 'ok' } } })())._tag).toBe('Right');
    await runUntil(clock, () => conditionOf(conditions(), 'Ready')?.status === 'True', 10_000);
    expect(conditionOf(conditions(), 'Ready')?.status).toBe('True');
  });
});
