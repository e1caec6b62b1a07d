/**
 * Differential test of server-side printing: objects of every kind the memory server prints with a
 * printer of its own are created on the real kube-apiserver 1.36, read back as a Table with the
 * whole object in each row (`includeObject=Object`), and the memory server's printer is run on that
 * very object. Column definitions must be equal, and every cell but the ages (which depend on the
 * second the request was answered in). The objects are written the way users write them: empty
 * and zero values, placeholders' branches (no class, no selector, load balancers pending).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { builtinPrinter } from '../../adapters/memory/http/printers/index.js';
import { getIn, isJsonArray, isJsonObject, parseJsonText } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import { getJson, kubeconfigServer, type KubeconfigServer } from '../../tools/envtest/kubeconfig-client.js';
import { connect, describeWithApiServer, freshNamespace, must, uniqueName } from '../support/kubernetes-env.js';

const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const AGES = new Set(['Age', 'Last Seen', 'First Seen', 'Duration', 'Last Schedule']);

type Case = { readonly plural: string; readonly namespaced: boolean; readonly object: (ns: string) => object };

const template = { metadata: { labels: { app: 'p' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } };
const selector = { matchLabels: { app: 'p' } };
const meta = (name: string, ns?: string, extra: object = {}): object => ({
  name,
  ...(ns === undefined ? {} : { namespace: ns }),
  ...extra,
});

const cases: ReadonlyArray<Case> = [
  {
    plural: 'configmaps',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('cm', ns),
      data: { a: '', b: '0' },
      binaryData: { c: 'AA==' },
    }),
  },
  {
    plural: 'secrets',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta('s', ns),
      type: 'kubernetes.io/basic-auth',
      stringData: { username: 'u', password: 'p' },
    }),
  },
  {
    plural: 'serviceaccounts',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta('sa', ns),
      automountServiceAccountToken: false,
    }),
  },
  {
    plural: 'services',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('np', ns),
      spec: {
        type: 'NodePort',
        selector: { b: '2', a: '1' },
        ports: [
          { name: 'h', port: 80, targetPort: 8080 },
          { name: 'd', port: 53, protocol: 'UDP' },
        ],
      },
    }),
  },
  {
    plural: 'services',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('lb', ns),
      spec: { type: 'LoadBalancer', externalIPs: ['192.0.2.7'], ports: [{ port: 443 }] },
    }),
  },
  {
    plural: 'services',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('headless', ns),
      spec: { clusterIP: 'None', ports: [{ port: 80 }] },
    }),
  },
  {
    plural: 'services',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('ext', ns),
      spec: { type: 'ExternalName', externalName: 'db.example.com' },
    }),
  },
  {
    plural: 'persistentvolumeclaims',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta('data', ns),
      spec: {
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        resources: { requests: { storage: '1Gi' } },
        storageClassName: 'none-such',
      },
    }),
  },
  {
    plural: 'pods',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('pod', ns),
      spec: {
        initContainers: [{ name: 'i', image: 'busybox', restartPolicy: 'Always' }],
        containers: [{ name: 'c', image: 'busybox' }],
        readinessGates: [{ conditionType: 'example.com/gate' }],
      },
    }),
  },
  {
    plural: 'replicationcontrollers',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: meta('rc', ns),
      spec: { replicas: 0, selector: { app: 'p' }, template },
    }),
  },
  {
    plural: 'deployments',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('web', ns),
      spec: {
        replicas: 0,
        minReadySeconds: 0,
        selector: { ...selector, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['z', 'b'] }] },
        template,
      },
    }),
  },
  {
    plural: 'replicasets',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: meta('rs', ns),
      spec: { replicas: 0, selector, template },
    }),
  },
  {
    plural: 'statefulsets',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta('db', ns),
      spec: { replicas: 0, serviceName: 'db', selector, template },
    }),
  },
  {
    plural: 'daemonsets',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta('agent', ns),
      spec: {
        selector,
        template: {
          ...template,
          spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' } },
        },
      },
    }),
  },
  {
    plural: 'jobs',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: meta('once', ns),
      spec: { suspend: true, parallelism: 3, template: { spec: { ...template.spec, restartPolicy: 'Never' } } },
    }),
  },
  {
    plural: 'cronjobs',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta('nightly', ns),
      spec: {
        schedule: '0 3 * * *',
        timeZone: 'Etc/UTC',
        suspend: false,
        jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'OnFailure' } } } },
      },
    }),
  },
  {
    plural: 'ingresses',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta('ing', ns),
      spec: {
        tls: [{ hosts: ['a.example.com'] }],
        rules: ['a', '', 'c', 'd'].map((h) => ({
          ...(h === '' ? {} : { host: `${h}.example.com` }),
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }],
          },
        })),
      },
    }),
  },
  {
    plural: 'networkpolicies',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta('deny', ns),
      spec: { podSelector: {} },
    }),
  },
  {
    plural: 'rolebindings',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta('rb', ns),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'ServiceAccount', name: 'sa', namespace: ns },
        { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' },
      ],
    }),
  },
  {
    plural: 'roles',
    namespaced: true,
    object: (ns) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta('r', ns), rules: [] }),
  },
  {
    plural: 'poddisruptionbudgets',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta('pdb', ns),
      spec: { minAvailable: '50%', selector },
    }),
  },
  {
    plural: 'horizontalpodautoscalers',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta('hpa', ns),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 1,
        maxReplicas: 4,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
          { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
          { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } },
        ],
      },
    }),
  },
  {
    plural: 'events',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: meta('web.1', ns),
      involvedObject: { kind: 'Deployment', name: 'web', namespace: ns, fieldPath: 'spec.containers{c}' },
      reason: 'Scaled',
      message: ' Scaled up \n',
      type: 'Normal',
      source: { component: 'kreconcile', host: 'node-1' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:01:00Z',
      count: 3,
    }),
  },
];

const clusterCases: ReadonlyArray<Case> = [
  {
    plural: 'priorityclasses',
    namespaced: false,
    object: () => ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: meta(uniqueName('pc')),
      value: 1000,
      globalDefault: false,
      preemptionPolicy: 'Never',
    }),
  },
  {
    plural: 'storageclasses',
    namespaced: false,
    object: () => ({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: meta(uniqueName('sc'), undefined, {
        annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' },
      }),
      provisioner: 'example.com/none',
      reclaimPolicy: 'Retain',
      allowVolumeExpansion: true,
    }),
  },
  {
    plural: 'clusterrolebindings',
    namespaced: false,
    object: () => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta(uniqueName('crb')),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [],
    }),
  },
];

/** A test object literal as the Resource it is (literal types are narrower than JSON's). */
const resourceOf = (literal: object): Resource => {
  const value = parseJsonText(JSON.stringify(literal));
  if (!isJsonObject(value) || !isJsonObject(value.metadata) || typeof value.apiVersion !== 'string')
    throw new Error('not a resource');
  const { apiVersion, kind, metadata } = value;
  if (typeof kind !== 'string' || typeof metadata.name !== 'string') throw new Error('not a resource');
  return {
    ...value,
    apiVersion,
    kind,
    metadata: {
      ...metadata,
      name: metadata.name,
      ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}),
    },
  };
};

