/**
 * Workload controllers, simulated (kwok-style): Deployments, StatefulSets, ReplicaSets and
 * DaemonSets roll out at once, Jobs complete, PVCs bind, LoadBalancer Services get an address.
 * Opt-in (`workloads: true`): a bare API server runs none of these, and the contract suite
 * compares the memory adapter with one.
 */
import { getIn, isJsonObject, withKey, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ServerState } from '../server-state.js';
import { isDeleting, systemWrite } from '../verbs/index.js';

const replicas = (object: Resource): number => {
  const r = getIn(object, ['spec', 'replicas']);
  return typeof r === 'number' ? r : 1;
};

const condition = (type: string, now: string) => ({
  type,
  status: 'True',
  lastTransitionTime: now,
  lastUpdateTime: now,
  reason: type === 'Available' ? 'MinimumReplicasAvailable' : type,
  message: `simulated by the in-memory cluster`,
});

/**
 * The status a controller would settle on for `object` once it is rolled out (what kstatus readiness
 * reads), or undefined when it runs none; `plan --simulate` assumes the same.
 */
export const settledStatus = (object: Resource, now: string): JsonObject | undefined => {
  const generation = object.metadata.generation ?? 1;
  switch (`${object.apiVersion}/${object.kind}`) {
    case 'apps/v1/Deployment':
    case 'apps/v1/ReplicaSet':
      return {
        observedGeneration: generation,
        replicas: replicas(object),
        updatedReplicas: replicas(object),
        readyReplicas: replicas(object),
        availableReplicas: replicas(object),
        conditions: [condition('Available', now)],
      };
    case 'apps/v1/StatefulSet':
      return {
        observedGeneration: generation,
        replicas: replicas(object),
        updatedReplicas: replicas(object),
        readyReplicas: replicas(object),
        currentReplicas: replicas(object),
        availableReplicas: replicas(object),
      };
    case 'apps/v1/DaemonSet':
      return {
        observedGeneration: generation,
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        updatedNumberScheduled: 1,
        numberAvailable: 1,
        numberReady: 1,
        numberMisscheduled: 0,
      };
    case 'batch/v1/Job':
      return { succeeded: 1, conditions: [{ ...condition('Complete', now), reason: 'Completed' }] };
    case 'v1/PersistentVolumeClaim':
      return { phase: 'Bound' };
    case 'v1/Service':
      return getIn(object, ['spec', 'type']) === 'LoadBalancer'
        ? { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } }
        : undefined;
    default:
      return undefined;
  }
};

/** One pass: every workload whose status is not settled gets it; returns whether anything changed. */
export const runWorkloads = (state: ServerState): boolean =>
  [...state.objects.values()]
    .map((object) => {
      if (isDeleting(object)) return false;
      const status = settledStatus(object, new Date(state.clock.now()).toISOString());
      if (status === undefined) return false;
      const current = isJsonObject(object.status) ? object.status : {};
      if (
        Object.entries(status).every(([key, value]) =>
          key === 'conditions' ? current[key] !== undefined : JSON.stringify(current[key]) === JSON.stringify(value),
        )
      )
        return false;
      const info = state.registry.byGroupKind(
        object.apiVersion.includes('/') ? object.apiVersion.slice(0, object.apiVersion.lastIndexOf('/')) : '',
        object.kind,
      );
      return info === undefined
        ? false
        : systemWrite(state, info, object, (stored) =>
            withKey(stored, 'status', { ...(isJsonObject(stored.status) ? stored.status : {}), ...status }),
          );
    })
    .some(Boolean);
