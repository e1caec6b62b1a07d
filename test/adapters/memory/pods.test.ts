/**
 * Pods of the simulated workloads (issue 39 item 6): with `workloads: true` (Pods come with it,
 * `pods: false` opts out), Deployments get a ReplicaSet and Pods, StatefulSets, DaemonSets and Jobs get Pods, Running
 * and Ready (a Job's
 * Succeeded); the `pods.failRate` fault makes them crash-loop, named in the injected faults.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock, promiseCluster, type FaultProfile } from '../../../app/testing/index.js';
import { getIn, isJsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
});

const workloads = [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default' },
    spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: podTemplate('db') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent') },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'once', namespace: 'default' },
    spec: { template: { ...podTemplate('once'), spec: { ...podTemplate('once').spec, restartPolicy: 'Never' } } },
  },
];

const setUp = async (faults: FaultProfile = {}, withPods?: boolean) => {
  const cluster = createMemoryCluster({
    clock: new ManualClock(),
    workloads: true,
    faults,
    ...(withPods === undefined ? {} : { pods: withPods }),
  });
  const api = promiseCluster(cluster);
  for (const workload of workloads) await api.create(workload);
  for (let i = 0; i < 5; i++) await cluster.settle();
  const pods = () => cluster.objects().filter((o) => o.kind === 'Pod');
  return { cluster, api, pods };
};

/** The status of a Pod's Ready condition. */
const ready = (pod: Resource | undefined): unknown => {
  const conditions = pod === undefined ? undefined : getIn(pod, ['status', 'conditions']);
  return Array.isArray(conditions)
    ? conditions.filter(isJsonObject).find((c) => c.type === 'Ready')?.status
    : undefined;
};

describe('workload Pods', () => {
  it('every workload gets its Pods, Running and Ready; a Job its Pod Succeeded', async () => {
    const { cluster, pods } = await setUp();
    const names = pods()
      .map((p) => p.metadata.name)
      .sort();
    expect(names.filter((n) => n.startsWith('web-'))).toHaveLength(2);
    expect(names).toEqual(expect.arrayContaining(['db-0', 'db-1']));
    expect(names.filter((n) => n.startsWith('agent-'))).toHaveLength(1);
    expect(names.filter((n) => n.startsWith('once-'))).toHaveLength(1);
    const replicaSet = cluster.objects().find((o) => o.kind === 'ReplicaSet');
    expect(replicaSet?.metadata.ownerReferences?.[0]?.name).toBe('web');
    for (const pod of pods().filter((p) => !p.metadata.name.startsWith('once-'))) {
      expect(getIn(pod, ['status', 'phase'])).toBe('Running');
      expect(ready(pod)).toBe('True');
      expect(pod.metadata.name.startsWith(`${String(getIn(pod, ['metadata', 'labels', 'app']))}-`)).toBe(true);
    }
    expect(
      getIn(
        pods().find((p) => p.metadata.name.startsWith('once-')),
        ['status', 'phase'],
      ),
    ).toBe('Succeeded');
  });

  it('scaling a Deployment down removes Pods; deleting it removes its ReplicaSet and Pods', async () => {
    const { cluster, api, pods } = await setUp();
    await api.patch(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      { type: 'merge', body: { spec: { replicas: 1 } } },
    );
    for (let i = 0; i < 5; i++) await cluster.settle();
    expect(pods().filter((p) => p.metadata.name.startsWith('web-'))).toHaveLength(1);
    await api.delete({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' });
    for (let i = 0; i < 5; i++) await cluster.settle();
    expect(pods().filter((p) => p.metadata.name.startsWith('web-'))).toHaveLength(0);
    expect(cluster.objects().filter((o) => o.kind === 'ReplicaSet')).toHaveLength(0);
  });

  it('the pods.failRate fault: Pods crash-loop, not Ready, named in the injected faults', async () => {
    const { cluster, pods } = await setUp({ pods: { failRate: 1 } });
    const web = pods().filter((p) => p.metadata.name.startsWith('web-'));
    expect(web).toHaveLength(2);
    for (const pod of web) {
      expect(ready(pod)).toBe('False');
      expect(getIn(pod, ['status', 'containerStatuses', 0, 'state', 'waiting', 'reason'])).toBe('CrashLoopBackOff');
    }
    expect(
      getIn(
        pods().find((p) => p.metadata.name.startsWith('once-')),
        ['status', 'phase'],
      ),
    ).toBe('Failed');
    expect(cluster.injectedFaults().get('pod failed (CrashLoopBackOff)')).toBe(6);
  });

  it('pods: false keeps workloads without Pods or ReplicaSets, their status settled all the same', async () => {
    const { cluster, pods } = await setUp({}, false);
    expect(pods()).toEqual([]);
    expect(cluster.objects().filter((o) => o.kind === 'ReplicaSet')).toEqual([]);
    const web = cluster.objects().find((o) => o.kind === 'Deployment');
    expect(getIn(web, ['status', 'readyReplicas'])).toBe(2);
  });

  it('a bare API server (no workloads) makes no Pods, even with pods: true', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), pods: true });
    await promiseCluster(cluster).create(workloads[0] ?? {});
    for (let i = 0; i < 5; i++) await cluster.settle();
    expect(cluster.objects().filter((o) => o.kind === 'Pod' || o.kind === 'ReplicaSet')).toEqual([]);
  });
});
