/**
 * Server-side printing of built-in kinds: the columns kube-apiserver 1.36 declares for each
 * resource (recorded from a real server into schemas/serving-1.36.json by
 * `npm run schemas:serving`), and a row function per kind that computes the cells as the Go
 * printers do (pkg/printers/internalversion). The server prints wide; kubectl hides priority-1
 * columns unless asked for `-o wide`. Checked cell by cell against the real server by
 * test/integration/printer-columns-differential.test.ts.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../../core/json/json.js';
import { since, nameOf } from './cells.js';
import { endpointSliceRow, leaseRow, nodeRow, persistentVolumeRow, webhookConfigurationRow } from './cluster-kinds.js';
import {
  configMapRow,
  endpointsRow,
  eventRow,
  namespaceRow,
  persistentVolumeClaimRow,
  podTemplateRow,
  resourceQuotaRow,
  secretRow,
  serviceAccountRow,
  serviceRow,
} from './core-kinds.js';
import {
  controllerRevisionRow,
  horizontalPodAutoscalerRow,
  ingressClassRow,
  ingressRow,
  networkPolicyRow,
  podDisruptionBudgetRow,
  priorityClassRow,
  roleBindingRow,
  runtimeClassRow,
  storageClassRow,
} from './others.js';
import { podConditions, podRow } from './pod.js';
import { servedResource, type ColumnDefinition } from '../../../schemas/served-resources.js';
import {
  cronJobRow,
  daemonSetRow,
  deploymentRow,
  jobRow,
  replicaSetRow,
  statefulSetRow,
  type Row,
} from './workloads.js';

export type { ColumnDefinition } from '../../../schemas/served-resources.js';

export { humanDuration } from './human-duration.js';
export type { Row } from './workloads.js';

/** The row functions, by `group/Kind`. */
const ROWS: ReadonlyMap<string, Row> = new Map([
  ['/ConfigMap', configMapRow],
  ['/Secret', secretRow],
  ['/Namespace', namespaceRow],
  ['/ServiceAccount', serviceAccountRow],
  ['/Service', serviceRow],
  ['/Event', eventRow],
  ['/PersistentVolumeClaim', persistentVolumeClaimRow],
  ['/PersistentVolume', persistentVolumeRow],
  ['/Node', nodeRow],
  ['/ResourceQuota', resourceQuotaRow],
  ['/Endpoints', endpointsRow],
  ['/PodTemplate', podTemplateRow],
  ['apps/ControllerRevision', controllerRevisionRow],
  ['networking.k8s.io/IngressClass', ingressClassRow],
  ['node.k8s.io/RuntimeClass', runtimeClassRow],
  ['/Pod', podRow],
  ['/ReplicationController', replicaSetRow],
  ['apps/Deployment', deploymentRow],
  ['apps/ReplicaSet', replicaSetRow],
  ['apps/StatefulSet', statefulSetRow],
  ['apps/DaemonSet', daemonSetRow],
  ['batch/Job', jobRow],
  ['batch/CronJob', cronJobRow],
  ['networking.k8s.io/Ingress', ingressRow],
  ['networking.k8s.io/NetworkPolicy', networkPolicyRow],
  ['rbac.authorization.k8s.io/RoleBinding', roleBindingRow],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', roleBindingRow],
  ['policy/PodDisruptionBudget', podDisruptionBudgetRow],
  ['autoscaling/HorizontalPodAutoscaler', horizontalPodAutoscalerRow],
  ['scheduling.k8s.io/PriorityClass', priorityClassRow],
  ['storage.k8s.io/StorageClass', storageClassRow],
  ['coordination.k8s.io/Lease', leaseRow],
  ['discovery.k8s.io/EndpointSlice', endpointSliceRow],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', webhookConfigurationRow],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', webhookConfigurationRow],
]);

/** The default table convertor's row (kinds without a printer of their own: Name, Created At). */
const createdAtRow: Row = (object) => [nameOf(object), metadataTime(object)];

const metadataTime = (object: JsonObject): JsonValue =>
  isJsonObject(object.metadata) ? (object.metadata.creationTimestamp ?? null) : null;

const NAME_AGE: ReadonlyArray<ColumnDefinition> = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
  { name: 'Age', type: 'string', format: '', description: '', priority: 0 },
];

const nameAgeRow: Row = (object, now) => [nameOf(object), since(metadataTime(object) ?? undefined, now)];

export type BuiltinPrinter = {
  readonly columns: ReadonlyArray<ColumnDefinition>;
  readonly row: Row;
  readonly conditions?: (object: JsonObject) => ReadonlyArray<JsonObject>;
};

/**
 * How kube-apiserver prints `group/version` `plural`: its recorded columns with the kind's row
 * function. A kind whose recorded columns are the default convertor's gets that convertor's row;
 * one without a row function here is printed as Name and Age (docs/testing.md lists them).
 */
export const builtinPrinter = (group: string, version: string, plural: string, kind: string): BuiltinPrinter => {
  const served = servedResource(group, version, plural);
  const columns = served?.columns;
  if (columns === undefined) return { columns: NAME_AGE, row: nameAgeRow };
  const row = ROWS.get(`${group}/${kind}`);
  if (row !== undefined)
    return group === '' && kind === 'Pod' ? { columns, row, conditions: podConditions } : { columns, row };
  const isDefault = columns.length === 2 && columns[1]?.name === 'Created At';
  return isDefault ? { columns, row: createdAtRow } : { columns: NAME_AGE, row: nameAgeRow };
};
