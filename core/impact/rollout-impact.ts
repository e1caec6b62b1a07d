/**
 * Rollout impact: what each action of a plan does at run time (docs/plan-output.md, "Rollout
 * impact"; docs/decisions/0030-fleet-plan-and-impact.md). A pod-template change rolls a workload's
 * pods; a ConfigMap or Secret change reaches running pods through a volume after the kubelet's
 * sync, or never (env, envFrom, subPath) until they restart; a recreation loses what the server
 * kept (a claim's volume, a Service's cluster IP); a Service selector change moves traffic.
 * Pure and linear in the actions and workloads: it runs after every `plan` the CLI prints.
 */
import { getIn, getOwn, isJsonObject, type JsonObject } from '../json/json.js';
import { stringAt, workloadRef } from './reads.js';
import { showRef, type ObjectRef, type Resource } from '../model/resource.js';
import type { Action, FieldChange } from '../model/plan.js';
import { configReaders, type ConfigRead, type ConfigRef } from './config-readers.js';
import { rolloutOf, startOf, WORKLOAD_KINDS } from './workload-rollout.js';
import type { Impact, ImpactType } from './types.js';

export type { Impact, ImpactType } from './types.js';

/** What impacts are computed from: the plan's actions, the desired objects, the live ones. */
export type ImpactInput = {
  readonly actions: ReadonlyArray<Action>;
  /** The desired objects (namespaced ones with their namespace set: the planner's desired state). */
  readonly desired: ReadonlyArray<Resource>;
  /** The live objects the plan was made against (replicas, strategies and readers not in `desired`). */
  readonly live: ReadonlyArray<Resource>;
};

const NONE: ReadonlyArray<Impact> = [];

/** Workloads by `namespace/Kind/name`, desired first: what the plan writes is what will run. */
const workloadIndex = (input: ImpactInput): ReadonlyMap<string, { desired?: Resource; live?: Resource }> => {
  const index = new Map<string, { desired?: Resource; live?: Resource }>();
  for (const [side, objects] of [
    ['desired', input.desired],
    ['live', input.live],
  ] as const)
    for (const object of objects) {
      if (!WORKLOAD_KINDS.has(object.kind)) continue;
      const key = `${object.metadata.namespace ?? ''}/${object.kind}/${object.metadata.name}`;
      index.set(key, { ...index.get(key), [side]: object });
    }
  return index;
};

const keyOfRef = (ref: ObjectRef): string => `${ref.namespace ?? ''}/${ref.kind}/${ref.name}`;

const isTemplateChange = (change: FieldChange): boolean =>
  change.path === 'spec.template' ||
  change.path.startsWith('spec.template.') ||
  change.path.startsWith('spec.template[');

/**
 * Each action's impacts, in the order of `input.actions` (an empty list where it has none).
 * Never a Secret value: only names, counts and field paths appear.
 */
export const rolloutImpacts = (input: ImpactInput): ReadonlyArray<ReadonlyArray<Impact>> => {
  if (!input.actions.some(mayHaveImpact)) return input.actions.map(() => NONE);
  const workloads = workloadIndex(input);
  const rolled = new Set(
    input.actions
      .filter((action) => WORKLOAD_KINDS.has(action.ref.kind) && rollsTemplate(action))
      .map((action) => keyOfRef(action.ref)),
  );
  const readers = configReaders([...workloads.values()].flatMap((w) => w.desired ?? w.live ?? []));
  return input.actions.map((action) => {
    const entry = workloads.get(keyOfRef(action.ref));
    const workload = entry?.desired ?? entry?.live;
    if (workload !== undefined && WORKLOAD_KINDS.has(action.ref.kind))
      return workloadImpacts(action, workload, entry?.live);
    return [
      ...configImpacts(action, readers, rolled),
      ...lossImpacts(action, input.live),
      ...trafficImpacts(action, workloads),
    ];
  });
};

const mayHaveImpact = (action: Action): boolean =>
  action.type === 'create' || action.type === 'patch' || action.type === 'recreate' || action.type === 'delete';

const rollsTemplate = (action: Action): boolean =>
  action.type === 'recreate' ||
  (action.type === 'patch' && action.orphan === undefined && action.changes.some(isTemplateChange));

const workloadImpacts = (action: Action, workload: Resource, live: Resource | undefined): ReadonlyArray<Impact> => {
  if (action.type === 'create') return startOf(action.ref, workload);
  if (action.type === 'patch' && rollsTemplate(action)) return rolloutOf(action.ref, workload, live, action.changes);
  if (action.type === 'recreate' || action.type === 'delete')
    return [
      {
        type: 'loss',
        message: `${action.type === 'delete' ? 'deleting' : 'recreating'} ${showRef(action.ref)} deletes its pods${action.type === 'recreate' ? ' at once (no rolling update): none run until the new one starts them' : ''}`,
        workloads: [action.ref],
      },
    ];
  return NONE;
};

const CONFIG_KINDS = new Set(['ConfigMap', 'Secret']);

