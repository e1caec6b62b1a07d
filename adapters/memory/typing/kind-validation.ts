/**
 * The validation rules a reconciler most often trips over, answered 422 Invalid with field
 * causes: workload replicas, selectors and containers, Job restart policy, Service ports and
 * their range. (Full
 * per-kind validation is not modelled.)
 */
import { getIn, getOwn, isJsonArray, isJsonObject, type JsonValue } from '../../../core/json/json.js';
import { jsonText } from '../../../core/json/text.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ErrorCause } from '../../../core/ports/errors.js';

const required = (field: string): ErrorCause => ({ field, reason: 'FieldValueRequired', message: 'Required value' });
const invalid = (field: string, message: string): ErrorCause => ({ field, reason: 'FieldValueInvalid', message });

/** A container name used by an earlier container (kube-apiserver says so after the container's own causes). */
const duplicateName = (containers: ReadonlyArray<JsonValue>, i: number, path: string): ReadonlyArray<ErrorCause> => {
  const container = containers[i];
  const name = isJsonObject(container) ? getOwn(container, 'name') : undefined;
  if (typeof name !== 'string' || name === '') return [];
  const earlier = containers.slice(0, i).some((other) => isJsonObject(other) && getOwn(other, 'name') === name);
  return earlier
    ? [
        {
          field: `${path}.containers[${i}].name`,
          reason: 'FieldValueDuplicate',
          message: `Duplicate value: ${JSON.stringify(name)}`,
        },
      ]
    : [];
};

const containerCauses = (podSpec: JsonValue | undefined, path: string): ReadonlyArray<ErrorCause> => {
  const containers = getIn(podSpec, ['containers']);
  if (!isJsonArray(containers) || containers.length === 0) return [required(`${path}.containers`)];
  return containers.flatMap((container, i) => [
    ...['name', 'image']
      .filter(
        (field) =>
          !isJsonObject(container) || typeof getOwn(container, field) !== 'string' || getOwn(container, field) === '',
      )
      .map((field) => required(`${path}.containers[${i}].${field}`)),
    ...duplicateName(containers, i, path),
  ]);
};

/** `spec.selector` must exist and select the template's labels (matchLabels part). */
const selectorCauses = (object: Resource): ReadonlyArray<ErrorCause> => {
  const selector = getIn(object, ['spec', 'selector']);
  if (!isJsonObject(selector)) return [required('spec.selector')];
  const matchLabels = getOwn(selector, 'matchLabels');
  const labels = getIn(object, ['spec', 'template', 'metadata', 'labels']);
  const mismatch =
    isJsonObject(matchLabels) &&
    Object.entries(matchLabels).some(([k, v]) => !isJsonObject(labels) || getOwn(labels, k) !== v);
  return mismatch ? [invalid('spec.template.metadata.labels', '`selector` does not match template `labels`')] : [];
};

/** `spec.replicas`, when set, may not be negative. */
const replicaCauses = (object: Resource): ReadonlyArray<ErrorCause> => {
  const replicas = getIn(object, ['spec', 'replicas']);
  return typeof replicas === 'number' && replicas < 0
    ? [invalid('spec.replicas', `Invalid value: ${replicas}: must be greater than or equal to 0`)]
    : [];
};

const workloadCauses = (object: Resource): ReadonlyArray<ErrorCause> => [
  ...replicaCauses(object),
  ...selectorCauses(object),
  ...containerCauses(getIn(object, ['spec', 'template', 'spec']), 'spec.template.spec'),
];

const jobCauses = (object: Resource): ReadonlyArray<ErrorCause> => {
  const restartPolicy = getIn(object, ['spec', 'template', 'spec', 'restartPolicy']);
  return [
    ...containerCauses(getIn(object, ['spec', 'template', 'spec']), 'spec.template.spec'),
    ...(restartPolicy === 'Never' || restartPolicy === 'OnFailure'
      ? []
      : [
          invalid(
            'spec.template.spec.restartPolicy',
            `Unsupported value: "${jsonText(restartPolicy)}": supported values: "OnFailure", "Never"`,
          ),
        ]),
  ];
};

