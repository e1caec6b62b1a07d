/**
 * End to end on a real API server (issue 6): `kreconcile snapshot` records the live state,
 * `kreconcile plan --snapshot` plans offline from the recording, then the operator acts, and what
 * it executed equals the offline plan — for a fresh Application (creations) and after a drift
 * (a JSON Patch). The CLI runs in-process through `run(argv, io)`, connected to the real server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { connectKubernetes } from '../../app/cli/live/kubernetes.js';
import { run } from '../../app/cli/main.js';
import type { ApplicationPlanV1, PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { startOperator } from '../../app/runtime/operator.js';
import { getIn, type JsonValue, type ObjectRef, type Resource } from '../../core/internal.js';
import { testIo } from '../cli/support/run-cli.js';
import {
  applicationObject,
  applicationRef,
  children,
  executedActions,
  expectReady,
  readApplication,
  readExisting,
  reconcileLog,
  resourceName,
  shopManifest,
  summarizeAction,
  writesOf,
  type ActionSummary,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const NOW = '2026-03-02T12:00:00Z';

type CliRun = { readonly code: number; readonly stdout: string; readonly stderr: string };

describeWithApiServer(
  'end to end: an offline plan from a snapshot of the real API server equals what the operator does',
  (env) => {
    let cluster: KubernetesCluster;
    let namespace: string;
    let cleanup: () => Promise<void>;
    let dir: string;
    let appFile: string;
    let appRef: ObjectRef;
    let key: string;
    const name = 'shop';

    /** The CLI in-process, its live connections going to the real server (read-only reader). */
    const cli = async (argv: ReadonlyArray<string>): Promise<CliRun> => {
      const { io, out, err } = testIo({ connect: connectKubernetes });
      const code = await run(argv, io);
      return { code, stdout: out.join(''), stderr: err.join('') };
    };

    /**
     * `kreconcile snapshot` into a file, then `kreconcile plan --snapshot` of it (offline): the one Application's plan.
     */
    const snapshotThenPlan = async (
      label: string,
    ): Promise<{ readonly plan: ApplicationPlanV1; readonly recorded: ReadonlyArray<Resource> }> => {
      const snapshot = await cli(['snapshot', '-f', appFile, '--kubeconfig', env.kubeconfigPath, '-o', 'json']);
      expect(snapshot).toMatchObject({ code: 0, stderr: '' });
      const snapshotFile = join(dir, `${label}.json`);
      await writeFile(snapshotFile, snapshot.stdout);
      // Offline: no --kubeconfig, and no cluster to connect to.
      const { io, out, err } = testIo();
      const code = await run(['plan', '-f', appFile, '--snapshot', snapshotFile, '-o', 'json', '--now', NOW], io);
      expect({ code, stderr: err.join('') }).toEqual({ code: 0, stderr: '' });
      const document = JSON.parse(out.join('')) as PlanDocumentV1;
      expect(document.metadata.cluster).toEqual({ type: 'Snapshot', files: [snapshotFile] });
      expect(document.applications).toHaveLength(1);
      return {
        plan: document.applications[0]!,
        recorded: (JSON.parse(snapshot.stdout) as { items: Resource[] }).items,
      };
    };

    /** The plan's actions as the same comparable data as executed ones. */
    const planned = (plan: ApplicationPlanV1): ReadonlyArray<ActionSummary> =>
      plan.actions.map((action) => ({
        type: action.type,
        resource: resourceName(action.resource),
        ...(action.type === 'create' ? { body: action.body } : {}),
        ...(action.type === 'patch' ? { patch: action.patch } : {}),
        ...(action.type === 'delete' || action.type === 'conflict' ? { reason: action.reason } : {}),
      }));

    /**
     * Starts an operator, waits until the Application is Ready, stops it; returns the actions its
     * FIRST reconcile of the Application executed (the one the offline plan predicts).
     */
    const operatorActs = async (): Promise<ReadonlyArray<ActionSummary>> => {
      const log = reconcileLog();
      const operator = await startOperator({
        cluster: connect(env),
        clock: realClock,
        random: Math.random,
        workers: 2,
        namespace,
        readiness: 'existence',
        onReconciled: log.onReconciled,
      });
      try {
        // Ready from an earlier operator is not enough: this one's first reconcile waits for its child caches.
        await eventually(async () => {
          expect(log.resultsFor(key).length).toBeGreaterThan(0);
          expectReady(await readApplication(cluster, appRef));
        }, 30_000);
      } finally {
        expect(await operator.stop(10_000)).toBe(true);
      }
      const [first] = log.resultsFor(key);
      if (first?._tag !== 'Done')
        throw new Error(
          `the operator's first reconcile of ${key} was ${first?._tag ?? 'missing'}: ${log.failuresFor(key).join('; ')}`,
        );
      // Nothing failed, so it executed its whole plan.
      expect(first.execution.done.map((done) => done.action)).toEqual(first.plan.actions);
      return executedActions(first).map(summarizeAction);
    };

    beforeAll(async () => {
      cluster = connect(env);
      ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-plan'));
      dir = await mkdtemp(join(tmpdir(), 'kr-e2e-plan-'));
      appFile = join(dir, 'app.yaml');
      appRef = applicationRef(namespace, name);
      key = `${namespace}/${name}`;
      const application = applicationObject(namespace, name, shopManifest());
      await writeFile(appFile, JSON.stringify(application, null, 2));
      // Applied, as `kubectl apply -f app.yaml` would, with no operator running yet.
      await must(cluster.create(application));
    });
    afterAll(async () => {
      await cleanup?.();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    describe('in order: a fresh Application, then a drift', () => {
      it('fresh Application: the offline plan (finalizer + every creation, with marks) is what the operator executes', async () => {
        const { plan, recorded } = await snapshotThenPlan('fresh');
        // The recording holds the Application (with its uid, no status yet) and the Widget CRD, no children yet.
        expect(recorded.map((o) => o.kind).sort()).toEqual(['Application', 'CustomResourceDefinition']);
        expect(plan.result).toBe('Changes');
        expect(plan.summary).toEqual({ create: 5, patch: 0, delete: 0, conflict: 0 });
        const offline = planned(plan);
        expect(offline.map((a) => `${a.type} ${a.resource}`)).toEqual([
          `addFinalizer kreconcile.io/v1alpha1 Application ${namespace}/${name}`,
          `create v1 ConfigMap ${namespace}/web-config`,
          `create v1 ConfigMap ${namespace}/web-extra`,
          `create v1 Service ${namespace}/web`,
          `create apps/v1 Deployment ${namespace}/web`,
          `create test.kreconcile.io/v1 Widget ${namespace}/web-widget`,
        ]);
        // The offline plan already knows the live Application's uid (the ownerReference of every creation).
        const uid = (await readExisting(cluster, appRef)).metadata.uid;
        expect(getIn(offline[1]!.body, ['metadata', 'ownerReferences', 0, 'uid'])).toBe(uid);

        expect(await operatorActs()).toEqual(offline);
      });

      it('after a drift: the offline plan (one JSON Patch of the observed field) is what the operator executes', async () => {
        const deployment = children(namespace).deployment;
        // Another actor: an observed field (replicas) and an unobserved one (an annotation: no action).
        await must(
          cluster.patch(deployment, {
            type: 'merge',
            body: { metadata: { annotations: { team: 'payments' } }, spec: { replicas: 5 } },
          }),
        );

        const { plan } = await snapshotThenPlan('drifted');
        expect(plan.result).toBe('Changes');
        const offline = planned(plan);
        expect(offline.map((a) => `${a.type} ${a.resource}`)).toEqual([`patch apps/v1 Deployment ${namespace}/web`]);
        expect(writesOf(offline[0]!.patch)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 2 }]);

        expect(await operatorActs()).toEqual(offline);
        const after = await readExisting(cluster, deployment);
        expect(getIn(after, ['spec', 'replicas'])).toBe(2);
        expect(after.metadata.annotations?.team).toBe('payments');
      });

      it('in sync: the offline plan from a fresh snapshot is empty', async () => {
        const { plan } = await snapshotThenPlan('in-sync');
        expect(plan.result).toBe('NoChanges');
        expect(plan.actions).toEqual([]);
      });
    });
  },
);
