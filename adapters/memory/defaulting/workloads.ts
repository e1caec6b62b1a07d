/** Server defaults of the workload kinds (apps/v1, batch/v1, core/v1 Pod and ReplicationController). */
import { getIn, getOwn, isJsonArray, isJsonObject, type JsonObject } from '../../../core/json/json.js';
import { isUnset, mapIn, mapItems, objectAt, withDefaults } from './json-edit.js';
import { defaultPodSpec, defaultPodTemplate } from './pod-spec.js';

/** A pod template's `metadata` is a struct: the server always answers it, `{}` at least. */
const withMetadata = (template: JsonObject): JsonObject => withDefaults(template, { metadata: {} });

const templateDefaults = (spec: JsonObject): JsonObject =>
  mapIn(spec, ['template'], (template) => defaultPodTemplate(withMetadata(template)));

/** `type: RollingUpdate` unless set; its parameters defaulted only for that type. */
const rollingUpdate = (strategy: JsonObject, defaults: JsonObject): JsonObject => {
  const typed = withDefaults(strategy, { type: 'RollingUpdate' });
  return getOwn(typed, 'type') === 'RollingUpdate'
    ? { ...typed, rollingUpdate: withDefaults(objectAt(typed, 'rollingUpdate'), defaults) }
    : typed;
};

export const defaultDeploymentSpec = (spec: JsonObject): JsonObject =>
  templateDefaults({
    ...withDefaults(spec, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 }),
    strategy: rollingUpdate(objectAt(spec, 'strategy'), { maxUnavailable: '25%', maxSurge: '25%' }),
  });

/** A claim template is a full PersistentVolumeClaim: kind, version and a Pending status included. */
const defaultClaimTemplate = (claim: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  ...mapIn(claim, ['spec'], (claimSpec) => withDefaults(claimSpec, { volumeMode: 'Filesystem' })),
  ...(getOwn(claim, 'status') === undefined ? { status: { phase: 'Pending' } } : {}),
});

export const defaultStatefulSetSpec = (spec: JsonObject): JsonObject =>
  templateDefaults(
    mapItems(
      {
        ...withDefaults(spec, {
          replicas: 1,
          podManagementPolicy: 'OrderedReady',
          revisionHistoryLimit: 10,
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
        }),
        updateStrategy: rollingUpdate(objectAt(spec, 'updateStrategy'), { partition: 0 }),
      },
      'volumeClaimTemplates',
      defaultClaimTemplate,
    ),
  );

export const defaultDaemonSetSpec = (spec: JsonObject): JsonObject =>
  templateDefaults({
    ...withDefaults(spec, { revisionHistoryLimit: 10 }),
    updateStrategy: rollingUpdate(objectAt(spec, 'updateStrategy'), { maxUnavailable: 1, maxSurge: 0 }),
  });

export const defaultReplicaSetSpec = (spec: JsonObject): JsonObject =>
  templateDefaults(withDefaults(spec, { replicas: 1 }));

/** ReplicationController: the selector defaults to the template's labels. */
export const defaultPodTemplateObject = (object: JsonObject): JsonObject =>
  mapIn(object, ['template'], (template) => defaultPodTemplate(withMetadata(template)));

const defaultReplicationControllerSpec = (spec: JsonObject): JsonObject =>
  templateDefaults(
    withDefaults(spec, {
      replicas: 1,
      selector: (s) => getIn(s, ['template', 'metadata', 'labels']),
    }),
  );

/** ReplicationController: the selector and, when it has none, the object's labels default to the template's labels. */
export const defaultReplicationController = (object: JsonObject): JsonObject => {
  const labels = getIn(object, ['spec', 'template', 'metadata', 'labels']);
  const withSpec = mapIn(object, ['spec'], defaultReplicationControllerSpec);
  const own = getIn(withSpec, ['metadata', 'labels']);
  const unlabelled = !isJsonObject(own) || Object.keys(own).length === 0;
  return isJsonObject(labels) && unlabelled
    ? mapIn(withSpec, ['metadata'], (metadata) => ({ ...metadata, labels }))
    : withSpec;
};

/** Job: `completions` defaults to 1 only when `parallelism` was unset too (a work queue otherwise). */
export const defaultJobSpec = (spec: JsonObject): JsonObject => {
  const workQueue = !isUnset(getOwn(spec, 'parallelism')) && isUnset(getOwn(spec, 'completions'));
  return templateDefaults(
    withDefaults(spec, {
      completions: () => (workQueue ? undefined : 1),
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: (s) => (isUnset(getOwn(s, 'podFailurePolicy')) ? 'TerminatingOrFailed' : 'Failed'),
    }),
  );
};

export const defaultCronJobSpec = (spec: JsonObject): JsonObject =>
  mapIn(
    withDefaults(spec, {
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    }),
    ['jobTemplate'],
    (jobTemplate) => mapIn(withMetadata(jobTemplate), ['spec'], templateDefaults),
  );

/** A Pod's container requests default to its limits (SetDefaults_Pod; templates are left alone). */
const requestsFromLimits = (container: JsonObject): JsonObject =>
  mapIn(container, ['resources'], (resources) => {
    const limits = objectAt(resources, 'limits');
    return Object.keys(limits).length === 0
      ? resources
      : { ...resources, requests: { ...limits, ...objectAt(resources, 'requests') } };
  });

/** The DefaultTolerationSeconds admission plugin: tolerate an unready or unreachable node for 5 minutes. */
const defaultTolerations = (spec: JsonObject): JsonObject => {
  const given = getOwn(spec, 'tolerations');
  const tolerations = isJsonArray(given) ? given : [];
  const missing = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']
    .filter((key) => !tolerations.some((t) => getIn(t, ['key']) === key && getIn(t, ['effect']) === 'NoExecute'))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  return missing.length === 0 ? spec : { ...spec, tolerations: [...tolerations, ...missing] };
};

/** A Pod object: pod spec defaults, plus what Pod defaulting and the Priority / toleration admission plugins add. */
export const defaultPodObjectSpec = (spec: JsonObject): JsonObject =>
  defaultTolerations(
    withDefaults(
      mapItems(mapItems(defaultPodSpec(spec), 'containers', requestsFromLimits), 'initContainers', requestsFromLimits),
      { enableServiceLinks: true, priority: 0, preemptionPolicy: 'PreemptLowerPriority' },
    ),
  );
