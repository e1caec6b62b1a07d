/** Realistic resources for benchmarks: what the user writes, and what the API server returns for it. */
import type { Resource } from '../core/internal.js';

const managedFields = (manager: string) => [
  {
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    manager,
    operation: 'Update',
    time: '2026-11-01T10:00:00Z',
    fieldsV1: {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:template': {
          'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    },
  },
];

const serverMetadata = (name: string, namespace: string, index: number) => ({
  uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
  resourceVersion: String(1000 + index),
  generation: 1,
  creationTimestamp: '2026-11-01T10:00:00Z',
  managedFields: managedFields('kreconcile'),
  name,
  namespace,
});

export const deploymentSpec = (name: string): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name, 'app.kubernetes.io/name': name } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27.2',
            ports: [{ containerPort: 8080, name: 'http' }],
            env: [
              { name: 'MODE', value: 'production' },
              { name: 'LOG_LEVEL', value: 'info' },
            ],
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          },
        ],
      },
    },
  },
});

export const serviceSpec = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, labels: { app: name } },
  spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
});

export const configMapSpec = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels: { app: name } },
  data: { 'app.properties': 'mode=production\nlog.level=info\n', 'feature-flags.json': '{"beta":false}' },
});

const ownerMarks = (labels: object, owner: string) => ({
  labels: { ...labels, 'app.kubernetes.io/managed-by': 'kreconcile' },
  annotations: { 'kreconcile.io/owner': owner },
});

/** The object as the API server returns it: defaults, status and managedFields added. */
export const asServed = (resource: Resource, namespace: string, index: number, owner: string): Resource => {
  const r = resource as unknown as {
    kind: string;
    metadata: { name: string; labels: object };
    spec?: Record<string, unknown>;
  };
  const metadata = { ...serverMetadata(r.metadata.name, namespace, index), ...ownerMarks(r.metadata.labels, owner) };
  if (r.kind === 'Deployment') {
    const spec = r.spec as {
      template: { metadata: object; spec: { containers: Array<Record<string, unknown>> } };
    } & Record<string, unknown>;
    return {
      ...resource,
      metadata,
      spec: {
        ...spec,
        progressDeadlineSeconds: 600,
        revisionHistoryLimit: 10,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          metadata: spec.template.metadata,
          spec: {
            containers: spec.template.spec.containers.map((c) => ({
              ...c,
              imagePullPolicy: 'IfNotPresent',
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
            })),
            dnsPolicy: 'ClusterFirst',
            restartPolicy: 'Always',
            schedulerName: 'default-scheduler',
            securityContext: {},
            terminationGracePeriodSeconds: 30,
          },
        },
      },
      status: {
        availableReplicas: 3,
        readyReplicas: 3,
        replicas: 3,
        updatedReplicas: 3,
        observedGeneration: 1,
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'MinimumReplicasAvailable',
            message: 'Deployment has minimum availability.',
            lastTransitionTime: '2026-11-01T10:00:10Z',
            lastUpdateTime: '2026-11-01T10:00:10Z',
          },
          {
            type: 'Progressing',
            status: 'True',
            reason: 'NewReplicaSetAvailable',
            message: 'ReplicaSet has successfully progressed.',
            lastTransitionTime: '2026-11-01T10:00:00Z',
            lastUpdateTime: '2026-11-01T10:00:10Z',
          },
        ],
      },
    } as unknown as Resource;
  }
  if (r.kind === 'Service') {
    const spec = r.spec as { ports: Array<Record<string, unknown>> } & Record<string, unknown>;
    return {
      ...resource,
      metadata,
      spec: {
        ...spec,
        clusterIP: `10.0.${index % 250}.${(index >> 8) % 250}`,
        clusterIPs: [`10.0.${index % 250}.${(index >> 8) % 250}`],
        internalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        sessionAffinity: 'None',
        type: 'ClusterIP',
        ports: spec.ports.map((p) => ({ ...p, protocol: 'TCP' })),
      },
      status: { loadBalancer: {} },
    };
  }
  return { ...resource, metadata };
};
