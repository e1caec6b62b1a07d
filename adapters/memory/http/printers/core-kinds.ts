/** Rows of core/v1 kinds as kube-apiserver prints them (wide). */
import {
  getIn,
  isJsonArray,
  isJsonObject,
  ownKeyCount,
  type JsonObject,
  type JsonValue,
} from '../../../../core/json/json.js';
import { age, formatLabels, integer, nameOf, objectsAt, since, text } from './cells.js';
import type { Row } from './workloads.js';

const at = (object: JsonObject, ...path: ReadonlyArray<string>): JsonValue | undefined => getIn(object, path);

const countOf = (value: JsonValue | undefined): number => (isJsonObject(value) ? ownKeyCount(value) : 0);

export const configMapRow: Row = (object, now) => [
  nameOf(object),
  countOf(object.data) + countOf(object.binaryData),
  age(object, now),
];

export const secretRow: Row = (object, now) => [
  nameOf(object),
  text(object.type),
  countOf(object.data),
  age(object, now),
];

export const namespaceRow: Row = (object, now) => [
  nameOf(object),
  text(at(object, 'status', 'phase')),
  age(object, now),
];

export const serviceAccountRow: Row = (object, now) => [nameOf(object), age(object, now)];

/** `loadBalancerStatusStringer` (wide: never clipped): the IPs or host names, sorted and unique. */
export const loadBalancerAddresses = (status: JsonValue | undefined): string => {
  const ingress = isJsonObject(status) ? objectsAt(status, ['ingress']) : [];
  const addresses = ingress.map((entry) => text(entry.ip) || text(entry.hostname)).filter((a) => a !== '');
  return [...new Set(addresses)].sort().join(',');
};

const externalIp = (service: JsonObject): string => {
  const externalIps = at(service, 'spec', 'externalIPs');
  const listed = Array.isArray(externalIps) ? externalIps.map(text) : [];
  switch (at(service, 'spec', 'type')) {
    case 'ClusterIP':
    case 'NodePort':
      return listed.length > 0 ? listed.join(',') : '<none>';
    case 'LoadBalancer': {
      const balancer = loadBalancerAddresses(at(service, 'status', 'loadBalancer'));
      if (listed.length > 0) return [...(balancer === '' ? [] : balancer.split(',')), ...listed].join(',');
      return balancer === '' ? '<pending>' : balancer;
    }
    case 'ExternalName':
      return text(at(service, 'spec', 'externalName'));
    default:
      return '<unknown>';
  }
};

const portsOf = (service: JsonObject): string => {
  const ports = objectsAt(service, ['spec', 'ports']).map((port) => {
    const nodePort = integer(port.nodePort);
    const shown = nodePort > 0 ? `${integer(port.port)}:${nodePort}` : `${integer(port.port)}`;
    return `${shown}/${text(port.protocol)}`;
  });
  return ports.length === 0 ? '<none>' : ports.join(',');
};

export const serviceRow: Row = (object, now) => {
  const clusterIps = at(object, 'spec', 'clusterIPs');
  const [first] = isJsonArray(clusterIps) ? clusterIps : [];
  return [
    nameOf(object),
    text(at(object, 'spec', 'type')),
    typeof first === 'string' ? first : '<none>',
    externalIp(object),
    portsOf(object),
    age(object, now),
    formatLabels(at(object, 'spec', 'selector')),
  ];
};

