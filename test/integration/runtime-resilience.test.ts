/**
 * The runtime on a real API server when the world misbehaves (issue 11): a kind whose CRD is not
 * installed stalls only its own Application and converges once the CRD appears; the status reads
 * back exactly as written (null leaves included), so a quiet restart and a resync write nothing;
 * leadership moves on a lost lease and comes back; a paused leader writes nothing after it resumes.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, jsonEqual, type JsonValue, type ObjectRef, type Resource } from '../../core/internal.js';
import { Replica } from '../app/runtime/replica.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readObject,
  reconcileLog,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { leaseVersionOf, type LeaseVersion } from '../support/lease-version.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';
import { recordingSink, type RecordingSink } from '../support/recording-sink.js';

const configMap = (name: string, data: Record<string, string>): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

describeWithApiServer('the runtime on a real API server when the world misbehaves', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  const operators: Operator[] = [];

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-resilience'));
  });
  afterAll(async () => {
    for (const operator of operators) await operator.stop(5_000);
    await cleanup?.();
  });

  const started = async (options: Partial<Parameters<typeof startOperator>[0]> = {}): Promise<Operator> => {
    const operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      namespace,
      readiness: 'existence',
      ...options,
    });
    operators.push(operator);
    return operator;
  };

  const stop = async (operator: Operator): Promise<void> => {
    await operator.stop(5_000);
    operators.splice(operators.indexOf(operator), 1);
  };

  const waitReady = (ref: ObjectRef, timeoutMs = 30_000) =>
    eventually(async () => {
      const application = await readApplication(cluster, ref);
      expectReady(application);
      return application;
    }, timeoutMs);

  it('an uninstalled CRD stalls only its own Application; installing it later makes that one Ready without a restart', async () => {
    const group = `${uniqueName('late')}.kreconcile.io`;
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `sprockets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            },
          },
        ],
      },
    } as unknown as Resource;
    const operator = await started();
    const sprocket = {
      apiVersion: `${group}/v1`,
      kind: 'Sprocket',
      metadata: { name: 'gear' },
      spec: { teeth: 12 },
    } as unknown as Resource;
    await must(cluster.create(applicationObject(namespace, 'waits-for-crd', [sprocket])));
    await must(cluster.create(applicationObject(namespace, 'healthy', [configMap('healthy-config', { mode: 'a' })])));
    await waitReady(applicationRef(namespace, 'healthy'));
    const stalled = await eventually(async () => {
      const application = await readApplication(cluster, applicationRef(namespace, 'waits-for-crd'));
      expect(conditionOf(application, 'Stalled')).toMatchObject({ status: 'True', reason: 'UnknownKind' });
      return application;
    });
    expect(conditionOf(stalled, 'Stalled')?.message).toContain('Sprocket');
    try {
      await must(cluster.create(crd));
      // Backoff from ~0.5 s doubling, capped at the 60 s stalled delay: well within a minute of the CRD being served.
      await waitReady(applicationRef(namespace, 'waits-for-crd'), 60_000);
      expect(
        getIn(
          (await readObject(cluster, { apiVersion: `${group}/v1`, kind: 'Sprocket', namespace, name: 'gear' })) ?? {},
          ['spec', 'teeth'],
        ),
      ).toBe(12);
    } finally {
      // Leave nothing for the next test's operators: deleting the CRD under a live Application
      // changes its world (UnknownKind), and they would rightly write its status.
      for (const name of ['waits-for-crd', 'healthy']) await cluster.delete(applicationRef(namespace, name))();
      await eventually(async () => {
        for (const name of ['waits-for-crd', 'healthy'])
          expect(await readObject(cluster, applicationRef(namespace, name))).toBeUndefined();
      }, 30_000);
      await stop(operator);
      await cluster.delete({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: `sprockets.${group}`,
      })();
    }
  });

  it('status reads back as written (null leaves kept); a quiet restart and a resync write no status', async () => {
    const log = reconcileLog();
    const first = await started({ onReconciled: log.onReconciled });
    const names = ['quiet-a', 'quiet-b', 'quiet-c'];
    for (const name of names)
      await must(
        cluster.create(applicationObject(namespace, name, [configMap(`${name}-config`, { mode: 'a', level: 'b' })])),
      );
    for (const name of names) await waitReady(applicationRef(namespace, name));
    // What was computed last is what is stored, byte for byte (the observer schema's nulls included).
    await eventually(async () => {
      for (const name of names) {
        const written = [...log.resultsFor(`${namespace}/${name}`)]
          .reverse()
          .find((result) => result._tag === 'Done' && result.statusWritten);
        const stored = await readApplication(cluster, applicationRef(namespace, name));
        expect(
          written?._tag === 'Done' &&
            jsonEqual(stored.status as unknown as JsonValue, written.status as unknown as JsonValue),
        ).toBe(true);
        const schema = (stored.status?.mangledObserverSchema ?? []).find((entry) => entry.kind === 'ConfigMap');
        expect(getIn(schema as unknown as JsonValue, ['data', 'mode'])).toBeNull();
      }
    });
    await stop(first);
    const again = reconcileLog();
    const second = await started({ onReconciled: again.onReconciled, resyncMs: 2_000 });
    // The restart reconciles every Application once, then the 2 s resync twice more.
    await eventually(() => {
      for (const name of names) expect(again.resultsFor(`${namespace}/${name}`).length).toBeGreaterThanOrEqual(3);
    }, 20_000);
    const own = again.entries.filter(({ key }) => names.some((name) => key === `${namespace}/${name}`));
    const writes = own.filter(({ result }) => result._tag !== 'Gone' && result.statusWritten);
    const actions = own.flatMap(({ result }) => (result._tag === 'Gone' ? [] : (result.execution?.done ?? [])));
    expect({ writes: writes.length, actions: actions.length }).toEqual({ writes: 0, actions: 0 });
    await stop(second);
  });

  describe('leadership', () => {
    const lease = uniqueName('kr-lease');
    /** The leader elector's default fence margin for a 4 s lease: a fifth of it. */
    const FENCE_MARGIN_MS = 800;
    const versionsOf = (history: RecordingSink): LeaseVersion[] =>
      history.events.flatMap((event) =>
        event.type !== 'BOOKMARK' && event.type !== 'DELETED' && event.object.metadata.name === lease
          ? [leaseVersionOf(event.object)]
          : [],
      );
    const leaderElection = (identity: string) => ({
      namespace,
      name: lease,
      identity,
      leaseDurationMs: 4_000,
      renewDeadlineMs: 2_700,
      retryPeriodMs: 500,
    });
    const modeOf = async (name: string): Promise<unknown> =>
      getIn((await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })) ?? {}, [
        'data',
        'mode',
      ]);
    const setMode = async (application: string, mode: string): Promise<void> => {
      const current = await readApplication(cluster, applicationRef(namespace, application));
      await must(
        cluster.update({
          ...current,
          spec: { manifest: [configMap(`${application}-config`, { mode })] },
        }),
      );
    };

    it('leader A loses the lease (cut off), B takes over; A regains it later and reconciles again', async () => {
      const a = new Replica(realClock, connect(env));
      const operatorA = await started({
        cluster: a.cluster,
        monotonic: () => performance.now(),
        leaderElection: leaderElection('a'),
        stopDeadlineMs: 1_000,
      });
      await eventually(() => expect(operatorA.isLeader()).toBe(true), 15_000);
      const operatorB = await started({
        monotonic: () => performance.now(),
        leaderElection: leaderElection('b'),
        stopDeadlineMs: 1_000,
      });
      await must(
        cluster.create(applicationObject(namespace, 'handover', [configMap('handover-config', { mode: 'one' })])),
      );
      await eventually(async () => expect(await modeOf('handover-config')).toBe('one'));
      expect(operatorB.isLeader()).toBe(false);

      // Every version of the Lease from now on, to order B's takeover after A's expiry as the Lease records them.
      const leaseHistory = recordingSink();
      const leaseWatch = cluster.watch(
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace },
        leaseHistory,
      );
      a.partitioned = true;
      const cutAt = performance.now();
      await eventually(() => expect(operatorB.isLeader()).toBe(true), 15_000, 50);
      const takeoverMs = performance.now() - cutAt;
      expect(operatorA.isLeader()).toBe(false);
      await eventually(() => expect(versionsOf(leaseHistory).map((v) => v.holder)).toContain('b'));
      leaseWatch.stop();
      const versions = versionsOf(leaseHistory);
      const taken = versions.findIndex((version) => version.holder === 'b');
      // One handover, straight from A to B: A held every version before B's first.
      expect(new Set(versions.slice(0, taken).map((version) => version.holder))).toEqual(new Set(['a']));
      const [lastOfA, firstOfB] = [versions[taken - 1]!, versions[taken]!];
      expect(firstOfB.transitions).toBe(lastOfA.transitions + 1);
      // B counts A's lease from when it first read A's last renewal, on its own monotonic clock. Its
      // acquireTime is stamped before the read that found the lease expired, and its sighting of the
      // renewal precedes the renewal's arrival: each by less than the fence margin (a slower read is not acted on).
      expect(firstOfB.acquireTime - lastOfA.renewTime).toBeGreaterThanOrEqual(
        lastOfA.leaseDurationMs - 2 * FENCE_MARGIN_MS,
      );
      process.stdout.write(
        `takeover after the leader was cut off: ${Math.round(takeoverMs)} ms; B acquired ${firstOfB.acquireTime - lastOfA.renewTime} ms after A's last renewal (lease 4 s, retry 0.5 s)\n`,
      );
      await setMode('handover', 'two');
      await eventually(async () => expect(await modeOf('handover-config')).toBe('two'));

      a.partitioned = false;
      await sleep(2_000);
      expect(operatorA.isLeader()).toBe(false);
      const firstTerm = operatorA.controller;
      await stop(operatorB);
      await eventually(() => expect(operatorA.isLeader()).toBe(true), 10_000, 50);
      expect(operatorA.controller).not.toBe(firstTerm);
      await setMode('handover', 'three');
      await eventually(async () => expect(await modeOf('handover-config')).toBe('three'));
      expect(operatorA.controller.reconcileCount).toBeGreaterThan(0);
      await stop(operatorA);
    });

    it('a leader paused (as by SIGSTOP) past its lease writes nothing after it resumes', async () => {
      const a = new Replica(realClock, connect(env));
      const operatorA = await started({
        cluster: a.cluster,
        monotonic: () => performance.now(),
        leaderElection: leaderElection('paused-a'),
        stopDeadlineMs: 1_000,
      });
      await eventually(() => expect(operatorA.isLeader()).toBe(true), 15_000);
      const operatorB = await started({
        monotonic: () => performance.now(),
        leaderElection: leaderElection('paused-b'),
        stopDeadlineMs: 1_000,
      });
      await must(cluster.create(applicationObject(namespace, 'paused', [configMap('paused-config', { mode: 'one' })])));
      await eventually(async () => expect(await modeOf('paused-config')).toBe('one'));
      // A stops right after sending its next write (a patch of the ConfigMap): the rest of that reconcile waits for
      // SIGCONT.
      const patch = a.cluster.patch;
      let pauseNext = true;
      a.cluster.patch = (ref, body, options) => {
        const task = patch(ref, body, options);
        if (!pauseNext || ref.kind !== 'ConfigMap') return task;
        pauseNext = false;
        return async () => {
          const answer = task();
          a.pause();
          return answer;
        };
      };
      await setMode('paused', 'two');
      await eventually(() => expect(a.paused).toBe(true));
      await eventually(() => expect(operatorB.isLeader()).toBe(true), 15_000, 50);
      await eventually(async () => expect(await modeOf('paused-config')).toBe('two'));
      await sleep(1_000);
      const writesBefore = a.writes.length;
      a.resume();
      await sleep(3_000);
      expect(a.writes.slice(writesBefore)).toEqual([]);
      expect(operatorA.isLeader()).toBe(false);
      await stop(operatorA);
      await stop(operatorB);
    });
  });
});