const isDataChange = (change: FieldChange): boolean => /^(data|binaryData|stringData)([.[]|$)/.test(change.path);

const configImpacts = (
  action: Action,
  readers: ReadonlyMap<string, ReadonlyArray<ConfigRead>>,
  rolled: ReadonlySet<string>,
): ReadonlyArray<Impact> => {
  if (action.ref.apiVersion !== 'v1' || !CONFIG_KINDS.has(action.ref.kind)) return NONE;
  if (!(action.type === 'patch' || action.type === 'recreate') || !action.changes.some(isDataChange)) return NONE;
  const config: ConfigRef = { kind: action.ref.kind, namespace: action.ref.namespace ?? '', name: action.ref.name };
  const reads = readers.get(`${config.namespace}/${config.kind}/${config.name}`) ?? [];
  const rolling = reads.filter((read) => rolled.has(keyOfRef(read.workload)));
  const still = reads.filter((read) => !rolled.has(keyOfRef(read.workload)));
  const stale = still.filter((read) => read.ways.some((way) => way !== 'volume'));
  const reloaded = still.filter((read) => read.ways.every((way) => way === 'volume'));
  return [
    ...(rolling.length === 0
      ? []
      : [impactOn('configRollout', rolling, 'seen by the new pods of', 'whose pod template changes in this plan')]),
    ...(reloaded.length === 0
      ? []
      : [
          impactOn(
            'configReload',
            reloaded,
            'seen by the running pods of',
            "through a volume, after the kubelet's sync (about a minute)",
          ),
        ]),
    ...(stale.length === 0
      ? []
      : [
          impactOn(
            'configStale',
            stale,
            'never seen by the running pods of',
            'until they restart: roll them, or set spec.rolloutOnConfigChange',
          ),
        ]),
  ];
};

const impactOn = (type: ImpactType, reads: ReadonlyArray<ConfigRead>, before: string, after: string): Impact => ({
  type,
  message: `${before} ${reads.map(showRead).join(', ')} ${after}`,
  workloads: reads.map((read) => read.workload),
});

const showRead = (read: ConfigRead): string =>
  `${read.workload.kind} ${read.workload.name} (${read.ways.map((way) => (way === 'volume' ? 'volume' : way)).join(', ')})`;

/** What the server kept that a recreation or deletion loses. */
const lossImpacts = (action: Action, live: ReadonlyArray<Resource>): ReadonlyArray<Impact> => {
  if (action.type !== 'recreate' && action.type !== 'delete') return NONE;
  const verb = action.type === 'delete' ? 'deleting' : 'recreating';
  if (action.ref.kind === 'PersistentVolumeClaim')
    return [
      {
        type: 'loss',
        message: `${verb} the claim releases its volume: with the usual reclaim policy Delete, its data is lost`,
      },
    ];
  if (action.ref.kind === 'Service' && action.ref.apiVersion === 'v1') {
    const object = live.find(
      (o) =>
        o.kind === 'Service' && o.metadata.name === action.ref.name && o.metadata.namespace === action.ref.namespace,
    );
    const ip = object === undefined ? undefined : stringAt(object, ['spec', 'clusterIP']);
    return [
      {
        type: 'loss',
        message: `${verb} the Service releases its cluster IP${ip === undefined || ip === 'None' ? '' : ` ${ip}`}${action.type === 'recreate' ? ' and allocates another (clients holding the old address break); node ports change too' : ''}`,
      },
    ];
  }
  return NONE;
};

/** A Service whose selector changes: which workloads it selects afterwards. */
const trafficImpacts = (
  action: Action,
  workloads: ReadonlyMap<string, { desired?: Resource; live?: Resource }>,
): ReadonlyArray<Impact> => {
  if (action.ref.kind !== 'Service' || action.ref.apiVersion !== 'v1') return NONE;
  if (action.type !== 'patch' && action.type !== 'recreate') return NONE;
  const changed = action.changes.filter((c) => c.path === 'spec.selector' || c.path.startsWith('spec.selector.'));
  if (changed.length === 0) return NONE;
  const selector = selectorAfter(action);
  const selected = [...workloads.values()]
    .flatMap((w) => w.desired ?? w.live ?? [])
    .filter((w) => w.metadata.namespace === action.ref.namespace && selects(selector, templateLabels(w)))
    .map(workloadRef);
  return [
    {
      type: 'traffic',
      message: `traffic moves: the selector changes (${changed.map((c) => c.path).join(', ')}); ${selected.length === 0 ? 'it selects no workload of this plan afterwards: its endpoints may be empty' : `it selects ${selected.map((w) => `${w.kind} ${w.name}`).join(', ')} afterwards`}`,
      workloads: selected,
    },
  ];
};

const selectorAfter = (action: Action): JsonObject | undefined => {
  const body = action.type === 'recreate' ? action.body : undefined;
  const fromBody = body === undefined ? undefined : getIn(body, ['spec', 'selector']);
  if (isJsonObject(fromBody)) return fromBody;
  const whole = action.changes.find((c) => c.path === 'spec.selector');
  if (whole !== undefined) return isJsonObject(whole.to) ? whole.to : undefined;
  return undefined;
};

/** Whether a selector (undefined: only the changed keys are known, counted as selecting) matches labels. */
const selects = (selector: JsonObject | undefined, labels: JsonObject): boolean =>
  selector === undefined || Object.keys(selector).every((key) => getOwn(labels, key) === getOwn(selector, key));

const templateLabels = (workload: Resource): JsonObject => {
  const labels = getIn(workload, ['spec', 'template', 'metadata', 'labels']);
  return isJsonObject(labels) ? labels : {};
};