const eventSource = (event: JsonObject): string => {
  const component = text(at(event, 'source', 'component')) || text(event.reportingComponent);
  const instance = text(at(event, 'source', 'host')) || text(event.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
};

const eventTimes = (event: JsonObject, now: number): { first: string; last: string; count: number } => {
  const first = since(event.firstTimestamp ?? event.eventTime, now);
  const series = event.series;
  if (isJsonObject(series)) return { first, last: since(series.lastObservedTime, now), count: integer(series.count) };
  const last =
    event.lastTimestamp === undefined || event.lastTimestamp === null ? first : since(event.lastTimestamp, now);
  const count = integer(event.count);
  return { first, last, count: count === 0 ? 1 : count };
};

export const eventRow: Row = (object, now) => {
  const involved = isJsonObject(object.involvedObject) ? object.involvedObject : {};
  const kind = text(involved.kind).toLowerCase();
  const target = text(involved.name) === '' ? kind : `${kind}/${text(involved.name)}`;
  const times = eventTimes(object, now);
  return [
    times.last,
    text(object.type),
    text(object.reason),
    target,
    text(involved.fieldPath),
    eventSource(object),
    text(object.message).trim(),
    times.first,
    times.count,
    nameOf(object),
  ];
};

const ACCESS_MODES: ReadonlyArray<readonly [string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** `GetAccessModesAsString`: the short names of the modes present, in a fixed order. */
export const accessModesText = (modes: JsonValue | undefined): string => {
  const present = new Set(Array.isArray(modes) ? modes.map(text) : []);
  return ACCESS_MODES.filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',');
};

const claimClass = (claim: JsonObject): string => {
  const annotated = at(claim, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class');
  if (typeof annotated === 'string') return annotated;
  return text(at(claim, 'spec', 'storageClassName'));
};

export const persistentVolumeClaimRow: Row = (object, now) => {
  const volumeName = text(at(object, 'spec', 'volumeName'));
  const bound = volumeName !== '';
  const attributesClass = at(object, 'spec', 'volumeAttributesClassName');
  const volumeMode = at(object, 'spec', 'volumeMode');
  return [
    nameOf(object),
    at(object, 'metadata', 'deletionTimestamp') === undefined ? text(at(object, 'status', 'phase')) : 'Terminating',
    volumeName,
    bound ? text(at(object, 'status', 'capacity', 'storage')) || '0' : '',
    bound ? accessModesText(at(object, 'status', 'accessModes')) : '',
    claimClass(object),
    typeof attributesClass === 'string' ? attributesClass : '<unset>',
    age(object, now),
    typeof volumeMode === 'string' ? volumeMode : '<unset>',
  ];
};

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `printResourceQuota`: each resource of `status.hard`, sorted, as `name: used/hard` (a missing
 * used quantity is Go's zero, "0"); `limits.*` in the LIMIT column, the others in REQUEST.
 */
export const resourceQuotaRow: Row = (object, now) => {
  const hard = at(object, 'status', 'hard');
  const used = at(object, 'status', 'used');
  const requests: string[] = [];
  const limits: string[] = [];
  for (const resource of Object.keys(isJsonObject(hard) ? hard : {}).sort(byCodeUnits)) {
    const usedText = (isJsonObject(used) ? text(used[resource]) : '') || '0';
    const hardText = (isJsonObject(hard) ? text(hard[resource]) : '') || '0';
    const pieces = resource.split('.');
    (pieces.length > 1 && pieces[0] === 'limits' ? limits : requests).push(`${resource}: ${usedText}/${hardText}`);
  }
  return [nameOf(object), requests.join(', '), limits.join(', '), age(object, now)];
};

/** `net.JoinHostPort`: brackets around an address with a colon (IPv6). */
const hostPort = (ip: string, port: JsonValue | undefined): string =>
  `${ip.includes(':') ? `[${ip}]` : ip}:${typeof port === 'number' ? port : 0}`;

/**
 * `formatEndpoints` (all ports): up to three `ip:port` (or bare IPs for a subset without ports), then `+ N more...`.
 */
const endpointsText = (endpoints: JsonObject): string => {
  const subsets = objectsAt(endpoints, ['subsets']);
  if (subsets.length === 0) return '<none>';
  const MAX = 3;
  const shown: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of subsets) {
    const ips = objectsAt(subset, ['addresses']).map((address) => text(address.ip));
    const ports = objectsAt(subset, ['ports']);
    const entries = ports.length === 0 ? [ips] : ports.map((port) => ips.map((ip) => hostPort(ip, port.port)));
    for (const group of entries) {
      count += group.length;
      for (const entry of group) {
        if (shown.length === MAX) {
          more = true;
          break;
        }
        shown.push(entry);
      }
    }
  }
  return more ? `${shown.join(',')} + ${count - MAX} more...` : shown.join(',');
};

export const endpointsRow: Row = (object, now) => [nameOf(object), endpointsText(object), age(object, now)];

export const podTemplateRow: Row = (object) => {
  const containers = objectsAt(object, ['template', 'spec', 'containers']);
  return [
    nameOf(object),
    containers.map((c) => text(c.name)).join(','),
    containers.map((c) => text(c.image)).join(','),
    formatLabels(at(object, 'template', 'metadata', 'labels')),
  ];
};
