/**
 * API versions Kubernetes has removed, each with the version that replaces it and the release that
 * removed it, as pluto and kubent report them. A manifest naming one is refused by a 1.36 API
 * server (no such resource), so validation names the replacement instead of treating the kind as
 * an unknown custom resource.
 *
 * Source: the Kubernetes Deprecated API Migration Guide,
 * https://kubernetes.io/docs/reference/using-api/deprecation-guide/ (sections v1.16, v1.22, v1.25,
 * v1.26, v1.27, v1.29, v1.32), and the release notes of those versions. Pure data.
 */

export type RemovedApi = {
  readonly removedIn: string;
  /** The apiVersion to write instead; absent when the kind has no successor. */
  readonly replacement?: string;
  /** What else changes with the move, when a plain apiVersion edit is not enough. */
  readonly note?: string;
};

const kinds = (
  apiVersions: ReadonlyArray<string>,
  names: ReadonlyArray<string>,
  removed: RemovedApi,
): ReadonlyArray<readonly [string, RemovedApi]> =>
  apiVersions.flatMap((apiVersion) => names.map((kind) => [`${apiVersion}/${kind}`, removed] as const));

const INGRESS_NOTE =
  'its backends become service.name and service.port.number (or .name), every path needs a pathType, and spec.backend is spec.defaultBackend';

