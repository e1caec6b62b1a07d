/**
 * Least-privilege RBAC for the operator: its own API (Applications, status, finalizers), Events,
 * the leader Lease, and exactly the child kinds the given Applications use.
 */
import { groupOf, type Resource } from '../../core/index.js';
import { shardingLeaseNames } from '../runtime/sharding/lease-names.js';

export type ChildKind = { readonly apiVersion: string; readonly kind: string; readonly plural?: string };

/** Plurals of the built-in kinds whose plural is not the lower-cased kind + "s". */
const IRREGULAR: Readonly<Record<string, string>> = {
  Endpoints: 'endpoints', NetworkPolicy: 'networkpolicies', PodSecurityPolicy: 'podsecuritypolicies', Ingress: 'ingresses',
  IngressClass: 'ingressclasses', StorageClass: 'storageclasses', PriorityClass: 'priorityclasses', RuntimeClass: 'runtimeclasses',
};

/** The REST resource name of a kind (discovery knows better; this matches every built-in kind). */
export const pluralOf = (kind: string): string => {
  const irregular = IRREGULAR[kind];
  if (irregular !== undefined) return irregular;
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
};

/** Child kinds used when none are given: the kinds of the examples (web apps). */
export const defaultChildKinds: ReadonlyArray<ChildKind> = [
  { apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'v1', kind: 'Secret' }, { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount' }, { apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
];

const CHILD_VERBS = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

const childRules = (kinds: ReadonlyArray<ChildKind>) => {
  const byGroup = new Map<string, Set<string>>();
  for (const kind of kinds) {
    const group = groupOf(kind.apiVersion);
    const resources = byGroup.get(group) ?? new Set<string>();
    resources.add(kind.plural ?? pluralOf(kind.kind));
    byGroup.set(group, resources);
  }
  return [...byGroup].sort(([a], [b]) => a.localeCompare(b)).map(([group, resources]) => ({ apiGroups: [group], resources: [...resources].sort(), verbs: CHILD_VERBS }));
};

/**
 * With `--sharding lease --shards n`: a Role in the operator namespace to list and watch its Leases
 * and update only the shard and member Leases by name (create cannot be restricted by name).
 */
export const shardingRbac = (namespace: string, shards: number): ReadonlyArray<Resource> => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'kreconcile-sharding', namespace },
    rules: [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [...shardingLeaseNames(shards)], verbs: ['update'] },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'kreconcile-sharding', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kreconcile-sharding' },
    subjects: [{ kind: 'ServiceAccount', name: 'kreconcile', namespace }],
  },
] as unknown as ReadonlyArray<Resource>;

/** ServiceAccount, ClusterRole and ClusterRoleBinding for the operator in `namespace`. */
export const operatorRbac = (namespace: string, kinds: ReadonlyArray<ChildKind> = defaultChildKinds): ReadonlyArray<Resource> => [
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'kreconcile', namespace } },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kreconcile' },
    rules: [
      // delete: the `complete` hook's callback deletes its Application.
      { apiGroups: ['kreconcile.io'], resources: ['applications'], verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'] },
      { apiGroups: ['kreconcile.io'], resources: ['applications/status'], verbs: ['get', 'patch', 'update'] },
      { apiGroups: ['kreconcile.io'], resources: ['applications/finalizers'], verbs: ['update'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      ...childRules(kinds),
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'kreconcile' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kreconcile' },
    subjects: [{ kind: 'ServiceAccount', name: 'kreconcile', namespace }],
  },
] as unknown as ReadonlyArray<Resource>;

/** The operator Deployment (probes on /healthz and /readyz, metrics port) and its Service. */
export const operatorDeployment = (namespace: string, image: string): ReadonlyArray<Resource> => [
  {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kreconcile', namespace, labels: { 'app.kubernetes.io/name': 'kreconcile' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { 'app.kubernetes.io/name': 'kreconcile' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'kreconcile' } },
        spec: {
          serviceAccountName: 'kreconcile',
          containers: [{
            name: 'operator', image,
            args: ['run', '--leader-elect', '--leader-election-namespace', namespace, '--listen', ':8080'],
            env: [
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              // The default hook callback URL names the operator Service in this namespace.
              { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            ],
            ports: [{ name: 'http', containerPort: 8080 }],
            livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
            readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5 },
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
          }],
          terminationGracePeriodSeconds: 40,
        },
      },
    },
  },
  {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'kreconcile', namespace, labels: { 'app.kubernetes.io/name': 'kreconcile' } },
    spec: { selector: { 'app.kubernetes.io/name': 'kreconcile' }, ports: [{ name: 'http', port: 8080, targetPort: 'http' }] },
  },
] as unknown as ReadonlyArray<Resource>;
