/**
 * Pods for the simulated workload controllers (with `workloads: true, pods: true`): a Deployment gets a
 * ReplicaSet `<name>-<pod-template-hash>` (older ones of the Deployment scaled to 0), and
 * ReplicaSets, StatefulSets (`<name>-0…`), DaemonSets (one node) and Jobs get their Pods, which
 * go Running and Ready at once (a Job's Succeeded), unless the `pods.failRate` fault makes one
 * fail: a container in CrashLoopBackOff, not Ready (a Job's pod Failed).
 */
import { getIn, isJsonArray, isJsonObject, type JsonObject } from '../../../core/json/json.js';
import { jsonText } from '../../../core/json/text.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ServerState } from '../server-state.js';
import { deleteStored, isDeleting, systemWrite } from '../verbs/index.js';

const OWNERS = ['apps/v1/ReplicaSet', 'apps/v1/StatefulSet', 'apps/v1/DaemonSet', 'batch/v1/Job'];

const kindOf = (object: Resource): string => `${object.apiVersion}/${object.kind}`;

const replicasOf = (object: Resource): number => {
  const r = getIn(object, ['spec', 'replicas']);
  return typeof r === 'number' ? r : 1;
};

/** How many Pods `owner` wants: its replicas, one per node (one node here), or a Job's one. */
const wanted = (owner: Resource): number =>
  owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet' ? replicasOf(owner) : 1;

const template = (owner: Resource): JsonObject => {
  const found = getIn(owner, ['spec', 'template']);
  return isJsonObject(found) ? found : {};
};

/** FNV-1a of the template, as the Deployment controller's pod-template-hash (base 36, not its exact value). */
const templateHash = (value: unknown): string =>
  [...JSON.stringify(value)]
    .reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0, 0x811c9dc5)
    .toString(36)
    .slice(0, 8);

const suffix = (state: ServerState): string =>
  Array.from({ length: 5 }, () => 'bcdfghjklmnpqrstvwxz2456789'[Math.floor(state.ids() * 27)] ?? 'x').join('');

const ownerReference = (owner: Resource) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid ?? '',
  controller: true,
  blockOwnerDeletion: true,
});

const ownedBy = (state: ServerState, owner: Resource, kind: string): ReadonlyArray<Resource> =>
  [...state.objects.values()].filter(
    (o) =>
      o.kind === kind &&
      o.metadata.namespace === owner.metadata.namespace &&
      (o.metadata.ownerReferences ?? []).some((ref) => ref.uid === owner.metadata.uid),
  );

const containerState = (job: boolean, failed: boolean, now: string): JsonObject =>
  failed
    ? job
      ? { terminated: { exitCode: 1, reason: 'Error', finishedAt: now } }
      : { waiting: { reason: 'CrashLoopBackOff', message: 'back-off restarting failed container (injected)' } }
    : job
      ? { terminated: { exitCode: 0, reason: 'Completed', finishedAt: now } }
      : { running: { startedAt: now } };

/** The labels of `owner`'s pod template (string values only, as the server stored them). */
const templateLabels = (owner: Resource): Readonly<Record<string, string>> => {
  const labels = getIn(template(owner), ['metadata', 'labels']);
  return Object.fromEntries(
    Object.entries(isJsonObject(labels) ? labels : {}).flatMap(([key, value]) =>
      typeof value === 'string' ? [[key, value]] : [],
    ),
  );
};

/** The status of a Pod that started: Running and Ready, or (failed) a container crash-looping. */
export const podStatus = (pod: Resource, job: boolean, failed: boolean, now: string): JsonObject => {
  const containers = getIn(pod, ['spec', 'containers']);
  const names = isJsonArray(containers) ? containers.map((c) => jsonText(getIn(c, ['name']) ?? 'main')) : ['main'];
  const ready = !failed && !job;
  const condition = (type: string, status: boolean) => ({
    type,
    status: status ? 'True' : 'False',
    lastTransitionTime: now,
  });
  return {
    phase: job ? (failed ? 'Failed' : 'Succeeded') : 'Running',
    conditions: [
      condition('PodScheduled', true),
      condition('Initialized', true),
      condition('ContainersReady', ready),
      condition('Ready', ready),
    ],
    hostIP: '192.0.2.1',
    podIP: '10.244.0.10',
    startTime: now,
    containerStatuses: names.map((name) => ({
      name,
      ready,
      started: !failed,
      restartCount: failed ? 3 : 0,
      image: 'simulated',
      imageID: '',
      state: containerState(job, failed, now),
    })),
  };
};

