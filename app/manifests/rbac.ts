/**
 * Least-privilege RBAC for the operator: its own API (Applications, status, finalizers), Events,
 * the leader Lease by name in its own namespace, and child rights chosen by the admin: per
 * tenant namespace or cluster-wide, or only the right to impersonate tenants' ServiceAccounts.
 */
import { groupOf, type Resource } from '../../core/internal.js';
import { shardingLeaseNames } from './lease-names.js';
import { APPROVALS_POLICY } from './approvals.js';
import { GARBAGE_COLLECTION_POLICY } from './garbage-collection.js';
import type { GrantRule, RbacGrants } from './rbac-grants.js';

export type ChildKind = { readonly apiVersion: string; readonly kind: string; readonly plural?: string };

/** Plurals of the built-in kinds whose plural is not the lower-cased kind + "s". */
const IRREGULAR: Readonly<Record<string, string>> = {
  Endpoints: 'endpoints',
  NetworkPolicy: 'networkpolicies',
  PodSecurityPolicy: 'podsecuritypolicies',
  Ingress: 'ingresses',
  IngressClass: 'ingressclasses',
  StorageClass: 'storageclasses',
  PriorityClass: 'priorityclasses',
  RuntimeClass: 'runtimeclasses',
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

/** The leader-election Lease's name (`kreconcile run --leader-elect`); its Role names nothing else. */
export const LEADER_LEASE_NAME = 'kreconcile-leader';

/**
 * Child kinds used when none are given: the kinds of the examples (web apps). No Secrets: a
 * cluster-wide Secret right would let any tenant read every Secret through the operator. They are
 * added where children are bound per namespace (hooks keep a token Secret there), or on request.
 */
export const defaultChildKinds: ReadonlyArray<ChildKind> = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
];

export const SECRET_KIND: ChildKind = { apiVersion: 'v1', kind: 'Secret' };

const CHILD_VERBS = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

type Rule = {
  readonly apiGroups: ReadonlyArray<string>;
  readonly resources: ReadonlyArray<string>;
  readonly verbs: ReadonlyArray<string>;
  readonly resourceNames?: ReadonlyArray<string>;
};

const childRules = (kinds: ReadonlyArray<ChildKind>): ReadonlyArray<Rule> => {
  const byGroup = new Map<string, Set<string>>();
  for (const kind of kinds) {
    const group = groupOf(kind.apiVersion);
    const resources = byGroup.get(group) ?? new Set<string>();
    resources.add(kind.plural ?? pluralOf(kind.kind));
    byGroup.set(group, resources);
  }
  const rules = [...byGroup]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, resources]) => ({ apiGroups: [group], resources: [...resources].sort(), verbs: CHILD_VERBS }));
  // The inventory `kreconcile apply` keeps (docs/decisions/0028) is read when the operator takes an
  // Application over: `get` on ConfigMaps where children are, when they are not children already.
  return byGroup.get('')?.has('configmaps') === true ? rules : [...rules, INVENTORY_RULE];
};

const INVENTORY_RULE: Rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };

/** What the operator's RBAC grants (the admin's choice, never derived from Applications unless asked). */
export type RbacOptions = {
  /** The namespace the operator runs in (its ServiceAccount and leader Lease live there). */
  readonly namespace: string;
  /**
   * Name of the ServiceAccount and prefix of every role and binding (default `kreconcile`): one per operator install.
   */
  readonly name?: string;
  /** Kinds the operator writes with its own rights (default {@link defaultChildKinds}). */
  readonly childKinds?: ReadonlyArray<ChildKind>;
  /**
   * Namespaces children may live in: a RoleBinding each, instead of one cluster-wide binding.
   * The operator then cannot list children cluster-wide and runs with `--no-watch-children`.
   */
  readonly tenantNamespaces?: ReadonlyArray<string>;
  /**
   * Impersonation (`spec.serviceAccountName`): `allowed` adds the right to impersonate
   * ServiceAccounts; `required` grants ONLY that, no child rights (`run --require-service-account`).
   */
  readonly impersonation?: 'off' | 'allowed' | 'required';
  /** The rights to write the RBAC objects the Applications ship (rbac-grants.ts); none by default. */
  readonly rbacGrants?: RbacGrants;
};

