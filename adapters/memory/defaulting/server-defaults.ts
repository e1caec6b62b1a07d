/**
 * Server-side defaulting of built-in kinds, as kube-apiserver applies it on every write: the
 * fields a naive controller did not write but reads back (and would fight forever).
 */
import type { JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import {
  defaultAutoscalerSpec,
  defaultClaimSpec,
  defaultNetworkPolicySpec,
  defaultSecret,
  defaultServiceSpec,
} from './core-kinds.js';
import { mapIn } from './json-edit.js';
import {
  defaultBindingSubjects,
  defaultEndpoints,
  defaultEndpointSlice,
  defaultLimitRangeSpec,
  defaultPersistentVolumeSpec,
  defaultPriorityClass,
  defaultStorageClass,
} from './cluster-kinds.js';
import {
  defaultCronJobSpec,
  defaultPodTemplateObject,
  defaultDaemonSetSpec,
  defaultDeploymentSpec,
  defaultJobSpec,
  defaultPodObjectSpec,
  defaultReplicaSetSpec,
  defaultReplicationController,
  defaultStatefulSetSpec,
} from './workloads.js';

type Defaulter = (object: JsonObject) => JsonObject;

const onSpec =
  (edit: Defaulter): Defaulter =>
  (object) =>
    mapIn(object, ['spec'], edit);

const defaulters: ReadonlyMap<string, Defaulter> = new Map([
  ['apps/Deployment', onSpec(defaultDeploymentSpec)],
  ['apps/StatefulSet', onSpec(defaultStatefulSetSpec)],
  ['apps/DaemonSet', onSpec(defaultDaemonSetSpec)],
  ['apps/ReplicaSet', onSpec(defaultReplicaSetSpec)],
  ['/ReplicationController', defaultReplicationController],
  ['batch/Job', onSpec(defaultJobSpec)],
  ['batch/CronJob', onSpec(defaultCronJobSpec)],
  ['/Pod', onSpec(defaultPodObjectSpec)],
  ['/PodTemplate', defaultPodTemplateObject],
  ['/PersistentVolume', onSpec(defaultPersistentVolumeSpec)],
  ['storage.k8s.io/StorageClass', defaultStorageClass],
  ['scheduling.k8s.io/PriorityClass', defaultPriorityClass],
  ['rbac.authorization.k8s.io/RoleBinding', defaultBindingSubjects],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', defaultBindingSubjects],
  ['/LimitRange', onSpec(defaultLimitRangeSpec)],
  ['discovery.k8s.io/EndpointSlice', defaultEndpointSlice],
  ['/Endpoints', defaultEndpoints],
  ['/Service', onSpec(defaultServiceSpec)],
  ['/Secret', defaultSecret],
  ['/PersistentVolumeClaim', onSpec(defaultClaimSpec)],
  // autoscaling/v1 has other fields; only v2 objects get v2 defaults.
  [
    'autoscaling/HorizontalPodAutoscaler',
    (object) => (object.apiVersion === 'autoscaling/v2' ? onSpec(defaultAutoscalerSpec)(object) : object),
  ],
  ['networking.k8s.io/NetworkPolicy', onSpec(defaultNetworkPolicySpec)],
]);

/** The object with the server's defaults for its kind (`group/Kind`); unchanged for other kinds. */
export const applyServerDefaults = (groupKind: string, object: Resource): Resource =>
  // Defaulters only fill in fields below the identification, which they never touch: still a Resource.
  (defaulters.get(groupKind)?.(object) ?? object) as Resource;