/** Creates one Pod of `owner` named `name`, then gives it its status; false when the server refused it. */
const createPod = (
  state: ServerState,
  owner: Resource,
  name: string,
  extraLabels: Readonly<Record<string, string>>,
): boolean => {
  const spec = template(owner);
  const created = state.createSystemObject({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: owner.metadata.namespace ?? 'default',
      labels: { ...templateLabels(owner), ...extraLabels },
      ownerReferences: [ownerReference(owner)],
    },
    spec: { ...(isJsonObject(spec.spec) ? spec.spec : {}), nodeName: 'kit-node' },
  });
  const info = state.registry.byGroupKind('', 'Pod');
  if (created === undefined || info === undefined) return false;
  const status = podStatus(created, owner.kind === 'Job', state.podFails(), new Date(state.clock.now()).toISOString());
  return systemWrite(state, info, created, (stored) => ({ ...stored, status }));
};

/** One owner's Pods brought to what it wants; whether anything changed. */
const reconcilePods = (state: ServerState, owner: Resource): boolean => {
  const pods = ownedBy(state, owner, 'Pod').filter((pod) => !isDeleting(pod));
  const want = wanted(owner);
  const podInfo = state.registry.byGroupKind('', 'Pod');
  if (pods.length > want && podInfo !== undefined) {
    [...pods]
      .sort((a, b) => (a.metadata.name < b.metadata.name ? 1 : -1))
      .slice(0, pods.length - want)
      .forEach((pod) => deleteStored(state, podInfo, pod, 'Background'));
    return true;
  }
  const hash = getIn(owner, ['metadata', 'labels', 'pod-template-hash']);
  const extra: Readonly<Record<string, string>> = typeof hash === 'string' ? { 'pod-template-hash': hash } : {};
  const names = new Set(pods.map((pod) => pod.metadata.name));
  const missing = Array.from({ length: want - pods.length }, (_, index) =>
    owner.kind === 'StatefulSet'
      ? (Array.from({ length: want }, (_, i) => `${owner.metadata.name}-${i}`).filter((n) => !names.has(n))[index] ??
        '')
      : `${owner.metadata.name}-${suffix(state)}`,
  );
  return missing.map((name) => createPod(state, owner, name, extra)).some(Boolean);
};

/** A Deployment's ReplicaSet for its current template, the older ones scaled to 0; whether anything changed. */
const reconcileReplicaSets = (state: ServerState, deployment: Resource): boolean => {
  const hash = templateHash(template(deployment));
  const sets = ownedBy(state, deployment, 'ReplicaSet');
  const info = state.registry.byGroupKind('apps', 'ReplicaSet');
  if (info === undefined) return false;
  const scaled = sets
    .filter((set) => getIn(set, ['metadata', 'labels', 'pod-template-hash']) !== hash && replicasOf(set) !== 0)
    .map((set) =>
      systemWrite(state, info, set, (stored) => ({
        ...stored,
        spec: { ...(isJsonObject(stored.spec) ? stored.spec : {}), replicas: 0 },
      })),
    );
  const current = sets.find((set) => getIn(set, ['metadata', 'labels', 'pod-template-hash']) === hash);
  const spec = template(deployment);
  const withHash = { ...templateLabels(deployment), 'pod-template-hash': hash };
  const made =
    current === undefined
      ? state.createSystemObject({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `${deployment.metadata.name}-${hash}`,
            namespace: deployment.metadata.namespace ?? 'default',
            labels: withHash,
            ownerReferences: [ownerReference(deployment)],
          },
          spec: {
            replicas: replicasOf(deployment),
            selector: { matchLabels: withHash },
            template: {
              ...spec,
              metadata: { ...(isJsonObject(spec.metadata) ? spec.metadata : {}), labels: withHash },
            },
          },
        }) !== undefined
      : replicasOf(current) !== replicasOf(deployment) &&
        systemWrite(state, info, current, (stored) => ({
          ...stored,
          spec: { ...(isJsonObject(stored.spec) ? stored.spec : {}), replicas: replicasOf(deployment) },
        }));
  return made || scaled.some(Boolean);
};

/** One pass over every workload: ReplicaSets for Deployments, Pods for the rest; whether anything changed. */
export const runPods = (state: ServerState): boolean =>
  [...state.objects.values()]
    .filter((object) => !isDeleting(object) && object.metadata.uid !== undefined)
    .map((object) =>
      kindOf(object) === 'apps/v1/Deployment'
        ? reconcileReplicaSets(state, object)
        : OWNERS.includes(kindOf(object))
          ? reconcilePods(state, object)
          : false,
    )
    .some(Boolean);
