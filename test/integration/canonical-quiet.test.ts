/**
 * Manifests written as people write them converge on a real API server (issue 20, item 1):
 * Applications with non-canonical quantities (`1000m`, `1024Mi`, `0.5`, a bare number, a
 * resource list value finer than milli) and a Deployment exactly as `kubectl create deployment
 * --dry-run=client -o yaml` prints it (`creationTimestamp: null`, `strategy: {}`, `resources: {}`,
 * `status: {}`) become Ready under the running operator, then send no more writes for 30 s.
 * So do (issue 34) Deployments, Services, PriorityClasses, Jobs, ServiceAccounts and ConfigMaps
 * written with zero values: non-pointer `omitempty` ones the server drops (`minReadySeconds: 0`,
 * `paused: false`, `globalDefault: false`, `readOnly: false`, `hostNetwork: false`, `stdin: false`,
 * `publishNotReadyAddresses: false`) and pointer ones it keeps (`replicas: 0`,
 * `automountServiceAccountToken: false`, `immutable: false`, `suspend: false`).
 *
 * Writes are counted twice, neither by wall-clock guesswork: the operator's executed write actions
 * (create, patch, delete) and the resourceVersion of every child and Application, which any
 * write the server stored would have changed. The window is checked to hold several reconciles
 * of each Application (a short resync), so quiet means "planned and found nothing", not "idle".
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import type { ObjectRef, Resource, TenancyPolicy } from '../../core/internal.js';
import {
  applicationObject,
  applicationRef,
  executedActions,
  expectReady,
  readApplication,
  readExisting,
  reconcileLog,
  type ReconcileLog,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const QUIET_MS = 30_000;
const RESYNC_MS = 3_000;
const WRITES = new Set(['create', 'patch', 'recreate', 'delete']);

const quantities: ReadonlyArray<Resource> = [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'sized' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'sized' } },
      template: {
        metadata: { labels: { app: 'sized' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              resources: { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: 0.5, memory: 268435456 } },
            },
          ],
          initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { cpu: '1500u' } } }],
          volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '2048Mi' } }],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10240Mi' } } },
  },
  {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'quota' },
    spec: { hard: { 'requests.cpu': '2000m', 'limits.memory': '0.5Gi' } },
  },
  {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'limits' },
    spec: { limits: [{ type: 'Container', max: { cpu: '4000m', memory: '4096Mi' } }] },
  },
];

/** `kubectl create deployment web --image=nginx --dry-run=client -o yaml`, as kubectl prints it. */
const kubectlDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { creationTimestamp: null, labels: { app: 'web' }, name: 'web' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    strategy: {},
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'web' } },
      spec: { containers: [{ image: 'nginx', name: 'nginx', resources: {} }] },
    },
  },
  status: {},
} as unknown as Resource;

/** A pod spec with zero values at every depth: pod, container, port, volume mount, security context. */
const zeroPodSpec = (restartPolicy: string) => ({
  restartPolicy,
  hostNetwork: false,
  hostPID: false,
  automountServiceAccountToken: false,
  terminationGracePeriodSeconds: 0,
  containers: [
    {
      name: 'main',
      image: 'nginx:1.27',
      stdin: false,
      tty: false,
      workingDir: '',
      ports: [{ containerPort: 8080, hostPort: 0, hostIP: '' }],
      volumeMounts: [{ name: 'scratch', mountPath: '/scratch', readOnly: false, subPath: '' }],
      securityContext: { privileged: false, readOnlyRootFilesystem: false },
    },
  ],
  volumes: [{ name: 'scratch', emptyDir: {} }],
});

/** Children written with zero values; the PriorityClass (cluster-scoped) is named after the namespace. */
const zeroValues = (priorityClass: string): ReadonlyArray<Resource> => [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'zeros' },
    spec: {
      replicas: 0,
      minReadySeconds: 0,
      paused: false,
      revisionHistoryLimit: 0,
      selector: { matchLabels: { app: 'zeros' } },
      template: { metadata: { labels: { app: 'zeros' } }, spec: zeroPodSpec('Always') },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'zeros' },
    spec: {
      publishNotReadyAddresses: false,
      selector: { app: 'zeros' },
      ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 0 }],
    },
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: priorityClass },
    value: 0,
    globalDefault: false,
    description: '',
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'zeros' },
    spec: { suspend: false, backoffLimit: 0, manualSelector: false, template: { spec: zeroPodSpec('Never') } },
  },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'zeros' }, automountServiceAccountToken: false },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zeros' }, immutable: false, data: { a: '' } },
];

describeWithApiServer('non-canonical manifests converge on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator;
  let log: ReconcileLog;
  let priorityClass: string;

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-canonical-quiet'));
    priorityClass = `${namespace}-zeros`;
    const tenancy: TenancyPolicy = { clusterKinds: [{ from: namespace, kinds: ['scheduling.k8s.io/PriorityClass'] }] };
    log = reconcileLog();
    operator = await startOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      workers: 2,
      namespace,
      // No kubelet in the test control plane: children count as ready once they exist.
      readiness: 'existence',
      tenancy,
      resyncMs: RESYNC_MS,
      onReconciled: log.onReconciled,
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cluster?.delete({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', name: priorityClass })();
    await cleanup?.();
  });

  const resourceVersions = async (refs: ReadonlyArray<ObjectRef>): Promise<ReadonlyArray<string | undefined>> =>
    Promise.all(refs.map(async (ref) => (await readExisting(cluster, ref)).metadata.resourceVersion));

  it('become Ready, then write nothing for 30 s while being reconciled again and again', async () => {
    const applications = [
      { name: 'quantities', manifest: quantities },
      { name: 'kubectl', manifest: [kubectlDeployment] },
      { name: 'zero-values', manifest: zeroValues(priorityClass) },
    ];
    for (const { name, manifest } of applications)
      await must(cluster.create(applicationObject(namespace, name, manifest)));
    for (const { name } of applications)
      await eventually(
        async () => expectReady(await readApplication(cluster, applicationRef(namespace, name))),
        60_000,
      );

    const refs: ReadonlyArray<ObjectRef> = [
      ...applications.map(({ name }) => applicationRef(namespace, name)),
      ...[...quantities, kubectlDeployment, ...zeroValues(priorityClass)].map((child) => ({
        apiVersion: child.apiVersion,
        kind: child.kind,
        ...(child.kind === 'PriorityClass' ? {} : { namespace }),
        name: child.metadata.name,
      })),
    ];
    const before = await resourceVersions(refs);
    const logged = log.entries.length;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const window = log.entries.slice(logged);

    const writes = window.flatMap(({ key, result }) =>
      executedActions(result)
        .filter((action) => WRITES.has(action.type))
        .map(
          (action) => `${key}: ${action.type} ${action.ref.kind} ${action.ref.name} ${JSON.stringify(action.changes)}`,
        ),
    );
    expect(writes).toEqual([]);
    expect(await resourceVersions(refs)).toEqual(before);
    // Each Application was planned several times in the window (resync every 3 s): quiet, not idle.
    for (const { name } of applications)
      expect(window.filter(({ key }) => key === `${namespace}/${name}`).length).toBeGreaterThanOrEqual(3);
  }, 150_000);
});
