/**
 * End to end on a real API server, driven by the running operator (issue 5): the scenario of
 * the Kubernetes-adapter issue with watches, the work queue and status writes doing the work
 * (no manual reconcile calls), then leader election between two operator instances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, type ObjectRef, type Resource } from '../../core/internal.js';
import {
  actionLine,
  applicationObject,
  applicationRef,
  children,
  conditionOf,
  expectOwnedBy,
  expectReady,
  readApplication,
  readExisting,
  readObject,
  reconcileLog,
  shopManifest,
  summarizeAction,
  writesOf,
  type ReconcileLog,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

/**
 * Long enough that a takeover after a release (a few 500 ms retries) is told apart from one after expiry on a loaded
 * machine.
 */
const LEASE_MS = 12_000;

const CONVERGE_MS = 30_000;

describeWithApiServer('end to end: the operator on a real API server', (env) => {
  let cluster: KubernetesCluster;

  beforeAll(() => {
    cluster = connect(env);
  });

  const line = (type: string, ref: ObjectRef): string =>
    `${type} ${ref.apiVersion} ${ref.kind} ${ref.namespace}/${ref.name}`;

  const waitReady = (
    ref: ObjectRef,
    check: (application: Awaited<ReturnType<typeof readApplication>>) => void = () => undefined,
  ) =>
    eventually(async () => {
      const application = await readApplication(cluster, ref);
      expectReady(application);
      check(application);
      return application;
    }, CONVERGE_MS);

  describe('one operator: watch-driven, two workers', () => {
    let namespace: string;
    let cleanup: () => Promise<void>;
    let operator: Operator;
    let log: ReconcileLog;
    let appRef: ObjectRef;
    let child: ReturnType<typeof children>;
    let key: string;
    const name = 'shop';

    beforeAll(async () => {
      ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-operator'));
      appRef = applicationRef(namespace, name);
      child = children(namespace);
      key = `${namespace}/${name}`;
      log = reconcileLog();
      // Its own connection, as a separate process would have; Events in its low-priority lane, as `kreconcile run`
      // sends them.
      const own = connect(env);
      operator = await startOperator({
        cluster: own,
        eventCluster: own.lowPriority,
        clock: realClock,
        random: Math.random,
        workers: 2,
        namespace,
        readiness: 'existence',
        onReconciled: log.onReconciled,
      });
    });
    afterAll(async () => {
      await operator?.stop(10_000);
      await cleanup?.();
    });

    it('creates every child with ownership marks; the status shows observedGeneration and the conditions', async () => {
      await must(cluster.create(applicationObject(namespace, name, shopManifest())));
      const application = await waitReady(appRef);
      expect(application.metadata.generation).toBe(1);
      expect(conditionOf(application, 'Ready')?.message).toBe('5 resources match the desired state');
      for (const ref of Object.values(child)) expectOwnedBy(await readExisting(cluster, ref), application);
      expect(getIn(await readExisting(cluster, child.widget), ['spec'])).toEqual({
        color: 'red',
        tags: ['a', 'b'],
        size: 1,
      });

      // Each child created exactly once; the acting reconcile verified its writes from the answers,
      // so the one status it wrote already said Ready (no Reconciling status, no verification requeue).
      expect(log.failuresFor(key)).toEqual([]);
      expect(log.actionsFor(key).map(actionLine)).toEqual([
        `addFinalizer kreconcile.io/v1alpha1 Application ${namespace}/${name}`,
        line('create', child.config),
        line('create', child.extra),
        line('create', child.service),
        line('create', child.deployment),
        line('create', child.widget),
      ]);
      const acting = log.resultsFor(key).find((result) => result._tag === 'Done' && result.execution.done.length > 0);
      expect(acting?._tag === 'Done' && acting.statusWritten).toBe(true);
      expect(acting?._tag === 'Done' && acting.verified).toBe(true);
      expect(acting?._tag === 'Done' && acting.status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'True',
        observedGeneration: 1,
      });
      expect(acting?._tag === 'Done' && acting.status.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({
        status: 'False',
        observedGeneration: 1,
      });
      // Kubernetes Events name what was done.
      await eventually(async () => {
        const events = await must(cluster.list({ apiVersion: 'v1', kind: 'Event', namespace }));
        const created = events.items.filter(
          (event) => getIn(event, ['involvedObject', 'name']) === name && getIn(event, ['reason']) === 'Created',
        );
        // One Event for the reconcile's creates, naming each child.
        expect(created).toHaveLength(1);
        expect(getIn(created[0] ?? {}, ['message'])).toMatch(/^created 5 objects: /);
      }, 10_000);
    });

    it('corrects drift of observed fields through the watch, without manual calls; unobserved changes stand', async () => {
      const before = log.actionsFor(key).length;
      await must(
        cluster.patch(child.deployment, {
          type: 'merge',
          body: { metadata: { annotations: { team: 'payments' } }, spec: { replicas: 5, revisionHistoryLimit: 4 } },
        }),
      );
      await must(cluster.patch(child.widget, { type: 'merge', body: { spec: { color: 'blue', size: 7 } } }));

      await eventually(async () => {
        const deployment = await readExisting(cluster, child.deployment);
        expect(getIn(deployment, ['spec', 'replicas'])).toBe(2);
        expect(getIn(await readExisting(cluster, child.widget), ['spec', 'color'])).toBe('red');
      }, CONVERGE_MS);
      await waitReady(appRef);
      const deployment = await readExisting(cluster, child.deployment);
      expect(deployment.metadata.annotations?.team).toBe('payments');
      expect(getIn(deployment, ['spec', 'revisionHistoryLimit'])).toBe(4);
      expect(getIn(await readExisting(cluster, child.widget), ['spec', 'size'])).toBe(7);

      // Only patches of the observed fields were sent (the two drifts may come in one or two reconciles).
      expect(log.failuresFor(key)).toEqual([]);
      const patches = log.actionsFor(key).slice(before).map(summarizeAction);
      expect(patches.map((p) => `${p.type} ${p.resource}`).sort()).toEqual(
        [line('patch', child.deployment), line('patch', child.widget)].sort(),
      );
      expect(
        patches.flatMap((p) => writesOf(p.patch)).sort((a, b) => String(a.path).localeCompare(String(b.path))),
      ).toEqual([
        { op: 'replace', path: '/spec/color', value: 'red' },
        { op: 'replace', path: '/spec/replicas', value: 2 },
      ]);
    });

    it('rolls out a spec change: a resource removed from the spec is deleted, observedGeneration follows', async () => {
      const before = log.actionsFor(key).length;
      await must(
        cluster.patch(appRef, {
          type: 'json',
          operations: [
            { op: 'replace', path: '/spec/manifest', value: shopManifest({ extra: false, replicas: 3 }) as never },
          ],
        }),
      );
      const application = await waitReady(appRef, (a) => expect(a.metadata.generation).toBe(2));
      expect(conditionOf(application, 'Ready')?.message).toBe('4 resources match the desired state');
      expect(await readObject(cluster, child.extra)).toBeUndefined();
      expect(getIn(await readExisting(cluster, child.deployment), ['spec', 'replicas'])).toBe(3);
      expect(log.failuresFor(key)).toEqual([]);
      expect(
        log
          .actionsFor(key)
          .slice(before)
          .map(summarizeAction)
          .map((a) => ({ ...a, patch: writesOf(a.patch) })),
      ).toEqual([
        { type: 'delete', resource: `v1 ConfigMap ${namespace}/web-extra`, reason: 'RemovedFromSpec', patch: [] },
        {
          type: 'patch',
          resource: `apps/v1 Deployment ${namespace}/web`,
          patch: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
        },
      ]);
    });

    it('deleting the Application: the operator deletes every child, removes the finalizer, and it disappears', async () => {
      const before = log.actionsFor(key).length;
      await must(cluster.delete(appRef));
      await eventually(async () => expect(await readObject(cluster, appRef)).toBeUndefined(), CONVERGE_MS);
      for (const ref of Object.values(child))
        expect(await readObject(cluster, ref), `${ref.kind} ${ref.name}`).toBeUndefined();
      // Deleted by the operator before the finalizer went (not left to the garbage collector).
      expect(log.actionsFor(key).slice(before).map(actionLine)).toEqual([
        line('delete', child.widget),
        line('delete', child.deployment),
        line('delete', child.service),
        line('delete', child.config),
        `removeFinalizer kreconcile.io/v1alpha1 Application ${namespace}/${name}`,
      ]);
      expect(log.failuresFor(key)).toEqual([]);
      expect(operator.controller.concurrentReconciles).toBe(0);
    });
  });

  describe('leader election: two operator instances', () => {
    let namespace: string;
    let cleanup: () => Promise<void>;
    const lease = 'kreconcile-e2e';
    const instances: Array<{ readonly operator: Operator; readonly log: ReconcileLog }> = [];

    const start = async (identity: string) => {
      const log = reconcileLog();
      const operator = await startOperator({
        cluster: connect(env),
        clock: realClock,
        random: Math.random,
        workers: 2,
        namespace,
        readiness: 'existence',
        onReconciled: log.onReconciled,
        leaderElection: { namespace, name: lease, identity, leaseDurationMs: LEASE_MS, retryPeriodMs: 500 },
      });
      instances.push({ operator, log });
      return { operator, log };
    };

    const holder = async (): Promise<unknown> =>
      getIn(
        await readExisting(cluster, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name: lease }),
        ['spec', 'holderIdentity'],
      );

    const createSmallApplication = async (name: string): Promise<ObjectRef> => {
      const manifest = [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config` }, data: { owner: name } },
      ] as ReadonlyArray<Resource>;
      await must(cluster.create(applicationObject(namespace, name, manifest)));
      return applicationRef(namespace, name);
    };

    beforeAll(async () => {
      ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-leader'));
    });
    afterAll(async () => {
      for (const { operator } of instances) await operator.stop(10_000);
      await cleanup?.();
    });

    it('only the leader reconciles; when it stops (releasing the lease) the other takes over and acts', async () => {
      const a = await start('operator-a');
      await eventually(() => expect(a.operator.isLeader()).toBe(true), 15_000);
      const b = await start('operator-b');
      // b has tried (its first attempt runs at start) and keeps trying every 500 ms; a keeps renewing.
      await eventually(async () => expect(await holder()).toBe('operator-a'), 5_000);

      const first = await createSmallApplication('first');
      await waitReady(first);
      expect(
        await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'first-config' }),
      ).toBeDefined();
      expect(a.log.resultsFor(`${namespace}/first`).length).toBeGreaterThan(0);
      expect(a.log.failuresFor(`${namespace}/first`)).toEqual([]);
      expect(b.log.entries).toEqual([]);
      expect(b.operator.isLeader()).toBe(false);
      expect(b.operator.controller.reconcileCount).toBe(0);
      expect(await holder()).toBe('operator-a');

      const stopped = await a.operator.stop(10_000);
      expect(stopped).toBe(true);
      expect(a.operator.isLeader()).toBe(false);
      const reconcilesOfA = a.log.entries.length;
      // Released: the lease no longer names a (b may already hold it), so b need not wait for it to
      // expire; b takes over at one of its next retries.
      expect(await holder()).not.toBe('operator-a');
      await eventually(() => expect(b.operator.isLeader()).toBe(true), 2 * LEASE_MS, 50);
      expect(await holder()).toBe('operator-b');

      const second = await createSmallApplication('second');
      await waitReady(second);
      expect(
        getIn(await readExisting(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'second-config' }), [
          'data',
        ]),
      ).toEqual({ owner: 'second' });
      expect(b.log.actionsFor(`${namespace}/second`).map(actionLine)).toEqual([
        `addFinalizer kreconcile.io/v1alpha1 Application ${namespace}/second`,
        `create v1 ConfigMap ${namespace}/second-config`,
      ]);
      expect(b.log.failuresFor(`${namespace}/second`)).toEqual([]);
      // The new leader re-reconciled `first` (it lists everything on start) and found nothing to do.
      expect(b.log.actionsFor(`${namespace}/first`)).toEqual([]);
      // The stopped instance did nothing more.
      expect(a.log.entries).toHaveLength(reconcilesOfA);
      expect(a.log.resultsFor(`${namespace}/second`)).toEqual([]);
    });
  });
});
