/** Manifests of the whole-object contract: what a user writes, one per kind (and per notable variant). */
import type { JsonObject } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';

const template = (app: string): JsonObject => ({
  metadata: { labels: { app } },
  spec: {
    containers: [
      {
        name: 'c',
        image: 'app:1',
        ports: [{ containerPort: 80 }],
        env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        readinessProbe: { httpGet: { port: 80 } },
        volumeMounts: [{ name: 'config', mountPath: '/config' }],
      },
      { name: 'sidecar', image: 'proxy', resources: { limits: { cpu: '100m' } } },
    ],
    volumes: [
      { name: 'config', configMap: { name: 'config' } },
      { name: 'host', hostPath: { path: '/var/log' } },
    ],
  },
});

const workload = (kind: string, name: string, namespace: string, spec: JsonObject = {}): Resource => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace },
  spec: { selector: { matchLabels: { app: name } }, template: template(name), ...spec },
});

/** Each manifest in a given namespace; names are fixed (the namespace is fresh per run). */
export const manifests: Readonly<Record<string, (namespace: string) => Resource>> = {
  deployment: (ns) => workload('Deployment', 'deployment', ns),
  deploymentRecreate: (ns) => workload('Deployment', 'recreate', ns, { strategy: { type: 'Recreate' }, replicas: 0 }),
  statefulSet: (ns) =>
    workload('StatefulSet', 'stateful', ns, {
      serviceName: 'stateful',
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    }),
  daemonSet: (ns) => workload('DaemonSet', 'daemon', ns),
  replicaSet: (ns) => workload('ReplicaSet', 'replicas', ns),
  job: (ns) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'job', namespace: ns },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'app' }] } } },
  }),
  workQueueJob: (ns) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'queue', namespace: ns, labels: { team: 'a' } },
    spec: {
      parallelism: 3,
      template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'app:2' }] } },
    },
  }),
  cronJob: (ns) => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cron', namespace: ns },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'app' }] } } },
      },
    },
  }),
  service: (ns) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: ns },
    spec: {
      selector: { app: 'deployment' },
      ports: [
        { name: 'http', port: 80 },
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 },
      ] as JsonObject[],
    },
  }),
  nodePortService: (ns) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'nodeport', namespace: ns },
    spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] },
  }),
  loadBalancerService: (ns) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'balanced', namespace: ns },
    spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 443, targetPort: 'https' }] },
  }),
  externalNameService: (ns) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'external', namespace: ns },
    spec: { type: 'ExternalName', externalName: 'db.example.com' },
  }),
  headlessService: (ns) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'headless', namespace: ns },
    spec: { clusterIP: 'None', selector: { app: 'x' } },
  }),
  configMap: (ns) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'config', namespace: ns },
    data: { key: 'value' },
  }),
  secret: (ns) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'secret', namespace: ns },
    stringData: { password: 'hunter2' },
  }),
  serviceAccount: (ns) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: ns } }),
  persistentVolumeClaim: (ns) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim', namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }),
  role: (ns) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'reader', namespace: ns },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
  }),
  roleBinding: (ns) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'reader', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    subjects: [
      { kind: 'ServiceAccount', name: 'robot' },
      { kind: 'User', name: 'jane' },
      { kind: 'Group', name: 'devs' },
    ],
  }),
  ingress: (ns) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', namespace: ns },
    spec: {
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
          },
        },
      ],
    },
  }),
  networkPolicy: (ns) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'deny', namespace: ns },
    spec: { podSelector: {}, egress: [{}] },
  }),
  podDisruptionBudget: (ns) => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'budget', namespace: ns },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'deployment' } } },
  }),
  horizontalPodAutoscaler: (ns) => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'scale', namespace: ns },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deployment' }, maxReplicas: 3 },
  }),
  limitRange: (ns) => ({
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'limits', namespace: ns },
    spec: { limits: [{ type: 'Container', max: { memory: '1Gi' }, default: { cpu: '1' }, min: { cpu: '10m' } }] },
  }),
  resourceQuota: (ns) => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'quota', namespace: ns },
    spec: { hard: { pods: '10' } },
  }),
  lease: (ns) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'leader', namespace: ns },
    spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
  }),
  endpointSlice: (ns) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'slice', namespace: ns },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.1.1.1'] }],
    ports: [{ port: 80 }],
  }),
  endpoints: (ns) => ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'manual', namespace: ns },
    subsets: [{ addresses: [{ ip: '10.1.1.1' }], ports: [{ port: 80 }] }],
  }),
  podTemplate: (ns) => ({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'template', namespace: ns },
    template: { spec: { containers: [{ name: 'c', image: 'app' }] } },
  }),
};
