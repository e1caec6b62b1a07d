/**
 * Readiness of a child by kstatus rules: workloads rolled out and available, Jobs complete,
 * LoadBalancer Services with an address, PVCs bound, custom resources Ready for their current
 * generation; any other object is ready once it exists.
 */
import { getIn, isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import type { Resource } from '../model/resource.js';
import { jsonText } from '../json/text.js';

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

const READY: Readiness = { ready: true };
const waiting = (reason: string): Readiness => ({ ready: false, reason });

// Paths read for every child of every plan, built once.
const STATUS_CONDITIONS = ['status', 'conditions'];
const STATUS_OBSERVED_GENERATION = ['status', 'observedGeneration'];
const SPEC_REPLICAS = ['spec', 'replicas'];
const STATUS_UPDATED_REPLICAS = ['status', 'updatedReplicas'];
const STATUS_READY_REPLICAS = ['status', 'readyReplicas'];
const STATUS_AVAILABLE_REPLICAS = ['status', 'availableReplicas'];
const STATUS_DESIRED_NUMBER_SCHEDULED = ['status', 'desiredNumberScheduled'];
const STATUS_NUMBER_AVAILABLE = ['status', 'numberAvailable'];
const STATUS_UPDATED_NUMBER_SCHEDULED = ['status', 'updatedNumberScheduled'];
const SPEC_TYPE = ['spec', 'type'];
const STATUS_LOAD_BALANCER_INGRESS = ['status', 'loadBalancer', 'ingress'];
const STATUS_PHASE = ['status', 'phase'];

const num = (value: JsonValue | undefined, fallback = 0): number => (typeof value === 'number' ? value : fallback);

const conditionStatus = (
  object: Resource,
  type: string,
): { status?: string; observedGeneration?: number } | undefined => {
  const conditions = getIn(object, STATUS_CONDITIONS);
  if (!isJsonArray(conditions)) return undefined;
  const found = conditions.find((c) => isJsonObject(c) && c.type === type);
  if (!isJsonObject(found)) return undefined;
  return {
    ...(typeof found.status === 'string' ? { status: found.status } : {}),
    ...(typeof found.observedGeneration === 'number' ? { observedGeneration: found.observedGeneration } : {}),
  };
};

/** The controller has seen the latest spec (status.observedGeneration >= metadata.generation). */
const observedCurrent = (object: Resource): boolean =>
  object.metadata.generation === undefined ||
  num(getIn(object, STATUS_OBSERVED_GENERATION), -1) >= object.metadata.generation;

const replicated = (object: Resource, kind: string): Readiness => {
  if (!observedCurrent(object))
    return waiting(`${kind} controller has not observed generation ${object.metadata.generation}`);
  const wanted = num(getIn(object, SPEC_REPLICAS), 1);
  const updated = num(getIn(object, STATUS_UPDATED_REPLICAS));
  const available = num(getIn(object, kind === 'StatefulSet' ? STATUS_READY_REPLICAS : STATUS_AVAILABLE_REPLICAS));
  if (updated < wanted) return waiting(`${updated}/${wanted} replicas updated`);
  if (available < wanted) return waiting(`${available}/${wanted} replicas available`);
  return READY;
};

const daemonSet = (object: Resource): Readiness => {
  if (!observedCurrent(object))
    return waiting(`DaemonSet controller has not observed generation ${object.metadata.generation}`);
  const desired = num(getIn(object, STATUS_DESIRED_NUMBER_SCHEDULED));
  const available = num(getIn(object, STATUS_NUMBER_AVAILABLE));
  const updated = num(getIn(object, STATUS_UPDATED_NUMBER_SCHEDULED));
  return updated < desired || available < desired ? waiting(`${available}/${desired} pods available`) : READY;
};

const job = (object: Resource): Readiness => {
  if (conditionStatus(object, 'Failed')?.status === 'True') return waiting('Job failed');
  return conditionStatus(object, 'Complete')?.status === 'True' ? READY : waiting('Job not complete');
};

const service = (object: Resource): Readiness => {
  if (getIn(object, SPEC_TYPE) !== 'LoadBalancer') return READY;
  const ingress = getIn(object, STATUS_LOAD_BALANCER_INGRESS);
  return isJsonArray(ingress) && ingress.length > 0 ? READY : waiting('no load balancer address yet');
};

const claim = (object: Resource): Readiness =>
  getIn(object, STATUS_PHASE) === 'Bound'
    ? READY
    : waiting(`PersistentVolumeClaim is ${jsonText(getIn(object, STATUS_PHASE) ?? 'Pending')}`);

const pod = (object: Resource): Readiness => {
  const phase = getIn(object, STATUS_PHASE);
  if (phase === 'Succeeded') return READY;
  return conditionStatus(object, 'Ready')?.status === 'True'
    ? READY
    : waiting(`Pod is ${jsonText(phase ?? 'Pending')}`);
};

/** A custom resource with a `Ready` condition must have it True for its current generation. */
const custom = (object: Resource): Readiness => {
  const ready = conditionStatus(object, 'Ready');
  if (ready === undefined) return READY;
  if (
    ready.observedGeneration !== undefined &&
    object.metadata.generation !== undefined &&
    ready.observedGeneration < object.metadata.generation
  ) {
    return waiting(`Ready condition is for generation ${ready.observedGeneration}, not ${object.metadata.generation}`);
  }
  return ready.status === 'True' ? READY : waiting('Ready condition is not True');
};

const BUILTIN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'autoscaling',
  'storage.k8s.io',
  'apiextensions.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'scheduling.k8s.io',
]);

/** Whether a live child counts as ready (kstatus); objects being deleted never do. */
export const readinessOf = (object: Resource): Readiness => {
  if (object.metadata.deletionTimestamp !== undefined) return waiting('being deleted');
  // Runs for every child of every plan: the group is compared in place, never sliced out.
  const { apiVersion, kind } = object;
  const slash = apiVersion.lastIndexOf('/');
  if (inGroup(apiVersion, slash, 'apps')) {
    if (kind === 'Deployment' || kind === 'StatefulSet' || kind === 'ReplicaSet') return replicated(object, kind);
    if (kind === 'DaemonSet') return daemonSet(object);
  } else if (inGroup(apiVersion, slash, 'batch')) {
    if (kind === 'Job') return job(object);
  } else if (slash <= 0) {
    if (kind === 'Service') return service(object);
    if (kind === 'PersistentVolumeClaim') return claim(object);
    if (kind === 'Pod') return pod(object);
    return READY;
  }
  return BUILTIN_GROUPS.has(apiVersion.slice(0, slash)) ? READY : custom(object);
};

/** Whether `apiVersion` (its last `/` at `slash`) is of API group `group`. */
const inGroup = (apiVersion: string, slash: number, group: string): boolean =>
  slash === group.length && apiVersion.startsWith(group);
