/** Server defaults of a pod spec (core/v1 `SetDefaults_PodSpec`, `SetDefaults_Container`, probes, volumes). */
import { getOwn, hasOwn, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import { mapIn, mapItems, withDefaults } from './json-edit.js';

/** `Always` for `:latest` or no tag, else `IfNotPresent` (digests count as pinned). */
export const pullPolicyFor = (image: JsonValue | undefined): string => {
  if (typeof image !== 'string' || image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  return colon < 0 || lastSegment.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
};

const defaultProbe = (probe: JsonObject): JsonObject =>
  mapIn(
    withDefaults(probe, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 }),
    ['httpGet'],
    (httpGet) => withDefaults(httpGet, { path: '/', scheme: 'HTTP' }),
  );

const defaultEnvVar = (env: JsonObject): JsonObject =>
  mapIn(env, ['valueFrom', 'fieldRef'], (fieldRef) => withDefaults(fieldRef, { apiVersion: 'v1' }));

export const defaultContainer = (container: JsonObject): JsonObject => {
  const withBasics = withDefaults(container, {
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: pullPolicyFor(getOwn(container, 'image')),
    resources: {},
  });
  const withPorts = mapItems(
    mapItems(withBasics, 'ports', (port) => withDefaults(port, { protocol: 'TCP' })),
    'env',
    defaultEnvVar,
  );
  return ['livenessProbe', 'readinessProbe', 'startupProbe'].reduce(
    (c, probe) => mapIn(c, [probe], defaultProbe),
    withPorts,
  );
};

const defaultVolume = (volume: JsonObject): JsonObject =>
  mapIn(
    ['configMap', 'secret', 'downwardAPI', 'projected'].reduce(
      (v, source) => mapIn(v, [source], (inner) => withDefaults(inner, { defaultMode: 420 })),
      volume,
    ),
    ['hostPath'],
    defaultHostPath,
  );

/** `hostPath.type` is a pointer the server sets to the empty string. */
export const defaultHostPath = (hostPath: JsonObject): JsonObject =>
  hasOwn(hostPath, 'type') ? hostPath : { ...hostPath, type: '' };

export const defaultPodSpec = (spec: JsonObject): JsonObject => {
  const withFields = withDefaults(spec, {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
  });
  return mapItems(
    mapItems(mapItems(withFields, 'containers', defaultContainer), 'initContainers', defaultContainer),
    'volumes',
    defaultVolume,
  );
};

/** Defaults of a pod template (`spec.template`) inside a workload. */
export const defaultPodTemplate = (template: JsonObject): JsonObject => mapIn(template, ['spec'], defaultPodSpec);