const portRange = (field: string, value: JsonValue | undefined): ReadonlyArray<ErrorCause> =>
  typeof value === 'number' && (value < 1 || value > 65535)
    ? [invalid(field, `Invalid value: ${value}: must be between 1 and 65535, inclusive`)]
    : [];

const serviceCauses = (object: Resource): ReadonlyArray<ErrorCause> => {
  const type = getIn(object, ['spec', 'type']);
  const headless = getIn(object, ['spec', 'clusterIP']) === 'None';
  const ports = getIn(object, ['spec', 'ports']);
  const missing = type !== 'ExternalName' && !headless && (!isJsonArray(ports) || ports.length === 0);
  const ranges = isJsonArray(ports)
    ? ports.flatMap((port, i) =>
        isJsonObject(port)
          ? [
              ...portRange(`spec.ports[${i}].port`, getOwn(port, 'port')),
              ...portRange(`spec.ports[${i}].targetPort`, getOwn(port, 'targetPort')),
            ]
          : [],
      )
    : [];
  return missing ? [required('spec.ports')] : ranges;
};

/** kube-apiserver's MaxSecretSize: the most bytes a ConfigMap's or a Secret's values may hold together. */
export const MAX_DATA_BYTES = 1024 * 1024;

const tooLong = (field: string): ErrorCause => ({
  field,
  reason: 'FieldValueTooLong',
  message: `Too long: may not be more than ${MAX_DATA_BYTES} bytes`,
});

const stringValues = (map: JsonValue | undefined): ReadonlyMap<string, number> =>
  new Map(
    isJsonObject(map)
      ? Object.entries(map).flatMap(([key, value]) =>
          typeof value === 'string' ? [[key, Buffer.byteLength(value)] as const] : [],
        )
      : [],
  );

/** Sizes of base64 values, decoded (the bytes the server stores). */
const byteValues = (map: JsonValue | undefined): ReadonlyMap<string, number> =>
  new Map(
    isJsonObject(map)
      ? Object.entries(map).flatMap(([key, value]) =>
          typeof value === 'string' ? [[key, Buffer.from(value, 'base64').length] as const] : [],
        )
      : [],
  );

const total = (sizes: Iterable<number>): number => [...sizes].reduce((sum, size) => sum + size, 0);

/** ValidateConfigMap: the values of data and binaryData (not the keys) together at most 1 MiB; field "" (shown []). */
const configMapCauses = (object: Resource): ReadonlyArray<ErrorCause> =>
  total(stringValues(getOwn(object, 'data')).values()) + total(byteValues(getOwn(object, 'binaryData')).values()) >
  MAX_DATA_BYTES
    ? [tooLong('[]')]
    : [];

/** ValidateSecret: the values of data (stringData merged in, its keys winning) together at most 1 MiB. */
const secretCauses = (object: Resource): ReadonlyArray<ErrorCause> =>
  total(new Map([...byteValues(getOwn(object, 'data')), ...stringValues(getOwn(object, 'stringData'))]).values()) >
  MAX_DATA_BYTES
    ? [tooLong('data')]
    : [];

const rules: ReadonlyMap<string, (object: Resource) => ReadonlyArray<ErrorCause>> = new Map([
  ['apps/Deployment', workloadCauses],
  ['apps/ReplicaSet', workloadCauses],
  ['apps/StatefulSet', workloadCauses],
  ['apps/DaemonSet', workloadCauses],
  ['batch/Job', jobCauses],
  ['/Pod', (object: Resource) => containerCauses(getOwn(object, 'spec'), 'spec')],
  ['/Service', serviceCauses],
  ['/ConfigMap', configMapCauses],
  ['/Secret', secretCauses],
]);

/** Field causes for `object` of kind `group/Kind` (empty when valid or not modelled). */
export const kindCauses = (groupKind: string, object: Resource): ReadonlyArray<ErrorCause> =>
  rules.get(groupKind)?.(object) ?? [];
