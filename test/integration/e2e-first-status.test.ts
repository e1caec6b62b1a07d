/**
 * A brand-new Application's first progress status is held while its children become ready
 * (docs/behaviour.md §5, "First status"), on a real API server with the fleet benchmark's 4
 * children: a Deployment whose rollout is reported within the grace costs one status write
 * (Ready=True); one that is not gets `Ready=False WaitingForReadiness` once the grace has passed
 * since the children's creation (server time), then Ready=True when it rolls out.
 *
 * The shared test control plane's kube-controller-manager runs no deployment controller
 * (tools/envtest/kube-controller-manager.ts), so this test reports the rollout as that controller
 * does for `replicas: 0`: `observedGeneration` and the Available and Progressing conditions, through
 * the status subresource. `npx tsx bench/request-log.ts` shows the same with the real controller.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { DEFAULT_PROGRESS_STATUS_AFTER_MS } from '../../app/runtime/controller.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import {
  APPLICATION_KIND,
  getOwn,
  isJsonArray,
  isJsonObject,
  type Cluster,
  type JsonValue,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import { applicationObjects } from '../../bench/fleet-objects.js';
import {
  applicationObject,
  applicationRef,
  readExisting,
  readObject,
  waitForCondition,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const GRACE_MS = DEFAULT_PROGRESS_STATUS_AFTER_MS;

type StatusWrite = { readonly name: string; readonly at: number; readonly ready?: JsonValue };

/** `cluster` with every status write of an Application kept: its Ready condition and the time it was sent. */
const recordingStatusWrites = (cluster: Cluster, writes: StatusWrite[]): Cluster => ({
  ...cluster,
  patchStatus: (ref, patch) => {
    const operation = patch.type === 'json' ? patch.operations[0] : undefined;
    const value = operation !== undefined && 'value' in operation ? operation.value : undefined;
    if (ref.kind === APPLICATION_KIND) writes.push({ name: ref.name, at: realClock.now(), ready: readyIn(value) });
    return cluster.patchStatus(ref, patch);
  },
});

const readyIn = (status: JsonValue | undefined): JsonValue | undefined => {
  const conditions = isJsonObject(status) ? getOwn(status, 'conditions') : undefined;
  const ready = isJsonArray(conditions)
    ? conditions.find((condition) => isJsonObject(condition) && getOwn(condition, 'type') === 'Ready')
    : undefined;
  return isJsonObject(ready)
    ? { status: getOwn(ready, 'status') ?? null, reason: getOwn(ready, 'reason') ?? null }
    : undefined;
};

/** What the deployment controller writes once a `replicas: 0` Deployment has rolled out (what kstatus reads). */
const rolledOut = (deployment: Resource): JsonValue => {
  const now = new Date(realClock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastUpdateTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    observedGeneration: deployment.metadata.generation ?? 1,
    conditions: [
      condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
      condition('Progressing', 'NewReplicaSetAvailable', `ReplicaSet "${deployment.metadata.name}" has progressed.`),
    ],
  };
};

describeWithApiServer('first status on a real API server', (env) => {
  let admin: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;
  const writes: StatusWrite[] = [];

  beforeAll(async () => {
    admin = connect(env);
    ({ namespace, cleanup } = await freshNamespace(admin, 'kr-first-status'));
    operator = await startOperator({
      cluster: recordingStatusWrites(admin, writes),
      clock: realClock,
      random: Math.random,
      namespace,
      readiness: 'kstatus',
    });
  });
  afterAll(async () => {
    await operator?.stop(5_000);
    await cleanup?.();
  });

  const deploymentRef = (name: string): ObjectRef => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });

  /** Creates Application `app-<i>` and waits until the operator has created its Deployment. */
  const createApplication = async (i: number): Promise<{ ref: ObjectRef; deployment: Resource }> => {
    const name = `app-${i}`;
    await must(admin.create(applicationObject(namespace, name, applicationObjects('flux', i, namespace))));
    const deployment = await eventually(
      async () => {
        const found = await readObject(admin, deploymentRef(name));
        expect(found).toBeDefined();
        return found as Resource;
      },
      30_000,
      20,
    );
    return { ref: applicationRef(namespace, name), deployment };
  };

  const reportRollout = async (deployment: Resource): Promise<void> => {
    await must(
      admin.patchStatus(deploymentRef(deployment.metadata.name), {
        type: 'merge',
        body: { status: rolledOut(deployment) },
      }),
    );
  };

  it('a Deployment rolled out within the grace: one status write, Ready=True', async () => {
    const { ref, deployment } = await createApplication(0);
    await reportRollout(deployment);
    await waitForCondition(admin, ref, 'Ready', { status: 'True', reason: 'Reconciled' });
    expect(writes.filter((write) => write.name === 'app-0').map((write) => write.ready)).toEqual([
      { status: 'True', reason: 'Reconciled' },
    ]);
  }, 60_000);

  it('a Deployment not rolled out: WaitingForReadiness once the grace has passed, then Ready=True', async () => {
    const { ref, deployment } = await createApplication(1);
    const created = Date.parse(deployment.metadata.creationTimestamp ?? '');
    expect(Number.isFinite(created)).toBe(true);
    await waitForCondition(admin, ref, 'Ready', { status: 'False', reason: 'WaitingForReadiness' }, 30_000);
    const own = () => writes.filter((write) => write.name === 'app-1');
    expect(own().map((write) => write.ready)).toEqual([{ status: 'False', reason: 'WaitingForReadiness' }]);
    // Not before the grace counted from the children's creation (the newest may be a second later).
    expect(own()[0]?.at).toBeGreaterThanOrEqual(created + GRACE_MS);
    await reportRollout(await readExisting(admin, deploymentRef('app-1')));
    await waitForCondition(admin, ref, 'Ready', { status: 'True', reason: 'Reconciled' });
    expect(own().map((write) => write.ready)).toEqual([
      { status: 'False', reason: 'WaitingForReadiness' },
      { status: 'True', reason: 'Reconciled' },
    ]);
  }, 60_000);
});
