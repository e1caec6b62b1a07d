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
 * `metav1.Time` or `metav1.MicroTime` (core/canonical/time.ts).
 */
export type CanonicalType = 'quantity' | 'resourceList' | 'bytes' | 'time' | 'microTime';

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

/** `v1.PodSpec`: containers of the three sorts, pod-level resources, overhead and the volumes with a size. */
const podSpec: ReadonlyArray<CanonicalField> = [
  ...['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) =>
    under([list, EACH, 'resources'], resourceRequirements),
  ),
  ...under(['resources'], resourceRequirements),
  at('resourceList', 'overhead', VALUES),
  at('quantity', 'volumes', EACH, 'emptyDir', 'sizeLimit'),
  ...under(['volumes', EACH, 'ephemeral', 'volumeClaimTemplate', 'spec'], claimSpec),
];

const podTemplate = (prefix: FieldPath): ReadonlyArray<CanonicalField> => under([...prefix, 'spec'], podSpec);

const jobSpec: ReadonlyArray<CanonicalField> = podTemplate(['template']);

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
  ['/Secret', [at('bytes', 'data', VALUES)]],
  ['/ConfigMap', [at('bytes', 'binaryData', VALUES)]],
  ['/Pod', under(['spec'], podSpec)],
  ['/PodTemplate', podTemplate(['template'])],
  ['/ReplicationController', podTemplate(['spec', 'template'])],
  ['apps/Deployment', podTemplate(['spec', 'template'])],
  ['apps/ReplicaSet', podTemplate(['spec', 'template'])],
  ['apps/DaemonSet', podTemplate(['spec', 'template'])],
  [
    'apps/StatefulSet',
    [...podTemplate(['spec', 'template']), ...under(['spec', 'volumeClaimTemplates', EACH, 'spec'], claimSpec)],
  ],
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

const NONE: ReadonlyArray<CanonicalField> = [];

/** The fields of a kind (by API group and kind) whose stored form is canonical; none for kinds not listed. */
export const canonicalFieldsOf = (group: string, kind: string): ReadonlyArray<CanonicalField> =>
  FIELDS.get(`${group}/${kind}`) ?? NONE;

export const EACH_ITEM: Step = EACH;
export const EACH_VALUE: Step = VALUES;
