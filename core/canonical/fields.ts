/**
 * Where built-in kinds of Kubernetes 1.36 hold values the API server rewrites when it stores them:
 * `resource.Quantity` fields (re-serialised canonically, core/canonical/quantity.ts), `[]byte`
 * fields (base64 decoded and re-encoded, core/canonical/go-base64.ts) and times written by users
 * (in UTC, core/canonical/time.ts). Found from the Go types of
 * k8s.io/api (every field of type Quantity, ResourceList or []byte in a kind a user writes).
 *
 * A path is a list of steps from the object: a field name, `[]` for every item of a list or `{}`
 * for every value of a map. The value the path reaches has the type named.
 */

/**
 * `quantity`: a `resource.Quantity`; `resourceList`: a value of a core/v1 `ResourceList`, which
 * defaulting also rounds up to milli-units; `bytes`: a `[]byte`; `time`, `microTime`: a
 * `metav1.Time` or `metav1.MicroTime` (core/canonical/time.ts); `omitEmpty`: a Go map or slice
 * field tagged `omitempty`, which the server does not store when it is empty (`labels: {}`).
 */
export type CanonicalType = 'quantity' | 'resourceList' | 'bytes' | 'time' | 'microTime' | 'omitEmpty';

export type Step = string;
export type FieldPath = ReadonlyArray<Step>;

export type CanonicalField = { readonly path: FieldPath; readonly type: CanonicalType };

const EACH = '[]';
const VALUES = '{}';

const at = (type: CanonicalType, ...path: FieldPath): CanonicalField => ({ path, type });
const under = (prefix: FieldPath, fields: ReadonlyArray<CanonicalField>): ReadonlyArray<CanonicalField> =>
  fields.map((field) => ({ ...field, path: [...prefix, ...field.path] }));

/** `v1.ResourceRequirements` (limits and requests are `ResourceList`: maps of quantities). */
const resourceRequirements: ReadonlyArray<CanonicalField> = [
  at('resourceList', 'limits', VALUES),
  at('resourceList', 'requests', VALUES),
];

/** `v1.PersistentVolumeClaimSpec`. */
const claimSpec: ReadonlyArray<CanonicalField> = under(['resources'], resourceRequirements);

/** `metav1.ObjectMeta`'s maps and lists: not stored when empty (every kind's, custom ones' too). */
const objectMeta: ReadonlyArray<CanonicalField> = ['labels', 'annotations', 'finalizers', 'ownerReferences'].map(
  (field) => at('omitEmpty', field),
);

/** `metav1.LabelSelector`'s maps and lists. */
const labelSelector: ReadonlyArray<CanonicalField> = [
  at('omitEmpty', 'matchLabels'),
  at('omitEmpty', 'matchExpressions'),
  at('omitEmpty', 'matchExpressions', EACH, 'values'),
];

/** `v1.PodSpec`: containers of the three sorts, pod-level resources, overhead and the volumes with a size. */
const podSpec: ReadonlyArray<CanonicalField> = [
  ...['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    ['command', 'args', 'ports', 'env'].map((field) => at('omitEmpty', list, EACH, field)),
  ),
  at('omitEmpty', 'nodeSelector'),
  ...['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    under([list, EACH, 'resources'], resourceRequirements),
  ),
  ...under(['resources'], resourceRequirements),
  at('resourceList', 'overhead', VALUES),
  at('quantity', 'volumes', EACH, 'emptyDir', 'sizeLimit'),
  ...under(['volumes', EACH, 'ephemeral', 'volumeClaimTemplate', 'spec'], claimSpec),
];

const podTemplate = (prefix: FieldPath): ReadonlyArray<CanonicalField> => [
  ...under([...prefix, 'metadata'], objectMeta),
  ...under([...prefix, 'spec'], podSpec),
];

/** A workload's pod template and selector. */
const workload = (prefix: FieldPath): ReadonlyArray<CanonicalField> => [
  ...podTemplate([...prefix, 'template']),
  ...under([...prefix, 'selector'], labelSelector),
];

const jobSpec: ReadonlyArray<CanonicalField> = workload([]);

/** `autoscaling/v2` `MetricTarget`s of every metric source. */
const metricTargets: ReadonlyArray<CanonicalField> = [
  'object',
  'pods',
  'resource',
  'containerResource',
  'external',
].flatMap((source) => [
  at('quantity', 'spec', 'metrics', EACH, source, 'target', 'value'),
  at('quantity', 'spec', 'metrics', EACH, source, 'target', 'averageValue'),
]);

