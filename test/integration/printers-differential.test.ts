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

type Case = {
  readonly plural: string;
  readonly namespaced: boolean;
  readonly object: (ns: string) => object;
  /** Written through the status subresource after the create (which drops status). */
  readonly status?: object;
};

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
  {
    plural: 'leases',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: meta('held', ns),
      spec: { holderIdentity: 'operator-0_1234', leaseDurationSeconds: 15 },
    }),
  },
  {
    plural: 'leases',
    namespaced: true,
    object: (ns) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta('free', ns), spec: {} }),
  },
  {
    plural: 'endpointslices',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: meta('web-abcde', ns),
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 80 }, { name: 'named' }, {}, { name: 'metrics', port: 9090 }],
      endpoints: [
        { addresses: ['10.1.0.1', '10.1.0.2'] },
        { addresses: ['10.1.0.3'], conditions: { ready: false } },
        { addresses: ['10.1.0.4'] },
      ],
    }),
  },
  {
    plural: 'endpointslices',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: meta('empty-fghij', ns),
      addressType: 'FQDN',
      ports: [],
      endpoints: [],
    }),
  },
  {
    plural: 'resourcequotas',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: meta('q', ns),
      spec: { hard: { pods: '10', 'limits.cpu': '4', 'requests.memory': '1Gi', 'limits.memory': '2Gi', cpu: '2' } },
    }),
    // Written as the quota controller would (the shared server runs none).
    status: {
      hard: { pods: '10', 'limits.cpu': '4', 'requests.memory': '1Gi', 'limits.memory': '2Gi', cpu: '2' },
      used: { pods: '3', 'limits.cpu': '1500m', cpu: '0' },
    },
  },
  {
    plural: 'resourcequotas',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: meta('fresh', ns),
      spec: { hard: { pods: '1' } },
    }),
  },
  {
    plural: 'endpoints',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: meta('web', ns),
      subsets: [
        {
          addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }],
          ports: [
            { name: 'http', port: 80 },
            { name: 'metrics', port: 9090 },
          ],
        },
        { addresses: [{ ip: 'fd00::1' }], ports: [{ port: 443 }] },
      ],
    }),
  },
  {
    plural: 'endpoints',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: meta('headless', ns),
      subsets: [{ addresses: [{ ip: '10.1.0.9' }] }],
    }),
  },
  {
    plural: 'endpoints',
    namespaced: true,
    object: (ns) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: meta('none', ns) }),
  },
  {
    plural: 'podtemplates',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: meta('tpl', ns),
      template: {
        metadata: { labels: { b: '2', a: '1' } },
        spec: {
          containers: [
            { name: 'one', image: 'busybox:1.36' },
            { name: 'two', image: 'nginx:1.27' },
          ],
        },
      },
    }),
  },
  {
    plural: 'controllerrevisions',
    namespaced: true,
    object: (ns) => ({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: meta('web-5d8c', ns),
      data: { spec: {} },
      revision: 7,
    }),
  },
];

/** Matches no object: the webhooks below must never be called by the shared server. */
const noObjects = { matchLabels: { 'kreconcile.io/printers-test': 'never' } };
const webhook = (name: string): object => ({
  name,
  clientConfig: { url: 'https://webhook.invalid/check' },
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  failurePolicy: 'Ignore',
  objectSelector: noObjects,
  rules: [],
});

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
  {
    plural: 'nodes',
    namespaced: false,
    object: () => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta(uniqueName('node'), undefined, {
        labels: {
          'node-role.kubernetes.io/worker': '',
          'node-role.kubernetes.io/edge': 'x',
          'kubernetes.io/role': 'db',
        },
      }),
      spec: { unschedulable: true },
    }),
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'False', reason: 'KubeletNotReady' },
      ],
      addresses: [
        { type: 'Hostname', address: 'n1' },
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'InternalIP', address: '10.0.0.6' },
        { type: 'ExternalIP', address: '203.0.113.5' },
      ],
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '6.1.0',
        osImage: '',
        containerRuntimeVersion: 'containerd://2.0.0',
        kubeletVersion: 'v1.36.3',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'arm64',
      },
    },
  },
  {
    plural: 'nodes',
    namespaced: false,
    object: () => ({ apiVersion: 'v1', kind: 'Node', metadata: meta(uniqueName('bare-node')) }),
  },
  {
    plural: 'persistentvolumes',
    namespaced: false,
    object: () => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: meta(uniqueName('pv')),
      spec: {
        capacity: { storage: '1024Mi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'slow',
        volumeMode: 'Block',
        claimRef: { namespace: 'shop', name: 'data' },
        hostPath: { path: '/tmp/kreconcile-printers' },
      },
    }),
    status: { phase: 'Failed', reason: 'Recycled', message: 'recycler failed' },
  },
  {
    plural: 'persistentvolumes',
    namespaced: false,
    object: () => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: meta(uniqueName('pv-beta'), undefined, {
        annotations: { 'volume.beta.kubernetes.io/storage-class': 'beta' },
      }),
      spec: {
        capacity: { storage: '2Gi' },
        accessModes: ['ReadOnlyMany'],
        storageClassName: 'ignored',
        hostPath: { path: '/tmp/kreconcile-printers' },
      },
    }),
  },
  {
    plural: 'ingressclasses',
    namespaced: false,
    object: () => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: meta(uniqueName('ic'), undefined, {
        annotations: { 'ingressclass.kubernetes.io/is-default-class': 'false' },
      }),
      spec: {
        controller: 'example.com/ingress',
        parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'p', scope: 'Cluster' },
      },
    }),
  },
  {
    plural: 'ingressclasses',
    namespaced: false,
    object: () => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: meta(uniqueName('ic-core'), undefined, {
        annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
      }),
      spec: { controller: 'example.com/ingress', parameters: { kind: 'ConfigMap', name: 'p', scope: 'Cluster' } },
    }),
  },
  {
    plural: 'runtimeclasses',
    namespaced: false,
    object: () => ({
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: meta(uniqueName('rc')),
      handler: 'runsc',
    }),
  },
  {
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
    object: () => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: meta(uniqueName('vwc')),
      webhooks: [webhook('a.printers.kreconcile.io'), webhook('b.printers.kreconcile.io')],
    }),
  },
  {
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
    object: () => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: meta(uniqueName('mwc')),
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
    if (c.status !== undefined) {
      const body = parseJsonText(JSON.stringify({ status: c.status }));
      if (!isJsonObject(body)) throw new Error('not a status');
      const { apiVersion, kind, metadata } = object;
      const ref = {
        apiVersion,
        kind,
        name: metadata.name,
        ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
      };
      await must(cluster.patchStatus(ref, { type: 'merge', body }));
    }
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