const groupVersionOf = (apiVersion: string): readonly [string, string] => {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return [group ?? '', version ?? ''];
};

const tablePath = (object: Resource, plural: string): string => {
  const [group, version] = groupVersionOf(object.apiVersion);
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const ns = object.metadata.namespace === undefined ? '' : `/namespaces/${object.metadata.namespace}`;
  return `${prefix}${ns}/${plural}/${object.metadata.name}?includeObject=Object`;
};

describeWithApiServer('server-side printing: memory printers against kube-apiserver (differential)', (env) => {
  const cluster = connect(env);
  let server: KubeconfigServer;
  let namespace: { namespace: string; cleanup(): Promise<void> };
  const created: Resource[] = [];
  beforeAll(async () => {
    server = kubeconfigServer(env.kubeconfigPath);
    namespace = await freshNamespace(cluster, 'kr-printers');
  });
  afterAll(async () => {
    for (const object of created.filter((o) => o.metadata.namespace === undefined))
      await cluster.delete({ apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name })();
    await namespace.cleanup();
  });

  it.each([...cases, ...clusterCases].map((c, i) => [`${i}: ${c.plural}`, c] as const))('%s', async (_, c) => {
    const object = resourceOf(c.object(namespace.namespace));
    await must(cluster.create(object));
    created.push(object);
    const table = await getJson(server, tablePath(object, c.plural), TABLE);
    if (!isJsonObject(table) || !isJsonArray(table.rows) || !isJsonObject(table.rows[0])) throw new Error('no row');
    const [group, version] = groupVersionOf(object.apiVersion);
    const printer = builtinPrinter(group, version, c.plural, object.kind);
    expect(printer.columns).toEqual(table.columnDefinitions);
    const stored = getIn(table.rows[0], ['object']);
    if (!isJsonObject(stored)) throw new Error('no object in the row');
    const ours = printer.row(stored, Date.now());
    const theirs = getIn(table.rows[0], ['cells']);
    const names = printer.columns.map((column) => column.name);
    const comparable = (cells: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
      cells.map((cell, i) => (AGES.has(names[i] ?? '') ? '(age)' : cell));
    expect(comparable(ours)).toEqual(comparable(isJsonArray(theirs) ? theirs : []));
    expect(printer.conditions?.(stored) ?? []).toEqual(getIn(table.rows[0], ['conditions']) ?? []);
  });
});