const webhookCaBundle = at('bytes', 'webhooks', EACH, 'clientConfig', 'caBundle');

/** `group/Kind` → its fields with a canonical form (the same in every served version of the kind). */
const FIELDS: ReadonlyMap<string, ReadonlyArray<CanonicalField>> = new Map([
  ['/Secret', [at('bytes', 'data', VALUES), at('omitEmpty', 'data'), at('omitEmpty', 'stringData')]],
  ['/ConfigMap', [at('bytes', 'binaryData', VALUES), at('omitEmpty', 'data'), at('omitEmpty', 'binaryData')]],
  ['/Service', [at('omitEmpty', 'spec', 'ports'), at('omitEmpty', 'spec', 'selector')]],
  ['/Pod', under(['spec'], podSpec)],
  ['/PodTemplate', podTemplate(['template'])],
  ['/ReplicationController', [...podTemplate(['spec', 'template']), at('omitEmpty', 'spec', 'selector')]],
  ['apps/Deployment', workload(['spec'])],
  ['apps/ReplicaSet', workload(['spec'])],
  ['apps/DaemonSet', workload(['spec'])],
  ['apps/StatefulSet', [...workload(['spec']), ...under(['spec', 'volumeClaimTemplates', EACH, 'spec'], claimSpec)]],
  ['batch/Job', under(['spec'], jobSpec)],
  ['batch/CronJob', under(['spec', 'jobTemplate', 'spec'], jobSpec)],
  ['/PersistentVolumeClaim', under(['spec'], claimSpec)],
  ['/PersistentVolume', [at('resourceList', 'spec', 'capacity', VALUES)]],
  ['/ResourceQuota', [at('resourceList', 'spec', 'hard', VALUES)]],
  [
    '/LimitRange',
    ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'].map((bound) =>
      at('resourceList', 'spec', 'limits', EACH, bound, VALUES),
    ),
  ],
  // node.k8s.io has no defaulting: its resource list keeps values finer than milli.
  ['node.k8s.io/RuntimeClass', [at('quantity', 'overhead', 'podFixed', VALUES)]],
  ['autoscaling/HorizontalPodAutoscaler', metricTargets],
  ['storage.k8s.io/CSIStorageCapacity', [at('quantity', 'capacity'), at('quantity', 'maximumVolumeSize')]],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', [webhookCaBundle]],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', [webhookCaBundle]],
  ['certificates.k8s.io/CertificateSigningRequest', [at('bytes', 'spec', 'request')]],
  [
    'apiextensions.k8s.io/CustomResourceDefinition',
    [at('bytes', 'spec', 'conversion', 'webhook', 'clientConfig', 'caBundle')],
  ],
  ['apiregistration.k8s.io/APIService', [at('bytes', 'spec', 'caBundle')]],
  ['coordination.k8s.io/Lease', [at('microTime', 'spec', 'acquireTime'), at('microTime', 'spec', 'renewTime')]],
  [
    '/Event',
    [
      at('time', 'firstTimestamp'),
      at('time', 'lastTimestamp'),
      at('microTime', 'eventTime'),
      at('microTime', 'series', 'lastObservedTime'),
    ],
  ],
  [
    'events.k8s.io/Event',
    [
      at('microTime', 'eventTime'),
      at('time', 'deprecatedFirstTimestamp'),
      at('time', 'deprecatedLastTimestamp'),
      at('microTime', 'series', 'lastObservedTime'),
    ],
  ],
]);

const METADATA: ReadonlyArray<CanonicalField> = under(['metadata'], objectMeta);
const ALL_FIELDS: ReadonlyMap<string, ReadonlyArray<CanonicalField>> = new Map(
  [...FIELDS].map(([key, fields]) => [key, [...METADATA, ...fields]]),
);

/**
 * The fields of a kind (by API group and kind) whose stored form is canonical: its metadata's
 * for every kind, and those listed above for built-in ones.
 */
export const canonicalFieldsOf = (group: string, kind: string): ReadonlyArray<CanonicalField> =>
  ALL_FIELDS.get(`${group}/${kind}`) ?? METADATA;

/** Every listed kind (`group/Kind`) with its fields, as `canonicalFieldsOf` answers for it. */
export const KIND_FIELDS: ReadonlyMap<string, ReadonlyArray<CanonicalField>> = ALL_FIELDS;

/** The fields of a kind not listed (a custom resource): its metadata's. */
export const METADATA_FIELDS: ReadonlyArray<CanonicalField> = METADATA;

export const EACH_ITEM: Step = EACH;
export const EACH_VALUE: Step = VALUES;
