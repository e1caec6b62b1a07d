/**
 * Facts about built-in kinds the memory API server serves: versions, plural, whether they have a
 * status subresource and keep `metadata.generation`. Kinds in the scope table without facts here
 * (for example kreconcile's own Application when listed) are served at any version, with a
 * status subresource and generation, and custom-resource strategy (they are CRDs in a real cluster).
 */
import { builtinScopes, type Scope, type ScopeTable } from '../../../core/model/scope.js';
import type { KindInfo } from './kind-info.js';

type Facts = {
  readonly versions: ReadonlyArray<string>;
  readonly plural?: string;
  readonly status: boolean;
  readonly generation: boolean;
};

const v1 = (status: boolean, generation: boolean, plural?: string): Facts => ({
  versions: ['v1'],
  status,
  generation,
  ...(plural ? { plural } : {}),
});

const facts: ReadonlyMap<string, Facts> = new Map<string, Facts>([
  ['/Namespace', v1(true, false)],
  ['/Node', v1(true, false)],
  ['/PersistentVolume', v1(true, false)],
  ['/ComponentStatus', v1(false, false, 'componentstatuses')],
  ['/Pod', v1(true, true)],
  ['/Service', v1(true, false)],
  ['/ConfigMap', v1(false, false)],
  ['/Secret', v1(false, false)],
  ['/ServiceAccount', v1(false, false)],
  ['/PersistentVolumeClaim', v1(true, false)],
  ['/ReplicationController', v1(true, true)],
  ['/Endpoints', v1(false, false, 'endpoints')],
  ['/Event', v1(false, false)],
  ['/LimitRange', v1(false, false)],
  ['/ResourceQuota', v1(true, false)],
  ['/PodTemplate', v1(false, true)],
  ['apps/Deployment', v1(true, true)],
  ['apps/StatefulSet', v1(true, true)],
  ['apps/DaemonSet', v1(true, true)],
  ['apps/ReplicaSet', v1(true, true)],
  ['apps/ControllerRevision', v1(false, false)],
  ['batch/Job', v1(true, true)],
  ['batch/CronJob', v1(true, true)],
  ['autoscaling/HorizontalPodAutoscaler', { versions: ['v2', 'v1'], status: true, generation: false }],
  ['policy/PodDisruptionBudget', v1(true, true)],
  ['networking.k8s.io/Ingress', v1(true, true)],
  ['networking.k8s.io/NetworkPolicy', v1(false, true, 'networkpolicies')],
  ['networking.k8s.io/IngressClass', v1(false, true, 'ingressclasses')],
  ['discovery.k8s.io/EndpointSlice', v1(false, true)],
  ['coordination.k8s.io/Lease', v1(false, false)],
  ['events.k8s.io/Event', v1(false, false)],
  ['rbac.authorization.k8s.io/Role', v1(false, false)],
  ['rbac.authorization.k8s.io/RoleBinding', v1(false, false)],
  ['rbac.authorization.k8s.io/ClusterRole', v1(false, false)],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', v1(false, false)],
  ['apiextensions.k8s.io/CustomResourceDefinition', v1(true, true)],
  ['apiregistration.k8s.io/APIService', v1(true, true)],
  ['storage.k8s.io/StorageClass', v1(false, false, 'storageclasses')],
  ['storage.k8s.io/CSIDriver', v1(false, false)],
  ['storage.k8s.io/CSINode', v1(false, false)],
  ['storage.k8s.io/VolumeAttachment', v1(true, false)],
  ['scheduling.k8s.io/PriorityClass', v1(false, true, 'priorityclasses')],
  ['node.k8s.io/RuntimeClass', v1(false, false, 'runtimeclasses')],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', v1(false, true)],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', v1(false, true)],
  ['admissionregistration.k8s.io/ValidatingAdmissionPolicy', v1(true, true, 'validatingadmissionpolicies')],
  ['admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding', v1(false, true)],
  ['certificates.k8s.io/CertificateSigningRequest', v1(true, false)],
  ['flowcontrol.apiserver.k8s.io/FlowSchema', v1(true, true)],
  ['flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration', v1(true, true)],
  ['kreconcile.io/Application', { versions: ['v1alpha1'], status: true, generation: true }],
]);

/** `Pod` → `pods`, `NetworkPolicy` → `networkpolicies` (the usual English plural of a kind). */
export const defaultPlural = (kind: string): string => {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
};

const infoFor = (key: string, scope: Scope): KindInfo => {
  const slash = key.indexOf('/');
  const group = key.slice(0, slash);
  const kind = key.slice(slash + 1);
  const known = facts.get(key);
  return {
    // Kinds without built-in facts behave as custom resources (kreconcile's Application is one).
    group,
    kind,
    scope,
    custom: known === undefined || key === 'kreconcile.io/Application',
    plural: known?.plural ?? defaultPlural(kind),
    versions: known ? new Set(known.versions) : 'any',
    statusSubresource: known?.status ?? true,
    generation: known?.generation ?? true,
  };
};

/** The kinds served at start-up: every entry of the scope table. */
export const builtinKinds = (scopes: ScopeTable = builtinScopes): ReadonlyArray<KindInfo> =>
  [...scopes].map(([key, scope]) => infoFor(key, scope));
