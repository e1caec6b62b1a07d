/**
 * Rows of Node, PersistentVolume, Lease, EndpointSlice and the admission webhook configurations
 * as kube-apiserver 1.36 prints them (wide; pkg/printers/internalversion: printNode,
 * printPersistentVolume, printLease, printEndpointSlice, printValidatingWebhook,
 * printMutatingWebhook).
 */
import { getIn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../../core/json/json.js';
import { accessModesText } from './core-kinds.js';
import { age, nameOf, objectsAt, text } from './cells.js';
import type { Row } from './workloads.js';

const at = (object: JsonObject, ...path: ReadonlyArray<string>): JsonValue | undefined => getIn(object, path);

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** `findNodeRoles`: `node-role.kubernetes.io/<role>` keys and `kubernetes.io/role` values, sorted, unique. */
const nodeRoles = (node: JsonObject): string => {
  const labels = at(node, 'metadata', 'labels');
  const roles = new Set<string>();
  for (const [key, value] of isJsonObject(labels) ? Object.entries(labels) : []) {
    if (key.startsWith(ROLE_PREFIX) && key.length > ROLE_PREFIX.length) roles.add(key.slice(ROLE_PREFIX.length));
    else if (key === ROLE_LABEL && text(value) !== '') roles.add(text(value));
  }
  const sorted = [...roles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.length === 0 ? '<none>' : sorted.join(',');
};

/** Ready or NotReady from the last Ready condition (Go's map keeps the last), Unknown without one. */
const nodeStatus = (node: JsonObject): string => {
  const ready = objectsAt(node, ['status', 'conditions'])
    .filter((condition) => condition.type === 'Ready')
    .at(-1);
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (at(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
};

const nodeAddress = (node: JsonObject, type: string): string =>
  text(objectsAt(node, ['status', 'addresses']).find((address) => address.type === type)?.address) || '<none>';

export const nodeRow: Row = (object, now) => {
  const info = (field: string): string => text(at(object, 'status', 'nodeInfo', field));
  const architecture = info('architecture');
  const kernel = info('kernelVersion') || '<unknown>';
  return [
    nameOf(object),
    nodeStatus(object),
    nodeRoles(object),
    age(object, now),
    info('kubeletVersion'),
    nodeAddress(object, 'InternalIP'),
    nodeAddress(object, 'ExternalIP'),
    info('osImage') || '<unknown>',
    architecture === '' ? kernel : `${kernel} (${architecture})`,
    info('containerRuntimeVersion') || '<unknown>',
  ];
};

/** `GetPersistentVolumeClass`: the beta annotation first, then `spec.storageClassName`. */
const volumeClass = (volume: JsonObject): string => {
  const annotated = at(volume, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class');
  return typeof annotated === 'string' ? annotated : text(at(volume, 'spec', 'storageClassName'));
};

const unsetOr = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '<unset>');

export const persistentVolumeRow: Row = (object, now) => {
  const claim = at(object, 'spec', 'claimRef');
  return [
    nameOf(object),
    // The stored quantity is canonical already; a missing one is Go's zero Quantity, "0".
    text(at(object, 'spec', 'capacity', 'storage')) || '0',
    accessModesText(at(object, 'spec', 'accessModes')),
    text(at(object, 'spec', 'persistentVolumeReclaimPolicy')),
    at(object, 'metadata', 'deletionTimestamp') === undefined ? text(at(object, 'status', 'phase')) : 'Terminating',
    isJsonObject(claim) ? `${text(claim.namespace)}/${text(claim.name)}` : '',
    volumeClass(object),
    unsetOr(at(object, 'spec', 'volumeAttributesClassName')),
    text(at(object, 'status', 'reason')),
    age(object, now),
    unsetOr(at(object, 'spec', 'volumeMode')),
  ];
};

export const leaseRow: Row = (object, now) => [
  nameOf(object),
  text(at(object, 'spec', 'holderIdentity')),
  age(object, now),
];

const SHOWN = 3;

/** `listWithMoreString`: the first three, then `+ N more...`; `<unset>` for none. */
const listWithMore = (items: ReadonlyArray<string>): string => {
  if (items.length > SHOWN) return `${items.slice(0, SHOWN).join(',')} + ${items.length - SHOWN} more...`;
  const shown = items.join(',');
  return shown === '' ? '<unset>' : shown;
};

/** `formatDiscoveryPorts`: each port's number, else its name, else `*`. */
const slicePorts = (slice: JsonObject): string =>
  listWithMore(
    objectsAt(slice, ['ports']).map((port) =>
      typeof port.port === 'number' ? String(port.port) : typeof port.name === 'string' ? port.name : '*',
    ),
  );

/** `formatDiscoveryEndpoints`: every address of every endpoint. */
const sliceEndpoints = (slice: JsonObject): string =>
  listWithMore(
    objectsAt(slice, ['endpoints']).flatMap((endpoint) =>
      isJsonArray(endpoint.addresses) ? endpoint.addresses.map(text) : [],
    ),
  );

export const endpointSliceRow: Row = (object, now) => [
  nameOf(object),
  text(object.addressType),
  slicePorts(object),
  sliceEndpoints(object),
  age(object, now),
];

/** ValidatingWebhookConfiguration and MutatingWebhookConfiguration: how many webhooks. */
export const webhookConfigurationRow: Row = (object, now) => [
  nameOf(object),
  isJsonArray(object.webhooks) ? object.webhooks.length : 0,
  age(object, now),
];
