/**
 * The Go types of built-in kinds' fields, where a wrong JSON type is refused: kube-apiserver
 * decodes a built-in object into its Go struct before anything else, so `data: 5` on a ConfigMap
 * or `replicas: "3"` on a Deployment never reaches validation (and every object's metadata into
 * ObjectMeta, custom resources' too). Only the fields users write most are described (metadata,
 * ConfigMap, Secret, Service ports, workload specs with their pod templates: containers, ports,
 * env); the others pass through unchecked. The three ways the server reports a wrong type live in
 * typed-decoding.ts; this module holds the types and the Go renderings they need.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonValue } from '../../../core/json/json.js';
import { defined } from '../../../core/json/defined.js';

export type ScalarKind = 'string' | 'bool' | 'int32' | 'int64';

export type FieldType =
  | { readonly type: 'scalar'; readonly scalar: ScalarKind; readonly goName: string }
  /** `[]byte`: base64 text in JSON. */
  | { readonly type: 'bytes' }
  /** `intstr.IntOrString`: a string or an int32. */
  | { readonly type: 'intOrString' }
  | { readonly type: 'map'; readonly values: FieldType }
  | { readonly type: 'list'; readonly items: FieldType; readonly keys?: ReadonlyArray<ListKey> }
  /** `detached`: decoded on its own, so errors name its fields from it (a custom resource's ObjectMeta). */
  | {
      readonly type: 'struct';
      readonly goName: string;
      readonly fields: Readonly<Record<string, FieldType>>;
      readonly detached?: boolean;
    };

/** A key of an associative list (server-side apply names items by it), with its default. */
export type ListKey = { readonly field: string; readonly default?: JsonValue };

const str = (goName = 'string'): FieldType => ({ type: 'scalar', scalar: 'string', goName });
const bool: FieldType = { type: 'scalar', scalar: 'bool', goName: 'bool' };
const int32: FieldType = { type: 'scalar', scalar: 'int32', goName: 'int32' };
const int64: FieldType = { type: 'scalar', scalar: 'int64', goName: 'int64' };
const bytes: FieldType = { type: 'bytes' };
const mapOf = (values: FieldType): FieldType => ({ type: 'map', values });
const listOf = (items: FieldType, keys?: ReadonlyArray<ListKey>): FieldType => ({
  type: 'list',
  items,
  ...defined({ keys }),
});
const struct = (
  goName: string,
  fields: Readonly<Record<string, FieldType>>,
): Extract<FieldType, { type: 'struct' }> => ({ type: 'struct', goName, fields });

const objectMeta = struct('v1.ObjectMeta', {
  name: str(),
  generateName: str(),
  namespace: str(),
  uid: str('types.UID'),
  resourceVersion: str(),
  generation: int64,
  deletionGracePeriodSeconds: int64,
  labels: mapOf(str()),
  annotations: mapOf(str()),
  finalizers: listOf(str()),
  ownerReferences: listOf(
    struct('v1.OwnerReference', {
      apiVersion: str(),
      kind: str(),
      name: str(),
      uid: str('types.UID'),
      controller: bool,
      blockOwnerDeletion: bool,
    }),
    [{ field: 'uid' }],
  ),
});

const servicePort = struct('v1.ServicePort', {
  name: str(),
  protocol: str('v1.Protocol'),
  appProtocol: str(),
  port: int32,
  targetPort: { type: 'intOrString' },
  nodePort: int32,
});

const labelSelector = struct('v1.LabelSelector', {
  matchLabels: mapOf(str()),
  matchExpressions: listOf(
    struct('v1.LabelSelectorRequirement', {
      key: str(),
      operator: str('v1.LabelSelectorOperator'),
      values: listOf(str()),
    }),
  ),
});

const container = struct('v1.Container', {
  name: str(),
  image: str(),
  command: listOf(str()),
  args: listOf(str()),
  workingDir: str(),
  imagePullPolicy: str('v1.PullPolicy'),
  ports: listOf(
    struct('v1.ContainerPort', {
      name: str(),
      hostPort: int32,
      containerPort: int32,
      protocol: str('v1.Protocol'),
      hostIP: str(),
    }),
    [{ field: 'containerPort' }, { field: 'protocol', default: 'TCP' }],
  ),
  env: listOf(struct('v1.EnvVar', { name: str(), value: str() }), [{ field: 'name' }]),
});

const podSpec = struct('v1.PodSpec', {
  containers: listOf(container, [{ field: 'name' }]),
  initContainers: listOf(container, [{ field: 'name' }]),
  restartPolicy: str('v1.RestartPolicy'),
  terminationGracePeriodSeconds: int64,
  activeDeadlineSeconds: int64,
  serviceAccountName: str(),
  nodeSelector: mapOf(str()),
  hostname: str(),
});

const podTemplateSpec = struct('v1.PodTemplateSpec', { metadata: objectMeta, spec: podSpec });

const jobSpec = struct('v1.JobSpec', {
  parallelism: int32,
  completions: int32,
  backoffLimit: int32,
  activeDeadlineSeconds: int64,
  ttlSecondsAfterFinished: int32,
  suspend: bool,
  selector: labelSelector,
  template: podTemplateSpec,
});

/** The described fields of each built-in kind besides `metadata` (`group/Kind` → top-level fields). */
const kindFields: ReadonlyMap<string, Readonly<Record<string, FieldType>>> = new Map<
  string,
  Readonly<Record<string, FieldType>>
