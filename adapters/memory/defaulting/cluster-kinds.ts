/** Server defaults of storage, scheduling, RBAC, limits and endpoint kinds (core/v1 and friends). */
import { getIn, getOwn, type JsonObject } from '../../../core/json/json.js';
import { mapIn, mapItems, objectAt, withDefaults, withPointerDefaults } from './json-edit.js';
import { defaultHostPath } from './pod-spec.js';

export const defaultPersistentVolumeSpec = (spec: JsonObject): JsonObject =>
  mapIn(
    withDefaults(spec, { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }),
    ['hostPath'],
    defaultHostPath,
  );

/** Both are pointers: `reclaimPolicy: ""` is stored as written (the differential test found it). */
export const defaultStorageClass = (object: JsonObject): JsonObject =>
  withPointerDefaults(object, { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });

export const defaultPriorityClass = (object: JsonObject): JsonObject =>
  withDefaults(object, { preemptionPolicy: 'PreemptLowerPriority' });

/** Users and groups are RBAC subjects of the rbac.authorization.k8s.io group. */
export const defaultBindingSubjects = (object: JsonObject): JsonObject =>
  mapItems(object, 'subjects', (subject) =>
    getOwn(subject, 'kind') === 'User' || getOwn(subject, 'kind') === 'Group'
      ? withDefaults(subject, { apiGroup: 'rbac.authorization.k8s.io' })
      : subject,
  );

/** Container limits: the default limit falls back to max, the default request to the default limit, then to min. */
const defaultLimitItem = (item: JsonObject): JsonObject => {
  if (getOwn(item, 'type') !== 'Container') return item;
  const fallback = { ...objectAt(item, 'max'), ...objectAt(item, 'default') };
  const request = { ...objectAt(item, 'min'), ...fallback, ...objectAt(item, 'defaultRequest') };
  return {
    ...item,
    ...(Object.keys(fallback).length > 0 ? { default: fallback } : {}),
    ...(Object.keys(request).length > 0 ? { defaultRequest: request } : {}),
  };
};

export const defaultLimitRangeSpec = (spec: JsonObject): JsonObject => mapItems(spec, 'limits', defaultLimitItem);

const defaultEndpointPort = (port: JsonObject): JsonObject => withDefaults(port, { protocol: 'TCP' });

export const defaultEndpointSlice = (object: JsonObject): JsonObject =>
  mapItems(
    mapItems(object, 'endpoints', (endpoint) =>
      getIn(endpoint, ['conditions']) === undefined ? { ...endpoint, conditions: {} } : endpoint,
    ),
    'ports',
    (port) => ({ name: '', ...defaultEndpointPort(port) }),
  );

export const defaultEndpoints = (object: JsonObject): JsonObject =>
  mapItems(object, 'subsets', (subset) => mapItems(subset, 'ports', defaultEndpointPort));
