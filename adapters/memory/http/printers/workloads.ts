/**
 * Rows of the workload kinds as kube-apiserver prints them (wide, as the server always prints:
 * kubectl hides the columns of priority 1 unless asked for `-o wide`).
 */
import { getIn, isJsonObject, type JsonObject, type JsonValue } from '../../../../core/json/json.js';
import {
  age,
  containerCells,
  formatLabels,
  formatLabelSelector,
  hasTrueCondition,
  integer,
  nameOf,
  objectsAt,
  selectorString,
  since,
  text,
} from './cells.js';
import { humanDuration } from './human-duration.js';

export type Row = (object: JsonObject, now: number) => ReadonlyArray<JsonValue>;

const at = (object: JsonObject, ...path: ReadonlyArray<string>): JsonValue | undefined => getIn(object, path);

const podSpecOf = (object: JsonObject): JsonValue | undefined => at(object, 'spec', 'template', 'spec');

export const deploymentRow: Row = (object, now) => {
  const selector = selectorString(at(object, 'spec', 'selector'));
  return [
    nameOf(object),
    `${integer(at(object, 'status', 'readyReplicas'))}/${integer(at(object, 'spec', 'replicas'))}`,
    integer(at(object, 'status', 'updatedReplicas')),
    integer(at(object, 'status', 'availableReplicas')),
    age(object, now),
    ...containerCells(podSpecOf(object)),
    selector ?? '<invalid>',
  ];
};

/** ReplicaSet and ReplicationController (whose selector is a plain map). */
export const replicaSetRow: Row = (object, now) => {
  const selector = at(object, 'spec', 'selector');
  return [
    nameOf(object),
    integer(at(object, 'spec', 'replicas')),
    integer(at(object, 'status', 'replicas')),
    integer(at(object, 'status', 'readyReplicas')),
    age(object, now),
    ...containerCells(podSpecOf(object)),
    object.kind === 'ReplicationController' ? formatLabels(selector) : formatLabelSelector(selector),
  ];
};

export const statefulSetRow: Row = (object, now) => [
  nameOf(object),
  `${integer(at(object, 'status', 'readyReplicas'))}/${integer(at(object, 'spec', 'replicas'))}`,
  age(object, now),
  ...containerCells(podSpecOf(object)),
];

export const daemonSetRow: Row = (object, now) => [
  nameOf(object),
  ...[
    'desiredNumberScheduled',
    'currentNumberScheduled',
    'numberReady',
    'updatedNumberScheduled',
    'numberAvailable',
  ].map((field) => integer(at(object, 'status', field))),
  formatLabels(at(object, 'spec', 'template', 'spec', 'nodeSelector')),
  age(object, now),
  ...containerCells(podSpecOf(object)),
  formatLabelSelector(at(object, 'spec', 'selector')),
];

const JOB_STATES: ReadonlyArray<readonly [string, string]> = [
  ['Complete', 'Complete'],
  ['Failed', 'Failed'],
];
const JOB_LATER_STATES: ReadonlyArray<readonly [string, string]> = [
  ['Suspended', 'Suspended'],
  ['FailureTarget', 'FailureTarget'],
  ['SuccessCriteriaMet', 'SuccessCriteriaMet'],
];

const jobStatus = (job: JsonObject): string => {
  const first = JOB_STATES.find(([type]) => hasTrueCondition(job, type));
  if (first !== undefined) return first[1];
  if (at(job, 'metadata', 'deletionTimestamp') !== undefined) return 'Terminating';
  return JOB_LATER_STATES.find(([type]) => hasTrueCondition(job, type))?.[1] ?? 'Running';
};

const jobCompletions = (job: JsonObject): string => {
  const succeeded = integer(at(job, 'status', 'succeeded'));
  const completions = at(job, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = integer(at(job, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
};

const jobDuration = (job: JsonObject, now: number): string => {
  const start = Date.parse(text(at(job, 'status', 'startTime')));
  if (Number.isNaN(start)) return '';
  const completion = Date.parse(text(at(job, 'status', 'completionTime')));
  return humanDuration((Number.isNaN(completion) ? now : completion) - start);
};

export const jobRow: Row = (object, now) => [
  nameOf(object),
  jobStatus(object),
  jobCompletions(object),
  jobDuration(object, now),
  age(object, now),
  ...containerCells(podSpecOf(object)),
  formatLabelSelector(at(object, 'spec', 'selector')),
];

export const cronJobRow: Row = (object, now) => {
  const lastSchedule = at(object, 'status', 'lastScheduleTime');
  const timeZone = at(object, 'spec', 'timeZone');
  const suspend = at(object, 'spec', 'suspend');
  const jobSpec = at(object, 'spec', 'jobTemplate', 'spec');
  return [
    nameOf(object),
    text(at(object, 'spec', 'schedule')),
    typeof timeZone === 'string' ? timeZone : '<none>',
    typeof suspend === 'boolean' ? (suspend ? 'True' : 'False') : '<unset>',
    objectsAt(object, ['status', 'active']).length,
    lastSchedule === undefined ? '<none>' : since(lastSchedule, now),
    age(object, now),
    ...containerCells(isJsonObject(jobSpec) ? at(jobSpec, 'template', 'spec') : undefined),
    formatLabelSelector(isJsonObject(jobSpec) ? jobSpec.selector : undefined),
  ];
};
