/** Rows of networking, RBAC, policy, autoscaling, scheduling and storage kinds as kube-apiserver prints them (wide). */
import { getIn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../../core/json/json.js';
import { jsonText } from '../../../../core/json/text.js';
import { age, formatLabelSelector, integer, nameOf, objectsAt, text } from './cells.js';
import { loadBalancerAddresses } from './core-kinds.js';
import type { Row } from './workloads.js';

const at = (object: JsonObject, ...path: ReadonlyArray<string>): JsonValue | undefined => getIn(object, path);

/** `formatHosts`: the first three non-empty hosts, `+ N more...` past three rules, `*` for none. */
const ingressHosts = (rules: ReadonlyArray<JsonObject>): string => {
  const MAX = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === MAX) more = true;
    if (!more && text(rule.host) !== '') hosts.push(text(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - MAX} more...` : hosts.join(',');
};

export const ingressRow: Row = (object, now) => {
  const className = at(object, 'spec', 'ingressClassName');
  return [
    nameOf(object),
    typeof className === 'string' ? className : '<none>',
    ingressHosts(objectsAt(object, ['spec', 'rules'])),
    loadBalancerAddresses(at(object, 'status', 'loadBalancer')),
    objectsAt(object, ['spec', 'tls']).length === 0 ? '80' : '80, 443',
    age(object, now),
  ];
};

export const networkPolicyRow: Row = (object, now) => [
  nameOf(object),
  formatLabelSelector(at(object, 'spec', 'podSelector') ?? {}),
  age(object, now),
];

const subjectsOf = (binding: JsonObject): readonly [string, string, string] => {
  const subjects = objectsAt(binding, ['subjects']);
  const named = (kind: string): ReadonlyArray<JsonObject> => subjects.filter((s) => s.kind === kind);
  return [
    named('User')
      .map((s) => text(s.name))
      .join(', '),
    named('Group')
      .map((s) => text(s.name))
      .join(', '),
    named('ServiceAccount')
      .map((s) => `${text(s.namespace)}/${text(s.name)}`)
      .join(', '),
  ];
};

/** RoleBinding and ClusterRoleBinding. */
export const roleBindingRow: Row = (object, now) => [
  nameOf(object),
  `${text(at(object, 'roleRef', 'kind'))}/${text(at(object, 'roleRef', 'name'))}`,
  age(object, now),
  ...subjectsOf(object),
];

const intOrStringText = (value: JsonValue | undefined): string =>
  typeof value === 'number' ? String(value) : typeof value === 'string' ? value : 'N/A';

export const podDisruptionBudgetRow: Row = (object, now) => [
  nameOf(object),
  intOrStringText(at(object, 'spec', 'minAvailable')),
  intOrStringText(at(object, 'spec', 'maxUnavailable')),
  integer(at(object, 'status', 'disruptionsAllowed')),
  age(object, now),
];

const current = (status: JsonValue | undefined, source: string, field: string): string | undefined => {
  const value = isJsonObject(status) ? getIn(status, [source, 'current', field]) : undefined;
  return value === undefined || value === null ? undefined : jsonText(value);
};

/** One metric of `formatHPAMetrics`: `cpu: 40%/80%`, `<unknown>/100 (avg)`, … */
const metricText = (spec: JsonObject, status: JsonValue | undefined): string => {
  const type = text(spec.type);
  const source = type.charAt(0).toLowerCase() + type.slice(1);
  const body = isJsonObject(spec[source]) ? spec[source] : {};
  const target = isJsonObject(body.target) ? body.target : {};
  const average = target.averageValue;
  if (type === 'Resource' || type === 'ContainerResource') {
    const name = text(body.name);
    if (average !== undefined)
      return `${name}: ${current(status, source, 'averageValue') ?? '<unknown>'}/${text(average)}`;
    const percent = current(status, source, 'averageUtilization');
    const wanted = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
    return `${name}: ${percent === undefined ? '<unknown>' : `${percent}%`}/${wanted}`;
  }
  if (type === 'Pods') return `${current(status, source, 'averageValue') ?? '<unknown>'}/${text(average)}`;
  if (type !== 'Object' && type !== 'External') return '<unknown type>';
  if (average !== undefined) return `${current(status, source, 'averageValue') ?? '<unknown>'}/${text(average)} (avg)`;
  return `${current(status, source, 'value') ?? '<unknown>'}/${text(target.value)}`;
};

const hpaMetrics = (hpa: JsonObject): string => {
  const specs = objectsAt(hpa, ['spec', 'metrics']);
  if (specs.length === 0) return '<none>';
  const statuses = getIn(hpa, ['status', 'currentMetrics']);
  const shown = specs.map((spec, i) => metricText(spec, isJsonArray(statuses) ? statuses[i] : undefined));
  return shown.length > 2 ? `${shown.slice(0, 2).join(', ')} + ${shown.length - 2} more...` : shown.join(', ');
};

export const horizontalPodAutoscalerRow: Row = (object, now) => {
  const minReplicas = at(object, 'spec', 'minReplicas');
  return [
    nameOf(object),
    `${text(at(object, 'spec', 'scaleTargetRef', 'kind'))}/${text(at(object, 'spec', 'scaleTargetRef', 'name'))}`,
    hpaMetrics(object),
    typeof minReplicas === 'number' ? String(minReplicas) : '<unset>',
    integer(at(object, 'spec', 'maxReplicas')),
    integer(at(object, 'status', 'currentReplicas')),
    age(object, now),
  ];
};

export const priorityClassRow: Row = (object, now) => [
  nameOf(object),
  integer(object.value),
  object.globalDefault === true,
  age(object, now),
  text(object.preemptionPolicy),
];

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

export const storageClassRow: Row = (object, now) => {
  const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((key) => at(object, 'metadata', 'annotations', key) === 'true');
  const reclaim = object.reclaimPolicy;
  const binding = object.volumeBindingMode;
  return [
    `${nameOf(object)}${isDefault ? ' (default)' : ''}`,
    text(object.provisioner),
    typeof reclaim === 'string' ? reclaim : 'Delete',
    typeof binding === 'string' ? binding : 'Immediate',
    object.allowVolumeExpansion === true,
    age(object, now),
  ];
};

export const ingressClassRow: Row = (object, now) => {
  const isDefault = at(object, 'metadata', 'annotations', 'ingressclass.kubernetes.io/is-default-class') === 'true';
  const parameters = at(object, 'spec', 'parameters');
  const group = isJsonObject(parameters) && typeof parameters.apiGroup === 'string' ? `.${parameters.apiGroup}` : '';
  return [
    `${nameOf(object)}${isDefault ? ' (default)' : ''}`,
    text(at(object, 'spec', 'controller')),
    isJsonObject(parameters) ? `${text(parameters.kind)}${group}/${text(parameters.name)}` : '<none>',
    age(object, now),
  ];
};

export const runtimeClassRow: Row = (object, now) => [nameOf(object), text(object.handler), age(object, now)];

/** `formatResourceName` of the controller owner: `kind.group/name` in lower case (`statefulset.apps/web`). */
const controllerName = (object: JsonObject): string => {
  const owner = objectsAt(object, ['metadata', 'ownerReferences']).find((ref) => ref.controller === true);
  if (owner === undefined) return '<none>';
  const apiVersion = text(owner.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = text(owner.kind);
  const groupKind = group === '' ? kind : `${kind}.${group}`;
  return groupKind === '' ? text(owner.name) : `${groupKind.toLowerCase()}/${text(owner.name)}`;
};

export const controllerRevisionRow: Row = (object, now) => [
  nameOf(object),
  controllerName(object),
  integer(object.revision),
  age(object, now),
];
