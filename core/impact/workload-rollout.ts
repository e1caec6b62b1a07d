/**
 * What a pod-template change does to a workload's pods, by its controller's rules: a Deployment's
 * `RollingUpdate` (maxSurge rounded up, maxUnavailable rounded down, 25 % each by default) or
 * `Recreate`; a StatefulSet's `RollingUpdate` from the highest ordinal down to `partition` or
 * `OnDelete`; a DaemonSet's one pod per node; a ReplicaSet, which never replaces running pods.
 */
import { getIn, type JsonValue } from '../json/json.js';
import { showRef, type ObjectRef, type Resource } from '../model/resource.js';
import type { FieldChange } from '../model/plan.js';
import type { Impact } from './types.js';
import { stringAt } from './reads.js';
import { defined } from '../json/defined.js';

/** The kinds whose `spec.template` is a pod template the impact looks into. */
export const WORKLOAD_KINDS: ReadonlySet<string> = new Set([
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
]);

const numberAt = (value: JsonValue | undefined, path: ReadonlyArray<string>): number | undefined => {
  const found = getIn(value, path);
  return typeof found === 'number' && Number.isSafeInteger(found) && found >= 0 ? found : undefined;
};

/** Desired first (what the plan writes), then live (server defaults), then the server's default. */
const setting = <T>(read: (object: Resource | undefined) => T | undefined, sides: Sides, fallback: T): T =>
  read(sides.desired) ?? read(sides.live) ?? fallback;

type Sides = { readonly desired: Resource; readonly live: Resource | undefined };

/** An int-or-percent field scaled to `replicas` (`up`: maxSurge rounds up, maxUnavailable down). */
const scaled = (value: JsonValue | undefined, replicas: number, up: boolean): number | undefined => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  const percent = typeof value === 'string' ? /^(\d{1,3})%$/.exec(value)?.[1] : undefined;
  if (percent === undefined) return undefined;
  const exact = (Number(percent) * replicas) / 100;
  return up ? Math.ceil(exact) : Math.floor(exact);
};

/** The replicas after the patch: the patched value, else the desired one, else the live one, else 1. */
const replicasAfter = (sides: Sides, changes: ReadonlyArray<FieldChange>): number => {
  const patched = changes.find((c) => c.path === 'spec.replicas')?.to;
  if (typeof patched === 'number' && Number.isSafeInteger(patched) && patched >= 0) return patched;
  return setting((o) => numberAt(o, ['spec', 'replicas']), sides, 1);
};

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The impacts of a pod-template change of `ref` (`desired`: what the plan writes; `live`: what runs). */
export const rolloutOf = (
  ref: ObjectRef,
  desired: Resource,
  live: Resource | undefined,
  changes: ReadonlyArray<FieldChange>,
): ReadonlyArray<Impact> => {
  const sides: Sides = { desired, live };
  switch (ref.kind) {
    case 'Deployment':
      return [deploymentRollout(ref, sides, replicasAfter(sides, changes))];
    case 'StatefulSet':
      return [statefulSetRollout(ref, sides, replicasAfter(sides, changes))];
    case 'DaemonSet':
      return [daemonSetRollout(ref, sides)];
    case 'ReplicaSet':
      return [
        {
          type: 'noRollout',
          message: `no pod of ${showRef(ref)} is replaced (a ReplicaSet never updates running pods): only pods it creates from now on use the new template`,
          workloads: [ref],
          pods: 0,
        },
      ];
    default:
      return [];
  }
};

