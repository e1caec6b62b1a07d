/**
 * The status subresource split: writes to the main resource keep the stored `status`, writes
 * to `/status` keep everything else. Create resets `status` (custom resources: dropped; built-ins:
 * their initial status).
 */
import {
  getIn,
  getOwn,
  isJsonArray,
  isJsonObject,
  withKey,
  withoutKey,
  type JsonValue,
} from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { KindInfo } from '../kinds/index.js';
import { defined } from '../../../core/json/defined.js';

const setStatus = (object: Resource, status: JsonValue | undefined): Resource =>
  status === undefined ? withoutKey(object, 'status') : withKey(object, 'status', status);

/** A main-resource write: the candidate with the stored status (when `status` is a subresource). */
export const keepStoredStatus = (info: KindInfo, stored: Resource, candidate: Resource): Resource =>
  info.statusSubresource ? setStatus(candidate, getOwn(stored, 'status')) : candidate;

/** A custom resource's status write: the stored object with the candidate's status (absent status removes it). */
export const takeStatusOnly = (stored: Resource, candidate: Resource): Resource =>
  setStatus(stored, getOwn(candidate, 'status'));

/** Built-in status strategies whose labels cannot change through `/status` either (verified on 1.36). */
const labelsKept = new Set(['apps/Deployment']);

/**
 * A built-in kind's status write: the stored spec is kept, the rest of the request is taken —
 * metadata included (its system fields are carried over by the caller), as the built-in status
 * strategies do (they reset `spec`, and a Deployment's `labels`).
 */
export const keepStoredSpec = (info: KindInfo, stored: Resource, candidate: Resource): Resource => {
  const spec = getOwn(stored, 'spec');
  const withSpec = spec === undefined ? withoutKey(candidate, 'spec') : withKey(candidate, 'spec', spec);
  if (!labelsKept.has(`${info.group}/${info.kind}`)) return withSpec;
  const { labels: _sent, ...meta } = withSpec.metadata;
  return {
    ...withSpec,
    metadata: { ...meta, ...defined({ labels: stored.metadata.labels }) },
  };
};

const hasResources = (container: JsonValue): boolean => {
  const resources = getIn(container, ['resources']);
  return (
    isJsonObject(resources) &&
    ['requests', 'limits'].some((key) => {
      const amounts = getOwn(resources, key);
      return isJsonObject(amounts) && Object.keys(amounts).length > 0;
    })
  );
};

/**
 * Pod QoS class, simplified: BestEffort without any requests/limits, Guaranteed when limits equal requests everywhere.
 */
const qosClass = (pod: Resource): string => {
  const containers = getIn(pod, ['spec', 'containers']);
  const list = isJsonArray(containers) ? containers : [];
  if (!list.some(hasResources)) return 'BestEffort';
  const guaranteed = list.every((c) => {
    const limits = getIn(c, ['resources', 'limits']);
    const requests = getIn(c, ['resources', 'requests']);
    return (
      isJsonObject(limits) &&
      ['cpu', 'memory'].every((r) => getOwn(limits, r) !== undefined) &&
      (requests === undefined || JSON.stringify(requests) === JSON.stringify(limits))
    );
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
};

/** The status built-in strategies reset to on create (zero values as the API serialises them). */
const initialStatuses: ReadonlyMap<string, JsonValue> = new Map<string, JsonValue>([
  ['/Service', { loadBalancer: {} }],
  ['/PersistentVolumeClaim', { phase: 'Pending' }],
  ['/PersistentVolume', { phase: 'Pending' }],
  ['apps/StatefulSet', { replicas: 0, availableReplicas: 0 }],
  ['apps/DaemonSet', { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }],
  ['apps/ReplicaSet', { replicas: 0 }],
  ['/ReplicationController', { replicas: 0 }],
  ['networking.k8s.io/Ingress', { loadBalancer: {} }],
  ['policy/PodDisruptionBudget', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }],
  ['autoscaling/HorizontalPodAutoscaler', { desiredReplicas: 0, currentMetrics: null }],
]);

const initialStatus = (info: KindInfo, object: Resource): JsonValue => {
  const key = `${info.group}/${info.kind}`;
  if (key === '/Pod') return { phase: 'Pending', qosClass: qosClass(object) };
  return initialStatuses.get(key) ?? {};
};

/** The object as create stores it: status reset for kinds with a status subresource. */
export const statusOnCreate = (info: KindInfo, object: Resource): Resource => {
  if (!info.statusSubresource) return object;
  return setStatus(object, info.custom ? undefined : initialStatus(info, object));
};