>([
  ['/ConfigMap', { data: mapOf(str()), binaryData: mapOf(bytes), immutable: bool }],
  ['/Secret', { data: mapOf(bytes), stringData: mapOf(str()), type: str('v1.SecretType'), immutable: bool }],
  [
    '/Service',
    {
      spec: struct('v1.ServiceSpec', {
        ports: listOf(servicePort, [{ field: 'port' }, { field: 'protocol', default: 'TCP' }]),
        selector: mapOf(str()),
        type: str('v1.ServiceType'),
        clusterIP: str(),
      }),
    },
  ],
  ['/Pod', { spec: podSpec }],
  ['/PodTemplate', { template: podTemplateSpec }],
  [
    '/ReplicationController',
    {
      spec: struct('v1.ReplicationControllerSpec', {
        replicas: int32,
        minReadySeconds: int32,
        selector: mapOf(str()),
        template: podTemplateSpec,
      }),
    },
  ],
  [
    'apps/Deployment',
    {
      spec: struct('v1.DeploymentSpec', {
        replicas: int32,
        minReadySeconds: int32,
        revisionHistoryLimit: int32,
        progressDeadlineSeconds: int32,
        paused: bool,
        selector: labelSelector,
        template: podTemplateSpec,
      }),
    },
  ],
  [
    'apps/StatefulSet',
    {
      spec: struct('v1.StatefulSetSpec', {
        replicas: int32,
        minReadySeconds: int32,
        revisionHistoryLimit: int32,
        serviceName: str(),
        selector: labelSelector,
        template: podTemplateSpec,
      }),
    },
  ],
  [
    'apps/ReplicaSet',
    {
      spec: struct('v1.ReplicaSetSpec', {
        replicas: int32,
        minReadySeconds: int32,
        selector: labelSelector,
        template: podTemplateSpec,
      }),
    },
  ],
  [
    'apps/DaemonSet',
    {
      spec: struct('v1.DaemonSetSpec', {
        minReadySeconds: int32,
        revisionHistoryLimit: int32,
        selector: labelSelector,
        template: podTemplateSpec,
      }),
    },
  ],
  ['batch/Job', { spec: jobSpec }],
  [
    'batch/CronJob',
    {
      spec: struct('v1.CronJobSpec', {
        schedule: str(),
        timeZone: str(),
        concurrencyPolicy: str('v1.ConcurrencyPolicy'),
        suspend: bool,
        startingDeadlineSeconds: int64,
        successfulJobsHistoryLimit: int32,
        failedJobsHistoryLimit: int32,
        jobTemplate: struct('v1.JobTemplateSpec', { metadata: objectMeta, spec: jobSpec }),
      }),
    },
  ],
]);

/**
 * The Go struct an object decodes into: for a built-in kind TypeMeta, ObjectMeta and the described
 * fields; for a custom resource (unstructured, its schema checked elsewhere) only its ObjectMeta,
 * which the server decodes on its own.
 */
export const objectStruct = (group: string, kind: string, custom: boolean): Extract<FieldType, { type: 'struct' }> =>
  custom
    ? struct('unstructured.Unstructured', { metadata: { ...objectMeta, detached: true } })
    : struct(`v1.${kind}`, {
        apiVersion: str(),
        kind: str(),
        metadata: objectMeta,
        ...kindFields.get(`${group}/${kind}`),
      });

/** The Go spelling of a type, as `encoding/json` names it (`map[string][]uint8`, `[]v1.ServicePort`). */
export const goTypeName = (type: FieldType): string => {
  switch (type.type) {
    case 'scalar':
      return type.goName;
    case 'bytes':
      return '[]uint8';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'map':
      return `map[string]${goTypeName(type.values)}`;
    case 'list':
      return `[]${goTypeName(type.items)}`;
    case 'struct':
      return type.goName;
  }
};

/** The struct's name without its package (`DeploymentSpec`), as `encoding/json` errors name it. */
export const goStructName = (type: Extract<FieldType, { type: 'struct' }>): string =>
  type.goName.slice(type.goName.lastIndexOf('.') + 1);

/** JSON's kind of a value in Go's words (`number`, `bool`, `object`, …). */
export const jsonKind = (value: JsonValue): string => {
  if (typeof value === 'boolean') return 'bool';
  if (isJsonArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  return typeof value;
};

/** `fmt`'s `%v` of a decoded JSON value (maps sorted by key, as Go prints them). */
export const goPlain = (value: JsonValue): string => {
  if (isJsonArray(value)) return `[${value.map(goPlain).join(' ')}]`;
  if (isJsonObject(value))
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goPlain(getOwn(value, k) ?? null)}`)
      .join(' ')}]`;
  return value === null ? '<nil>' : String(value);
};

/** `fmt`'s `%#v` of a decoded JSON value (`map[string]interface {}{"b":"c"}`, `[]interface {}{1}`). */
export const goSyntax = (value: JsonValue): string => {
  if (isJsonArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  if (isJsonObject(value))
    return `map[string]interface {}{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(getOwn(value, k) ?? null)}`)
      .join(', ')}}`;
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'interface {}(nil)' : String(value);
};

const int32Range = 2 ** 31;

/** Whether a JSON number fits the Go integer kind (`strconv.ParseInt` plus overflow). */
export const fitsInteger = (value: number, scalar: 'int32' | 'int64'): boolean => {
  const range = scalar === 'int64' ? 2 ** 63 : int32Range;
  return Number.isInteger(value) && value >= -range && value < range;
};
