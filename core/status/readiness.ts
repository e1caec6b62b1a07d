/**
 * Readiness of a child by kstatus rules: workloads rolled out and available, Jobs complete,
 * LoadBalancer Services with an address, PVCs bound, custom resources Ready for their current
 * generation; any other object is ready once it exists.
 */
import { getIn, isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import type { Resource } from '../model/resource.js';

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

const READY: Readiness = { ready: true };
const waiting = (reason: string): Readiness => ({ ready: false, reason });

const num = (value: JsonValue | undefined, fallback = 0): number => (typeof value === 'number' ? value : fallback);

const conditionStatus = (object: Resource, type: string): { status?: string; observedGeneration?: number } | undefined => {
  const conditions = getIn(object, ['status', 'conditions']);
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
  object.metadata.generation === undefined || num(getIn(object, ['status', 'observedGeneration']), -1) >= object.metadata.generation;

const replicated = (object: Resource, kind: string): Readiness => {
  if (!observedCurrent(object)) return waiting(`${kind} controller has not observed generation ${object.metadata.generation}`);
  const wanted = num(getIn(object, ['spec', 'replicas']), 1);
  const updated = num(getIn(object, ['status', 'updatedReplicas']));
  const available = num(getIn(object, ['status', kind === 'StatefulSet' ? 'readyReplicas' : 'availableReplicas']));
  if (updated < wanted) return waiting(`${updated}/${wanted} replicas updated`);
  if (available < wanted) return waiting(`${available}/${wanted} replicas available`);
  return READY;
};

const daemonSet = (object: Resource): Readiness => {
  if (!observedCurrent(object)) return waiting(`DaemonSet controller has not observed generation ${object.metadata.generation}`);
  const desired = num(getIn(object, ['status', 'desiredNumberScheduled']));
  const available = num(getIn(object, ['status', 'numberAvailable']));
  const updated = num(getIn(object, ['status', 'updatedNumberScheduled']));
  return updated < desired || available < desired ? waiting(`${available}/${desired} pods available`) : READY;
};

const job = (object: Resource): Readiness => {
  if (conditionStatus(object, 'Failed')?.status === 'True') return waiting('Job failed');
  return conditionStatus(object, 'Complete')?.status === 'True' ? READY : waiting('Job not complete');
};

const service = (object: Resource): Readiness => {
  if (getIn(object, ['spec', 'type']) !== 'LoadBalancer') return READY;
  const ingress = getIn(object, ['status', 'loadBalancer', 'ingress']);
  return isJsonArray(ingress) && ingress.length > 0 ? READY : waiting('no load balancer address yet');
};

const claim = (object: Resource): Readiness =>
  getIn(object, ['status', 'phase']) === 'Bound' ? READY : waiting(`PersistentVolumeClaim is ${String(getIn(object, ['status', 'phase']) ?? 'Pending')}`);

const pod = (object: Resource): Readiness => {
  const phase = getIn(object, ['status', 'phase']);
  if (phase === 'Succeeded') return READY;
  return conditionStatus(object, 'Ready')?.status === 'True' ? READY : waiting(`Pod is ${String(phase ?? 'Pending')}`);
};

/** A custom resource with a `Ready` condition must have it True for its current generation. */
const custom = (object: Resource): Readiness => {
  const ready = conditionStatus(object, 'Ready');
  if (ready === undefined) return READY;
  if (ready.observedGeneration !== undefined && object.metadata.generation !== undefined && ready.observedGeneration < object.metadata.generation) {
    return waiting(`Ready condition is for generation ${ready.observedGeneration}, not ${object.metadata.generation}`);
  }
  return ready.status === 'True' ? READY : waiting('Ready condition is not True');
};

const BUILTIN_GROUPS = new Set(['', 'apps', 'batch', 'policy', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'autoscaling', 'storage.k8s.io', 'apiextensions.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io', 'scheduling.k8s.io']);

/** Whether a live child counts as ready (kstatus); objects being deleted never do. */
export const readinessOf = (object: Resource): Readiness => {
  if (object.metadata.deletionTimestamp !== undefined) return waiting('being deleted');
  const group = object.apiVersion.includes('/') ? object.apiVersion.slice(0, object.apiVersion.lastIndexOf('/')) : '';
  switch (`${group}/${object.kind}`) {
    case 'apps/Deployment': return replicated(object, 'Deployment');
    case 'apps/StatefulSet': return replicated(object, 'StatefulSet');
    case 'apps/ReplicaSet': return replicated(object, 'ReplicaSet');
    case 'apps/DaemonSet': return daemonSet(object);
    case 'batch/Job': return job(object);
    case '/Service': return service(object);
    case '/PersistentVolumeClaim': return claim(object);
    case '/Pod': return pod(object);
    default: return BUILTIN_GROUPS.has(group) ? READY : custom(object);
  }
};