const RBAC_API = 'rbac.authorization.k8s.io/v1';

const nameOf = (options: RbacOptions): string => options.name ?? 'kreconcile';

const subjectsOf = (options: RbacOptions) => [
  { kind: 'ServiceAccount', name: nameOf(options), namespace: options.namespace },
];

const clusterRole = (name: string, rules: ReadonlyArray<Rule | GrantRule>) => ({
  apiVersion: RBAC_API,
  kind: 'ClusterRole',
  metadata: { name },
  rules,
});

const clusterRoleBinding = (name: string, options: RbacOptions) => ({
  apiVersion: RBAC_API,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
  subjects: subjectsOf(options),
});

const roleBinding = (
  name: string,
  role: { readonly kind: 'Role' | 'ClusterRole'; readonly name: string },
  where: string,
  options: RbacOptions,
) => ({
  apiVersion: RBAC_API,
  kind: 'RoleBinding',
  metadata: { name, namespace: where },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...role },
  subjects: subjectsOf(options),
});

/** A ClusterRole bound cluster-wide, or in each tenant namespace only. */
const granted = (name: string, rules: ReadonlyArray<Rule>, options: RbacOptions) => {
  const namespaces = options.tenantNamespaces ?? [];
  return [
    clusterRole(name, rules),
    ...(namespaces.length === 0
      ? [clusterRoleBinding(name, options)]
      : namespaces.map((where) => roleBinding(name, { kind: 'ClusterRole', name }, where, options))),
  ];
};

/** Its own API, everywhere: Applications, their status and finalizers, and Events about them. */
const ownApiRules: ReadonlyArray<Rule> = [
  // delete: the `complete` hook's callback deletes its Application.
  {
    apiGroups: ['kreconcile.io'],
    resources: ['applications'],
    verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'],
  },
  { apiGroups: ['kreconcile.io'], resources: ['applications/status'], verbs: ['get', 'patch', 'update'] },
  { apiGroups: ['kreconcile.io'], resources: ['applications/finalizers'], verbs: ['update'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  // Read-only, for the start-up check that the admission policies are installed and bound
  // (app/runtime/admission-policies.ts); list cannot be limited by name.
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['validatingadmissionpolicies'],
    verbs: ['get'],
    resourceNames: [APPROVALS_POLICY, GARBAGE_COLLECTION_POLICY],
  },
  { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicybindings'], verbs: ['list'] },
];

// `create` cannot be limited by name (the object does not exist when it is authorized).
const leaseRules: ReadonlyArray<Rule> = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'update'],
    resourceNames: [LEADER_LEASE_NAME],
  },
];

// The API server adds a ServiceAccount's groups itself: no `impersonate groups` right is needed.
const impersonateRules: ReadonlyArray<Rule> = [
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
];

/**
 * The operator's ServiceAccount and RBAC. Guarantees: no wildcard; no RBAC, Namespace or
 * cluster-scoped child rights; the Lease only in the operator namespace and by name; child rights
 * (Secrets only when bound per namespace or asked for) cluster-wide or per tenant namespace; with
 * impersonation required, no child rights at all.
 */
export const operatorRbac = (options: RbacOptions): ReadonlyArray<Resource> => {
  const impersonation = options.impersonation ?? 'off';
  const kinds = options.childKinds ?? [
    ...defaultChildKinds,
    ...((options.tenantNamespaces ?? []).length > 0 ? [SECRET_KIND] : []),
  ];
  const name = nameOf(options);
  const leaderRole = { kind: 'Role' as const, name: `${name}-leader-election` };
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: options.namespace } },
    clusterRole(name, ownApiRules),
    clusterRoleBinding(name, options),
    {
      apiVersion: RBAC_API,
      kind: 'Role',
      metadata: { name: leaderRole.name, namespace: options.namespace },
      rules: leaseRules,
    },
    roleBinding(leaderRole.name, leaderRole, options.namespace, options),
    ...(impersonation === 'required' ? [] : granted(`${name}-children`, childRules(kinds), options)),
    ...(impersonation === 'off' ? [] : granted(`${name}-impersonate`, impersonateRules, options)),
    ...grantObjects(`${name}-rbac-grants`, options),
  ];
};