/** By `apiVersion/Kind`. */
export const REMOVED_APIS: ReadonlyMap<string, RemovedApi> = new Map([
  // v1.16
  ...kinds(['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'], ['Deployment', 'DaemonSet', 'ReplicaSet'], {
    removedIn: '1.16',
    replacement: 'apps/v1',
    note: 'spec.selector becomes required and must match the template labels',
  }),
  ...kinds(['apps/v1beta1', 'apps/v1beta2'], ['StatefulSet', 'ControllerRevision'], {
    removedIn: '1.16',
    replacement: 'apps/v1',
  }),
  ...kinds(['extensions/v1beta1'], ['NetworkPolicy'], { removedIn: '1.16', replacement: 'networking.k8s.io/v1' }),
  ...kinds(['extensions/v1beta1'], ['PodSecurityPolicy'], {
    removedIn: '1.16',
    note: 'PodSecurityPolicy itself was removed in 1.25: use Pod Security Admission (namespace labels pod-security.kubernetes.io/*)',
  }),
  // v1.22
  ...kinds(['extensions/v1beta1', 'networking.k8s.io/v1beta1'], ['Ingress'], {
    removedIn: '1.22',
    replacement: 'networking.k8s.io/v1',
    note: INGRESS_NOTE,
  }),
  ...kinds(['networking.k8s.io/v1beta1'], ['IngressClass'], { removedIn: '1.22', replacement: 'networking.k8s.io/v1' }),
  ...kinds(
    ['admissionregistration.k8s.io/v1beta1'],
    ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    {
      removedIn: '1.22',
      replacement: 'admissionregistration.k8s.io/v1',
      note: 'every webhook needs sideEffects and admissionReviewVersions',
    },
  ),
  ...kinds(['apiextensions.k8s.io/v1beta1'], ['CustomResourceDefinition'], {
    removedIn: '1.22',
    replacement: 'apiextensions.k8s.io/v1',
    note: 'every version needs a structural schema under spec.versions[].schema.openAPIV3Schema',
  }),
  ...kinds(['apiregistration.k8s.io/v1beta1'], ['APIService'], {
    removedIn: '1.22',
    replacement: 'apiregistration.k8s.io/v1',
  }),
  ...kinds(['authentication.k8s.io/v1beta1'], ['TokenReview'], {
    removedIn: '1.22',
    replacement: 'authentication.k8s.io/v1',
  }),
  ...kinds(
    ['authorization.k8s.io/v1beta1'],
    ['SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview'],
    { removedIn: '1.22', replacement: 'authorization.k8s.io/v1' },
  ),
  ...kinds(['certificates.k8s.io/v1beta1'], ['CertificateSigningRequest'], {
    removedIn: '1.22',
    replacement: 'certificates.k8s.io/v1',
    note: 'spec.signerName becomes required',
  }),
  ...kinds(['coordination.k8s.io/v1beta1'], ['Lease'], { removedIn: '1.22', replacement: 'coordination.k8s.io/v1' }),
  ...kinds(
    ['rbac.authorization.k8s.io/v1beta1', 'rbac.authorization.k8s.io/v1alpha1'],
    ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
    {
      removedIn: '1.22',
      replacement: 'rbac.authorization.k8s.io/v1',
    },
  ),
  ...kinds(['scheduling.k8s.io/v1beta1', 'scheduling.k8s.io/v1alpha1'], ['PriorityClass'], {
    removedIn: '1.22',
    replacement: 'scheduling.k8s.io/v1',
  }),
  ...kinds(['storage.k8s.io/v1beta1'], ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'], {
    removedIn: '1.22',
    replacement: 'storage.k8s.io/v1',
  }),
  // v1.25
  ...kinds(['batch/v1beta1'], ['CronJob'], { removedIn: '1.25', replacement: 'batch/v1' }),
  ...kinds(['discovery.k8s.io/v1beta1'], ['EndpointSlice'], {
    removedIn: '1.25',
    replacement: 'discovery.k8s.io/v1',
    note: 'endpoints[].topology["kubernetes.io/hostname"] becomes endpoints[].nodeName',
  }),
  ...kinds(['events.k8s.io/v1beta1'], ['Event'], { removedIn: '1.25', replacement: 'events.k8s.io/v1' }),
  ...kinds(['autoscaling/v2beta1'], ['HorizontalPodAutoscaler'], {
    removedIn: '1.25',
    replacement: 'autoscaling/v2',
    note: 'metrics[].resource.targetAverageUtilization becomes metrics[].resource.target: {type: Utilization, averageUtilization: N}',
  }),
  ...kinds(['policy/v1beta1'], ['PodDisruptionBudget'], {
    removedIn: '1.25',
    replacement: 'policy/v1',
    note: 'an empty spec.selector selects every pod of the namespace in policy/v1',
  }),
  ...kinds(['policy/v1beta1'], ['PodSecurityPolicy'], {
    removedIn: '1.25',
    note: 'PodSecurityPolicy has no successor: use Pod Security Admission (namespace labels pod-security.kubernetes.io/*)',
  }),
  ...kinds(['node.k8s.io/v1beta1'], ['RuntimeClass'], { removedIn: '1.25', replacement: 'node.k8s.io/v1' }),
  // v1.26
  ...kinds(['autoscaling/v2beta2'], ['HorizontalPodAutoscaler'], { removedIn: '1.26', replacement: 'autoscaling/v2' }),
  ...kinds(['flowcontrol.apiserver.k8s.io/v1beta1'], ['FlowSchema', 'PriorityLevelConfiguration'], {
    removedIn: '1.26',
    replacement: 'flowcontrol.apiserver.k8s.io/v1',
  }),
  // v1.27
  ...kinds(['storage.k8s.io/v1beta1'], ['CSIStorageCapacity'], { removedIn: '1.27', replacement: 'storage.k8s.io/v1' }),
  // v1.29
  ...kinds(['flowcontrol.apiserver.k8s.io/v1beta2'], ['FlowSchema', 'PriorityLevelConfiguration'], {
    removedIn: '1.29',
    replacement: 'flowcontrol.apiserver.k8s.io/v1',
  }),
  // v1.32
  ...kinds(['flowcontrol.apiserver.k8s.io/v1beta3'], ['FlowSchema', 'PriorityLevelConfiguration'], {
    removedIn: '1.32',
    replacement: 'flowcontrol.apiserver.k8s.io/v1',
  }),
]);

/** The message for a removed API: what replaces it, since when, and what else to change. */
export const removedApiMessage = (apiVersion: string, kind: string, removed: RemovedApi): string => {
  const what = `${apiVersion} ${kind} was removed in Kubernetes ${removed.removedIn}: the API server no longer serves it`;
  const fix =
    removed.replacement === undefined
      ? ''
      : `: write apiVersion: ${removed.replacement}${removed.note === undefined ? '' : ` (${removed.note})`}`;
  return removed.replacement === undefined && removed.note !== undefined ? `${what}: ${removed.note}` : `${what}${fix}`;
};