const deploymentRollout = (ref: ObjectRef, sides: Sides, replicas: number): Impact => {
  const strategy = setting((o) => stringAt(o, ['spec', 'strategy', 'type']), sides, 'RollingUpdate');
  if (strategy === 'Recreate')
    return {
      type: 'rollout',
      message: `replaces all ${plural(replicas, 'pod')} of ${showRef(ref)} at once (strategy Recreate: none runs in between)`,
      workloads: [ref],
      pods: replicas,
    };
  const surge =
    scaled(
      setting((o) => getIn(o, ['spec', 'strategy', 'rollingUpdate', 'maxSurge']), sides, '25%'),
      replicas,
      true,
    ) ?? 0;
  const raw =
    scaled(
      setting((o) => getIn(o, ['spec', 'strategy', 'rollingUpdate', 'maxUnavailable']), sides, '25%'),
      replicas,
      false,
    ) ?? 0;
  // The Deployment controller: when both round to 0, one pod may be unavailable.
  const unavailable = surge === 0 && raw === 0 ? 1 : raw;
  return {
    type: 'rollout',
    message: `rolls ${plural(replicas, 'pod')} of ${showRef(ref)} (RollingUpdate: up to ${surge} extra, up to ${unavailable} unavailable at a time)`,
    workloads: [ref],
    pods: replicas,
  };
};

const statefulSetRollout = (ref: ObjectRef, sides: Sides, replicas: number): Impact => {
  const strategy = setting((o) => stringAt(o, ['spec', 'updateStrategy', 'type']), sides, 'RollingUpdate');
  if (strategy === 'OnDelete')
    return {
      type: 'noRollout',
      message: `no pod of ${showRef(ref)} rolls (updateStrategy OnDelete): its ${plural(replicas, 'pod')} keep the old template until each is deleted`,
      workloads: [ref],
      pods: 0,
    };
  const partition = setting((o) => numberAt(o, ['spec', 'updateStrategy', 'rollingUpdate', 'partition']), sides, 0);
  const rolled = Math.max(0, replicas - partition);
  const unavailable = Math.max(
    1,
    scaled(
      setting((o) => getIn(o, ['spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable']), sides, 1),
      replicas,
      false,
    ) ?? 1,
  );
  const kept = partition > 0 ? `; partition ${partition}: ordinals below ${partition} keep the old template` : '';
  return {
    type: rolled === 0 ? 'noRollout' : 'rollout',
    message: `rolls ${rolled} of ${plural(replicas, 'pod')} of ${showRef(ref)}, from the highest ordinal, ${unavailable} at a time (RollingUpdate${kept})`,
    workloads: [ref],
    pods: rolled,
  };
};

const daemonSetRollout = (ref: ObjectRef, sides: Sides): Impact => {
  const strategy = setting((o) => stringAt(o, ['spec', 'updateStrategy', 'type']), sides, 'RollingUpdate');
  const nodes = numberAt(sides.live, ['status', 'desiredNumberScheduled']);
  const where = nodes === undefined ? 'on every node it runs on' : `on each of ${plural(nodes, 'node')}`;
  if (strategy === 'OnDelete')
    return {
      type: 'noRollout',
      message: `no pod of ${showRef(ref)} rolls (updateStrategy OnDelete): the pods ${where} keep the old template until each is deleted`,
      workloads: [ref],
      pods: 0,
    };
  const replicas = nodes ?? 1;
  const unavailable =
    scaled(
      setting((o) => getIn(o, ['spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable']), sides, 1),
      replicas,
      false,
    ) ?? 1;
  const surge =
    scaled(
      setting((o) => getIn(o, ['spec', 'updateStrategy', 'rollingUpdate', 'maxSurge']), sides, 0),
      replicas,
      true,
    ) ?? 0;
  return {
    type: 'rollout',
    message: `rolls the pod ${where} of ${showRef(ref)} (RollingUpdate: up to ${unavailable} unavailable, up to ${surge} extra at a time)`,
    workloads: [ref],
    ...defined({ pods: nodes }),
  };
};

/** A new workload: how many pods it starts. */
export const startOf = (ref: ObjectRef, desired: Resource): ReadonlyArray<Impact> => {
  if (ref.kind === 'DaemonSet')
    return [{ type: 'start', message: `starts a pod on every node ${showRef(ref)} selects`, workloads: [ref] }];
  if (ref.kind === 'Job') return [{ type: 'start', message: `starts the pods of ${showRef(ref)}`, workloads: [ref] }];
  const replicas = numberAt(desired, ['spec', 'replicas']) ?? 1;
  return [
    {
      type: 'start',
      message: `starts ${plural(replicas, 'pod')} of ${showRef(ref)}`,
      workloads: [ref],
      pods: replicas,
    },
  ];
};