/** The rights to write the Applications' RBAC: cluster-wide for their ClusterRoles, per namespace for their Roles. */
const grantObjects = (name: string, options: RbacOptions): ReadonlyArray<Resource> => {
  const grants = options.rbacGrants;
  if (grants === undefined) return [];
  const role = { kind: 'Role' as const, name };
  return [
    ...(grants.clusterRules.length === 0
      ? []
      : [clusterRole(name, grants.clusterRules), clusterRoleBinding(name, options)]),
    ...[...grants.namespaceRules].flatMap(([namespace, rules]) => [
      { apiVersion: RBAC_API, kind: 'Role', metadata: { name, namespace }, rules },
      roleBinding(name, role, namespace, options),
    ]),
  ];
};

/** The flags `kreconcile run` needs to match {@link operatorRbac} with the same options. */
export const runFlagsFor = (
  options: RbacOptions & { readonly defaultServiceAccount?: string },
): ReadonlyArray<string> => [
  ...(options.impersonation === 'required' ? ['--require-service-account'] : []),
  ...(options.defaultServiceAccount === undefined ? [] : ['--default-service-account', options.defaultServiceAccount]),
  // Without cluster-wide list rights on children, watching them cluster-wide would fail.
  ...(options.impersonation === 'required' || (options.tenantNamespaces ?? []).length > 0
    ? ['--no-watch-children']
    : []),
];

/**
 * With `--sharding lease --shards n`: a Role in the operator namespace to list and watch its Leases
 * and update only the shard and member Leases by name (create cannot be restricted by name).
 */
export const shardingRbac = (namespace: string, shards: number): ReadonlyArray<Resource> => [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'kreconcile-sharding', namespace },
    rules: [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: [...shardingLeaseNames(shards)],
        verbs: ['update'],
      },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'kreconcile-sharding', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kreconcile-sharding' },
    subjects: [{ kind: 'ServiceAccount', name: 'kreconcile', namespace }],
  },
];

/** The operator's container: `kreconcile run` with leader election, probes, small resources, no privileges. */
const operatorContainer = (namespace: string, image: string, runFlags: ReadonlyArray<string>) => ({
  name: 'operator',
  image,
  args: ['run', '--leader-elect', '--leader-election-namespace', namespace, '--listen', ':8080', ...runFlags],
  env: [
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    // The default hook callback URL names the operator Service in this namespace.
    { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
  ],
  ports: [{ name: 'http', containerPort: 8080 }],
  livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
  readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5 },
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
  securityContext: {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  },
});

/** The operator Deployment (probes on /healthz and /readyz, metrics port) and its Service. */
export const operatorDeployment = (
  namespace: string,
  image: string,
  runFlags: ReadonlyArray<string> = [],
): ReadonlyArray<Resource> => [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'kreconcile', namespace, labels: { 'app.kubernetes.io/name': 'kreconcile' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { 'app.kubernetes.io/name': 'kreconcile' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'kreconcile' } },
        spec: {
          serviceAccountName: 'kreconcile',
          containers: [operatorContainer(namespace, image, runFlags)],
          terminationGracePeriodSeconds: 40,
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kreconcile', namespace, labels: { 'app.kubernetes.io/name': 'kreconcile' } },
    spec: {
      selector: { 'app.kubernetes.io/name': 'kreconcile' },
      ports: [{ name: 'http', port: 8080, targetPort: 'http' }],
    },
  },
];
