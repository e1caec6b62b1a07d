/**
 * Server defaults of kinds other than workloads: Service, Secret, PersistentVolumeClaim, HorizontalPodAutoscaler,
 * NetworkPolicy.
 */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import { jsonText } from '../../../core/json/text.js';
import { mapItems, withDefaults, withPointerDefaults } from './json-edit.js';

const defaultServicePort = (port: JsonObject): JsonObject =>
  withDefaults(port, { protocol: 'TCP', targetPort: (p) => getOwn(p, 'port') });

/** Service spec defaults; cluster IPs, IP families and node ports are allocated by the Service hook. */
export const defaultServiceSpec = (spec: JsonObject): JsonObject => {
  const typed = withDefaults(spec, { type: 'ClusterIP', sessionAffinity: 'None' });
  const type = getOwn(typed, 'type');
  const traffic = type === 'ExternalName' ? typed : withDefaults(typed, { internalTrafficPolicy: 'Cluster' });
  const external =
    type === 'NodePort' || type === 'LoadBalancer'
      ? withDefaults(traffic, { externalTrafficPolicy: 'Cluster' })
      : traffic;
  const balanced = type === 'LoadBalancer' ? withDefaults(external, { allocateLoadBalancerNodePorts: true }) : external;
  return mapItems(withAffinityTimeout(balanced), 'ports', defaultServicePort);
};

/**
 * As SetDefaults_Service: no session affinity, no affinity config; client-IP affinity without a
 * timeout gets 10800 s (the whole config replaced then).
 */
const withAffinityTimeout = (spec: JsonObject): JsonObject => {
  if (getOwn(spec, 'sessionAffinity') === 'None' && getOwn(spec, 'sessionAffinityConfig') !== undefined) {
    const { sessionAffinityConfig: _dropped, ...rest } = spec;
    return rest;
  }
  if (getOwn(spec, 'sessionAffinity') !== 'ClientIP') return spec;
  const config = getOwn(spec, 'sessionAffinityConfig');
  const clientIP = isJsonObject(config) ? getOwn(config, 'clientIP') : undefined;
  const timeout = isJsonObject(clientIP) ? getOwn(clientIP, 'timeoutSeconds') : undefined;
  if (timeout !== undefined && timeout !== null) return spec;
  return { ...spec, sessionAffinityConfig: { clientIP: { timeoutSeconds: 10_800 } } };
};

/**
 * Secret: `type: Opaque`, and `stringData` is write-only — folded into `data` (base64, winning
 * over `data`) and never stored, so a controller that diffs `stringData` sees it vanish.
 */
export const defaultSecret = (secret: JsonObject): JsonObject => {
  const typed = withDefaults(secret, { type: 'Opaque' });
  const stringData = getOwn(typed, 'stringData');
  if (stringData === undefined) return typed;
  const { stringData: _dropped, ...rest } = typed;
  if (!isJsonObject(stringData)) return rest;
  const data = getOwn(rest, 'data');
  const encoded = Object.entries(stringData).map(
    ([key, value]) => [key, Buffer.from(jsonText(value), 'utf8').toString('base64')] as const,
  );
  return {
    ...rest,
    data: objectFromEntries([...Object.entries<JsonValue>(isJsonObject(data) ? data : {}), ...encoded]),
  };
};

export const defaultClaimSpec = (spec: JsonObject): JsonObject => withDefaults(spec, { volumeMode: 'Filesystem' });

/** autoscaling/v2: at least one replica, and CPU at 80% when no metric is given. */
export const defaultAutoscalerSpec = (spec: JsonObject): JsonObject =>
  withDefaults(spec, {
    minReplicas: 1,
    metrics: (s) => {
      const metrics = getOwn(s, 'metrics');
      return isJsonArray(metrics) && metrics.length > 0
        ? undefined
        : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
    },
  });

/** NetworkPolicy: Ingress always, Egress when egress rules are given. */
/** `SetDefaults_NetworkPolicyPort`: every port of every ingress and egress rule is TCP unless it says. */
const defaultRulePorts = (rule: JsonObject): JsonObject =>
  mapItems(rule, 'ports', (port) => withPointerDefaults(port, { protocol: 'TCP' }));

export const defaultNetworkPolicySpec = (spec: JsonObject): JsonObject =>
  withDefaults(mapItems(mapItems(spec, 'ingress', defaultRulePorts), 'egress', defaultRulePorts), {
    policyTypes: (s) => {
      const egress = getOwn(s, 'egress');
      return isJsonArray(egress) && egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
    },
  });
