/** Install order of kinds (docs/behaviour.md §4.6): dependencies first, unknown kinds last. */
import type { ObjectRef } from '../model/resource.js';

const INSTALL_ORDER: ReadonlyArray<string> = [
  'Namespace',
  'CustomResourceDefinition',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];

const rank = new Map(INSTALL_ORDER.map((kind, index) => [kind, index]));

/** Position of a kind in the install order; unknown kinds (custom resources) go last. */
export const installRank = (kind: string): number => rank.get(kind) ?? INSTALL_ORDER.length;

/** Stable sort of items by the install order of their kinds (manifest order within a kind). */
export const inInstallOrder = <T extends { readonly ref: ObjectRef }>(items: ReadonlyArray<T>): ReadonlyArray<T> =>
  items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => installRank(a.item.ref.kind) - installRank(b.item.ref.kind) || a.index - b.index)
    .map(({ item }) => item);

/** Reverse install order, for deletions: dependents go first. */
export const inUninstallOrder = <T extends { readonly ref: ObjectRef }>(items: ReadonlyArray<T>): ReadonlyArray<T> =>
  [...inInstallOrder(items)].reverse();
