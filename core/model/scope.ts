/**
 * Which kinds are namespaced: data handed to the core (built-in table + discovery or
 * snapshot), never guessed (docs/behaviour.md §1).
 */
import { getIn, isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import { groupOf, type ObjectRef, type Resource } from './resource.js';

export type Scope = 'Namespaced' | 'Cluster';

/** Scopes keyed by `group/Kind` (version-independent; the core group is ``). */
export type ScopeTable = ReadonlyMap<string, Scope>;

export const scopeKey = (apiVersion: string, kind: string): string => `${groupOf(apiVersion)}/${kind}`;

const clusterScoped = [
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment',
  'scheduling.k8s.io/PriorityClass',
  'networking.k8s.io/IngressClass',
  'node.k8s.io/RuntimeClass',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'certificates.k8s.io/CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
];

const namespaced = [
  '/Pod',
  '/Service',
  '/ConfigMap',
  '/Secret',
  '/ServiceAccount',
  '/PersistentVolumeClaim',
  '/ReplicationController',
  '/Endpoints',
  '/Event',
  '/LimitRange',
  '/ResourceQuota',
  '/PodTemplate',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'apps/ControllerRevision',
  'batch/Job',
  'batch/CronJob',
  'autoscaling/HorizontalPodAutoscaler',
  'policy/PodDisruptionBudget',
  'networking.k8s.io/Ingress',
  'networking.k8s.io/NetworkPolicy',
  'discovery.k8s.io/EndpointSlice',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'coordination.k8s.io/Lease',
  'events.k8s.io/Event',
  'kreconcile.io/Application',
];

/** The built-in Kubernetes kinds (1.36) and kreconcile's own Application. */
export const builtinScopes: ScopeTable = new Map<string, Scope>([
  ...clusterScoped.map((key) => [key, 'Cluster'] as const),
  ...namespaced.map((key) => [key, 'Namespaced'] as const),
]);

export const scopeOf = (scopes: ScopeTable, ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): Scope | undefined =>
  scopes.get(scopeKey(ref.apiVersion, ref.kind));

/**
 * Adds the scopes declared by CustomResourceDefinitions found among `resources`, for kinds `scopes`
 * does not know yet. A CRD is data a tenant writes (a manifest, a `-f` file): it may introduce a
 * kind nobody knows, never change a known scope — or a manifest CRD for
 * `clusterrolebindings.rbac.authorization.k8s.io` with `scope: Namespaced` would turn a cluster-wide
 * binding into a "namespaced" child the tenancy check lets through (issue 19). Scopes an admin
 * vouches for come from `withTrustedCrdScopes`.
 */
export const withCrdScopes = (scopes: ScopeTable, resources: ReadonlyArray<Resource>): ScopeTable => {
  const learned = resources.flatMap((resource) => crdScope(resource)).filter(([key]) => !scopes.has(key));
  if (learned.length === 0) return scopes;
  // Two tenant CRDs for the same unknown kind: the first one counts, as for any other duplicate.
  const table = new Map(scopes);
  for (const [key, scope] of learned) if (!table.has(key)) table.set(key, scope);
  return table;
};

/**
 * Adds the scopes declared by CRDs the admin gave (`--crd`): they may override what an offline
 * table assumed about a custom kind, never a built-in kind (whose scope is Kubernetes' own), and
 * CustomResourceDefinition stays cluster-scoped whatever a document says.
 */
export const withTrustedCrdScopes = (scopes: ScopeTable, resources: ReadonlyArray<Resource>): ScopeTable => {
  const learned = resources.flatMap((resource) => crdScope(resource)).filter(([key]) => !builtinScopes.has(key));
  return learned.length === 0 ? scopes : new Map([...scopes, ...learned]);
};

// What `crdScope` answers for every resource that declares no scope (most): one shared empty list.
const NO_SCOPES: ReadonlyArray<readonly [string, Scope]> = [];

const crdScope = (resource: Resource): ReadonlyArray<readonly [string, Scope]> => {
  if (resource.kind !== 'CustomResourceDefinition' || groupOf(resource.apiVersion) !== 'apiextensions.k8s.io')
    return NO_SCOPES;
  const group = getIn(resource, ['spec', 'group']);
  const kind = getIn(resource, ['spec', 'names', 'kind']);
  const scope = getIn(resource, ['spec', 'scope']);
  if (typeof group !== 'string' || typeof kind !== 'string' || (scope !== 'Namespaced' && scope !== 'Cluster'))
    return [];
  return [[`${group}/${kind}`, scope]];
};

/** Adds scopes inferred from live objects: an object read back with a namespace is of a namespaced kind. */
export const withLiveScopes = (scopes: ScopeTable, live: ReadonlyArray<Resource>): ScopeTable => {
  const learned: Array<readonly [string, Scope]> = [];
  let previous: Resource | undefined;
  for (const object of live) {
    // Snapshots list objects kind by kind: skip the key building while the kind repeats.
    if (previous !== undefined && previous.kind === object.kind && previous.apiVersion === object.apiVersion) continue;
    previous = object;
    const key = scopeKey(object.apiVersion, object.kind);
    if (!scopes.has(key)) learned.push([key, object.metadata.namespace === undefined ? 'Cluster' : 'Namespaced']);
  }
  return learned.length === 0 ? scopes : new Map([...scopes, ...learned]);
};

/**
 * Why a write to `ref` is refused when its kind is cluster-scoped (by discovery) yet `ref` names a
 * namespace, or `undefined` when it fits. The API server would silently drop the namespace and
 * write cluster-wide: a plan that believed the kind namespaced (and judged tenancy by that) must
 * not be carried out (issue 19). Both adapters refuse with this message.
 */
export const clusterScopedWriteProblem = (scope: Scope, ref: ObjectRef): string | undefined =>
  scope === 'Cluster' && ref.namespace !== undefined && ref.namespace !== ''
    ? `${ref.kind} is cluster-scoped (API discovery) but the write names namespace ${ref.namespace}: refused, it would act cluster-wide`
    : undefined;

/** Builds a table from API discovery (`APIResourceList` documents). */
export const scopesFromDiscovery = (resourceLists: ReadonlyArray<JsonValue>): ScopeTable =>
  new Map(
    resourceLists.flatMap((list) => {
      const groupVersion = getIn(list, ['groupVersion']);
      const resources = getIn(list, ['resources']);
      if (typeof groupVersion !== 'string' || !isJsonArray(resources)) return [];
      return resources.flatMap((entry) => {
        if (
          !isJsonObject(entry) ||
          typeof entry.kind !== 'string' ||
          typeof entry.name !== 'string' ||
          entry.name.includes('/')
        )
          return [];
        return [[scopeKey(groupVersion, entry.kind), entry.namespaced === true ? 'Namespaced' : 'Cluster'] as const];
      });
    }),
  );
