/**
 * A Pod's row as kube-apiserver prints it (`printPod`): READY counts ready containers (and started
 * restartable init containers), STATUS is the reason the kubelet's statuses give, RESTARTS the
 * restarts with the age of the last one.
 */
import { getIn, isJsonObject, type JsonObject, type JsonValue } from '../../../../core/json/json.js';
import { age, hasTrueCondition, integer, nameOf, objectsAt, since, text } from './cells.js';
import type { Row } from './workloads.js';

type Tally = { reason: string; restarts: number; lastRestart: number; ready: number };

const terminated = (status: JsonObject, state: string): JsonObject | undefined => {
  const value = getIn(status, [state, 'terminated']);
  return isJsonObject(value) ? value : undefined;
};

const finishedAt = (status: JsonObject): number => {
  const last = terminated(status, 'lastState');
  return last === undefined ? Number.NaN : Date.parse(text(last.finishedAt));
};

const later = (a: number, b: number): number => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

const exitText = (ended: JsonObject, prefix: string): string => {
  if (text(ended.reason) !== '') return `${prefix}${text(ended.reason)}`;
  const signal = integer(ended.signal);
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${integer(ended.exitCode)}`;
};

const isRestartable = (container: JsonObject | undefined): boolean => container?.restartPolicy === 'Always';

/** The init containers' pass: the reason while initialising, or undefined once initialised. */
const initReason = (pod: JsonObject, tally: Tally, restartable: Tally): string | undefined => {
  const specs = objectsAt(pod, ['spec', 'initContainers']);
  const byName = new Map(specs.map((c) => [text(c.name), c] as const));
  const statuses = objectsAt(pod, ['status', 'initContainerStatuses']);
  for (const [i, status] of statuses.entries()) {
    tally.restarts += integer(status.restartCount);
    tally.lastRestart = later(tally.lastRestart, finishedAt(status));
    const spec = byName.get(text(status.name));
    if (isRestartable(spec)) {
      restartable.restarts += integer(status.restartCount);
      restartable.lastRestart = later(restartable.lastRestart, finishedAt(status));
    }
    const ended = terminated(status, 'state');
    if (ended !== undefined && integer(ended.exitCode) === 0) continue;
    if (isRestartable(spec) && status.started === true) {
      if (status.ready === true) restartable.ready += 1;
      continue;
    }
    if (ended !== undefined) return exitText(ended, 'Init:');
    const waiting = text(getIn(status, ['state', 'waiting', 'reason']));
    if (waiting !== '' && waiting !== 'PodInitializing') return `Init:${waiting}`;
    return `Init:${i}/${specs.length}`;
  }
  return undefined;
};

/** The app containers' pass, from the last to the first, as the Go printer walks them. */
const containersPass = (pod: JsonObject, tally: Tally): void => {
  const statuses = objectsAt(pod, ['status', 'containerStatuses']);
  let running = false;
  let errorReason = '';
  for (const status of [...statuses].reverse()) {
    tally.restarts += integer(status.restartCount);
    tally.lastRestart = later(tally.lastRestart, finishedAt(status));
    const waiting = text(getIn(status, ['state', 'waiting', 'reason']));
    const ended = terminated(status, 'state');
    if (waiting !== '') tally.reason = waiting;
    else if (ended !== undefined) {
      tally.reason = exitText(ended, '');
      if (integer(ended.exitCode) !== 0) errorReason = tally.reason;
    } else if (status.ready === true && isJsonObject(getIn(status, ['state', 'running']))) {
      running = true;
      tally.ready += 1;
    }
  }
  if (tally.reason !== 'Completed') return;
  if (running && hasTrueCondition(pod, 'Ready')) tally.reason = 'Running';
  else if (errorReason !== '') tally.reason = errorReason;
  else if (running) tally.reason = 'NotReady';
};

const statusOf = (pod: JsonObject): Tally => {
  const phase = text(getIn(pod, ['status', 'phase']));
  const gated = objectsAt(pod, ['status', 'conditions']).some(
    (c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated',
  );
  const reason = gated ? 'SchedulingGated' : text(getIn(pod, ['status', 'reason'])) || phase;
  const tally: Tally = { reason, restarts: 0, lastRestart: Number.NaN, ready: 0 };
  const restartable: Tally = { reason, restarts: 0, lastRestart: Number.NaN, ready: 0 };
  const initializing = initReason(pod, tally, restartable);
  if (initializing !== undefined) tally.reason = initializing;
  if (initializing === undefined || hasTrueCondition(pod, 'Initialized')) {
    Object.assign(tally, { restarts: restartable.restarts, lastRestart: restartable.lastRestart });
    tally.ready += restartable.ready;
    containersPass(pod, tally);
  } else tally.ready += restartable.ready;
  const deleting = getIn(pod, ['metadata', 'deletionTimestamp']) !== undefined;
  if (deleting && text(getIn(pod, ['status', 'reason'])) === 'NodeLost') tally.reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') tally.reason = 'Terminating';
  return tally;
};

const readinessGates = (pod: JsonObject): string => {
  const gates = objectsAt(pod, ['spec', 'readinessGates']);
  if (gates.length === 0) return '<none>';
  const conditions = objectsAt(pod, ['status', 'conditions']);
  const met = gates.filter((gate) => conditions.find((c) => c.type === gate.conditionType)?.status === 'True');
  return `${met.length}/${gates.length}`;
};

const orNone = (value: JsonValue | undefined): string => (text(value) === '' ? '<none>' : text(value));

export const podRow: Row = (object, now) => {
  const tally = statusOf(object);
  const restartable = objectsAt(object, ['spec', 'initContainers']).filter(isRestartable).length;
  const total = objectsAt(object, ['spec', 'containers']).length + restartable;
  const lastRestart = Number.isNaN(tally.lastRestart) ? undefined : new Date(tally.lastRestart).toISOString();
  const restarts =
    tally.restarts !== 0 && lastRestart !== undefined
      ? `${tally.restarts} (${since(lastRestart, now)} ago)`
      : String(tally.restarts);
  const [ip] = objectsAt(object, ['status', 'podIPs']);
  return [
    nameOf(object),
    `${tally.ready}/${total}`,
    tally.reason,
    restarts,
    age(object, now),
    orNone(ip?.ip),
    orNone(getIn(object, ['spec', 'nodeName'])),
    orNone(getIn(object, ['status', 'nominatedNodeName'])),
    readinessGates(object),
  ];
};

/** A finished pod's row is marked Completed (kubectl hides such rows unless asked with `--show-all`). */
export const podConditions = (pod: JsonObject): ReadonlyArray<JsonObject> => {
  const phase = getIn(pod, ['status', 'phase']);
  if (phase === 'Succeeded')
    return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return [];
};
