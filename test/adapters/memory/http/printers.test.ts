/**
 * The built-in printers' rows for stored objects, as kube-apiserver 1.36's printers compute them
 * (pkg/printers/internalversion). The same rows are compared with the real server's Tables by
 * test/integration/printers-differential.test.ts; these cases pin the placeholders and the
 * branches a fresh cluster rarely reaches (init containers, restarts, load balancers, HPA metrics).
 */
import { describe, expect, it } from 'vitest';
import { builtinPrinter } from '../../../../adapters/memory/http/printers/index.js';
import { isJsonObject, parseJsonText, type JsonObject } from '../../../../core/json/json.js';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const created = { creationTimestamp: '2026-12-02T11:00:00Z' };

/** Test objects as the JSON they stand for (their literal types are narrower than JsonObject). */
const json = (object: object): JsonObject => {
  const value = parseJsonText(JSON.stringify(object));
  if (!isJsonObject(value)) throw new Error('not an object');
  return value;
};

const rowOf = (group: string, version: string, plural: string, kind: string, object: object): unknown[] => {
  const printer = builtinPrinter(group, version, plural, kind);
  const row = printer.row(json(object), NOW);
  expect(row).toHaveLength(printer.columns.length);
  return [...row];
};

describe('built-in printers', () => {
  it('Deployment: READY ready/desired, counts, age, containers, images and the selector', () => {
    const deployment = {
      metadata: { name: 'web', ...created },
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'nginx:1' },
              { name: 'side', image: 'envoy:2' },
            ],
          },
        },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(rowOf('apps', 'v1', 'deployments', 'Deployment', deployment)).toEqual([
      'web',
      '2/3',
      3,
      2,
      '60m',
      'app,side',
      'nginx:1,envoy:2',
      'app=web,tier in (a,b)',
    ]);
  });

  it('Service: cluster IP, external IPs by type, ports with node ports, selector', () => {
    const service = (type: string, extra: object = {}): object => ({
      metadata: { name: 's', ...created },
      spec: {
        type,
        clusterIPs: ['10.96.0.10'],
        ports: [
          { port: 80, protocol: 'TCP', nodePort: 30080 },
          { port: 53, protocol: 'UDP' },
        ],
        selector: { b: '2', a: '1' },
        ...extra,
      },
    });
    expect(rowOf('', 'v1', 'services', 'Service', service('NodePort'))).toEqual([
      's',
      'NodePort',
      '10.96.0.10',
      '<none>',
      '80:30080/TCP,53/UDP',
      '60m',
      'a=1,b=2',
    ]);
    expect(rowOf('', 'v1', 'services', 'Service', service('LoadBalancer'))[3]).toBe('<pending>');
    const balanced = {
      ...service('LoadBalancer'),
      status: { loadBalancer: { ingress: [{ hostname: 'b.example' }, { ip: '1.2.3.4' }] } },
    };
    expect(rowOf('', 'v1', 'services', 'Service', balanced)[3]).toBe('1.2.3.4,b.example');
    expect(rowOf('', 'v1', 'services', 'Service', service('ExternalName', { externalName: 'db.example' }))[3]).toBe(
      'db.example',
    );
  });

  it('Pod: init containers, waiting reasons and restarts with the age of the last one', () => {
    const pod = {
      metadata: { name: 'p', ...created },
      spec: { initContainers: [{ name: 'init' }], containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'init', restartCount: 0, state: { terminated: { exitCode: 0 } } }],
        containerStatuses: [
          {
            name: 'a',
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { exitCode: 1, finishedAt: '2026-12-02T11:55:00Z' } },
          },
          { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
        podIPs: [{ ip: '10.244.0.7' }],
      },
    };
    expect(rowOf('', 'v1', 'pods', 'Pod', pod)).toEqual([
      'p',
      '1/2',
      'CrashLoopBackOff',
      '3 (5m ago)',
      '60m',
      '10.244.0.7',
      '<none>',
      '<none>',
      '<none>',
    ]);
    const initialising = {
      ...pod,
      status: {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'ImagePullBackOff' } } }],
      },
    };
    expect(rowOf('', 'v1', 'pods', 'Pod', initialising).slice(1, 4)).toEqual(['0/2', 'Init:ImagePullBackOff', '0']);
    const printer = builtinPrinter('', 'v1', 'pods', 'Pod');
    expect(printer.conditions?.(json({ ...pod, status: { phase: 'Succeeded' } }))).toEqual([
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
  });

  it('Job and CronJob: status by condition, completions, duration, schedule and placeholders', () => {
    const job = {
      metadata: { name: 'j', ...created },
      spec: { completions: 2, parallelism: 2, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      status: {
        succeeded: 2,
        startTime: '2026-12-02T11:00:00Z',
        completionTime: '2026-12-02T11:01:30Z',
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    };
    expect(rowOf('batch', 'v1', 'jobs', 'Job', job).slice(0, 4)).toEqual(['j', 'Complete', '2/2', '90s']);
    const cron = { metadata: { name: 'c', ...created }, spec: { schedule: '0 3 * * *', suspend: false } };
    expect(rowOf('batch', 'v1', 'cronjobs', 'CronJob', cron).slice(0, 6)).toEqual([
      'c',
      '0 3 * * *',
      '<none>',
      'False',
      0,
      '<none>',
    ]);
  });

  it('ConfigMap, Secret, Event, PVC, HPA, StorageClass, PriorityClass and bindings', () => {
    expect(
      rowOf('', 'v1', 'configmaps', 'ConfigMap', {
        metadata: { name: 'c', ...created },
        data: { a: '1' },
        binaryData: { b: 'AA==' },
      }),
    ).toEqual(['c', 2, '60m']);
    expect(
      rowOf('', 'v1', 'secrets', 'Secret', {
        metadata: { name: 's', ...created },
        type: 'Opaque',
        data: { k: 'dg==' },
      }),
    ).toEqual(['s', 'Opaque', 1, '60m']);
    const event = {
      metadata: { name: 'e.1' },
      involvedObject: { kind: 'Deployment', name: 'web' },
      reason: 'Scaled',
      type: 'Normal',
      message: ' up \n',
      firstTimestamp: '2026-12-02T11:58:00Z',
      lastTimestamp: null,
      count: 0,
      source: { component: 'deployment-controller' },
    };
    expect(rowOf('', 'v1', 'events', 'Event', event)).toEqual([
      '2m',
      'Normal',
      'Scaled',
      'deployment/web',
      '',
      'deployment-controller',
      'up',
      '2m',
      1,
      'e.1',
    ]);
    const claim = {
      metadata: { name: 'data', ...created },
      spec: { storageClassName: 'fast' },
      status: { phase: 'Pending' },
    };
    expect(rowOf('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', claim)).toEqual([
      'data',
      'Pending',
      '',
      '',
      '',
      'fast',
      '<unset>',
      '60m',
      '<unset>',
    ]);
    const hpa = {
      metadata: { name: 'h', ...created },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        maxReplicas: 5,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        ],
      },
      status: {
        currentReplicas: 2,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 41 } } }],
      },
    };
    expect(rowOf('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', hpa)).toEqual([
      'h',
      'Deployment/web',
      'cpu: 41%/80%',
      '<unset>',
      5,
      2,
      '60m',
    ]);
    const storage = {
      metadata: { name: 'fast', ...created, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'csi.example',
    };
    expect(rowOf('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', storage)).toEqual([
      'fast (default)',
      'csi.example',
      'Delete',
      'Immediate',
      false,
      '60m',
    ]);
    const binding = {
      metadata: { name: 'b', ...created },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' },
        { kind: 'Group', name: 'devs' },
      ],
    };
    expect(rowOf('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', binding)).toEqual([
      'b',
      'ClusterRole/view',
      '60m',
      'alice',
      'devs',
      'ns/sa',
    ]);
  });

  it('Node: status from the last Ready condition, sorted roles, first addresses, <unknown> placeholders', () => {
    const node = {
      metadata: {
        name: 'n1',
        ...created,
        labels: { 'node-role.kubernetes.io/b': '', 'node-role.kubernetes.io/a': '', 'kubernetes.io/role': 'a' },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        nodeInfo: { kubeletVersion: 'v1.36.3', architecture: 'amd64' },
      },
    };
    expect(rowOf('', 'v1', 'nodes', 'Node', node)).toEqual([
      'n1',
      'Ready,SchedulingDisabled',
      'a,b',
      '60m',
      'v1.36.3',
      '10.0.0.1',
      '<none>',
      '<unknown>',
      '<unknown> (amd64)',
      '<unknown>',
    ]);
    const bare = { metadata: { name: 'n2', ...created } };
    expect(rowOf('', 'v1', 'nodes', 'Node', bare).slice(0, 3)).toEqual(['n2', 'Unknown', '<none>']);
  });

  it('EndpointSlice: three ports and addresses, then "+ N more...", <unset> for none; webhook counts; lease holder', () => {
    const slice = {
      metadata: { name: 's', ...created },
      addressType: 'IPv6',
      ports: [{ port: 1 }, { name: 'two' }, {}, { port: 4 }, { port: 5 }],
      endpoints: [{ addresses: ['::1', '::2'] }, { addresses: ['::3', '::4'] }, {}],
    };
    expect(rowOf('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', slice)).toEqual([
      's',
      'IPv6',
      '1,two,* + 2 more...',
      '::1,::2,::3 + 1 more...',
      '60m',
    ]);
    const empty = { metadata: { name: 'e', ...created }, addressType: 'FQDN' };
    expect(rowOf('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', empty).slice(2, 4)).toEqual([
      '<unset>',
      '<unset>',
    ]);
    const hooks = { metadata: { name: 'w', ...created }, webhooks: [{ name: 'a' }, { name: 'b' }] };
    const group = 'admissionregistration.k8s.io';
    expect(rowOf(group, 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', hooks)).toEqual([
      'w',
      2,
      '60m',
    ]);
    const lease = { metadata: { name: 'l', ...created }, spec: { holderIdentity: 'me' } };
    expect(rowOf('coordination.k8s.io', 'v1', 'leases', 'Lease', lease)).toEqual(['l', 'me', '60m']);
  });

  it('PersistentVolume: capacity, modes in a fixed order, claim, the beta class annotation first, Terminating', () => {
    const volume = {
      metadata: {
        name: 'pv',
        ...created,
        deletionTimestamp: '2026-12-02T11:30:00Z',
        annotations: { 'volume.beta.kubernetes.io/storage-class': 'beta' },
      },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'ignored',
        claimRef: { namespace: 'ns', name: 'c' },
      },
      status: { phase: 'Bound' },
    };
    expect(rowOf('', 'v1', 'persistentvolumes', 'PersistentVolume', volume)).toEqual([
      'pv',
      '1Gi',
      'RWO,RWOP',
      'Delete',
      'Terminating',
      'ns/c',
      'beta',
      '<unset>',
      '',
      '60m',
      '<unset>',
    ]);
  });

  it('ControllerRevision names its controller as kind.group/name; Endpoints past three addresses say how many more', () => {
    const revision = {
      metadata: {
        name: 'web-1',
        ...created,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'not-the-controller' },
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', controller: true },
        ],
      },
      revision: 2,
    };
    expect(rowOf('apps', 'v1', 'controllerrevisions', 'ControllerRevision', revision)).toEqual([
      'web-1',
      'statefulset.apps/web',
      2,
      '60m',
    ]);
    const endpoints = {
      metadata: { name: 'e', ...created },
      subsets: [
        { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 81 }] },
        { addresses: [{ ip: '::1' }] },
      ],
    };
    expect(rowOf('', 'v1', 'endpoints', 'Endpoints', endpoints)).toEqual([
      'e',
      '10.0.0.1:80,10.0.0.2:80,10.0.0.1:81 + 2 more...',
      '60m',
    ]);
  });

  it('a kind without a printer of its own gets the default convertor (Name, Created At)', () => {
    const role = { metadata: { name: 'r', creationTimestamp: '2026-12-02T11:00:00Z' } };
    const printer = builtinPrinter('rbac.authorization.k8s.io', 'v1', 'roles', 'Role');
    expect(printer.columns.map((c) => c.name)).toEqual(['Name', 'Created At']);
    expect(printer.row(role, NOW)).toEqual(['r', '2026-12-02T11:00:00Z']);
  });
});
