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

/** A workload as it will run (desired, else live) with what the Service selectors read of it. */
type Workload = { readonly object: Resource; readonly ref: ObjectRef; readonly labels: JsonObject };

/** What a Service selector undefined in the plan (only changed keys known) selects in one namespace. */
type Selected = { readonly refs: ReadonlyArray<ObjectRef>; readonly shown: string };

/**
 * The indexes the actions are looked up in, each built once per call and only when an action needs it: the CLI
 * runs this after every plan, so its cost is counted against the plan's (bench: issue 38).
 */
type Context = {
  readonly workloads: WorkloadIndex;
  readonly rolled: ReadonlySet<string>;
  readonly readers: () => ReadonlyMap<string, ReadonlyArray<ConfigRead>>;
  readonly inNamespace: (namespace: string | undefined) => ReadonlyArray<Workload>;
  readonly allIn: (namespace: string | undefined) => Selected;
  readonly liveService: (ref: ObjectRef) => Resource | undefined;
};

type Sides = { desired?: Resource; live?: Resource };

/** `make()` on the first call, its value after. */
const once = <T>(make: () => T): (() => T) => {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

/** `make(key)` on the first call for a key, its value after. */
const memo = <K, T>(make: (key: K) => T): ((key: K) => T) => {
  const made = new Map<K, { readonly value: T }>();
  return (key) => {
    const found = made.get(key);
    if (found !== undefined) return found.value;
    const value = make(key);
    made.set(key, { value });
    return value;
  };
};

/** The workloads of the plan: each with its desired and live object, in the order first seen, desired first. */
type WorkloadIndex = {
  readonly entries: ReadonlyArray<Sides>;
  readonly get: (ref: ObjectRef) => Sides | undefined;
};

/**
 * Workloads by namespace, kind and name (a namespace left out is ''), desired first: what the plan writes is what
 * will run. Maps in maps rather than one joined key: no string built per object of the plan.
 */
const workloadIndex = (input: ImpactInput): WorkloadIndex => {
  const index = new Map<string, Map<string, Map<string, Sides>>>();
  const entries: Sides[] = [];
  const add = (object: Resource, desired: boolean): void => {
    if (!WORKLOAD_KINDS.has(object.kind)) return;
    const namespace = object.metadata.namespace ?? '';
    const byKind = index.get(namespace) ?? new Map<string, Map<string, Sides>>();
    if (byKind.size === 0) index.set(namespace, byKind);
    const byName = byKind.get(object.kind) ?? new Map<string, Sides>();
    if (byName.size === 0) byKind.set(object.kind, byName);
    const entry = byName.get(object.metadata.name);
    if (entry !== undefined) {
      if (desired) entry.desired = object;
      else entry.live = object;
      return;
    }
    const created: Sides = desired ? { desired: object } : { live: object };
    byName.set(object.metadata.name, created);
    entries.push(created);
  };
  for (const object of input.desired) add(object, true);
  for (const object of input.live) add(object, false);
  return {
    entries,
    get: (ref) =>
      index
        .get(ref.namespace ?? '')
        ?.get(ref.kind)
        ?.get(ref.name),
  };
};

/** Each workload as it will run, in index order, by namespace. */
const byNamespace = (workloads: WorkloadIndex): ReadonlyMap<string | undefined, Workload[]> => {
  const grouped = new Map<string | undefined, Workload[]>();
  for (const sides of workloads.entries) {
    const object = sides.desired ?? sides.live;
    if (object === undefined) continue;
    const namespace = object.metadata.namespace;
    const list = grouped.get(namespace) ?? [];
    if (list.length === 0) grouped.set(namespace, list);
    list.push({ object, ref: workloadRef(object), labels: templateLabels(object) });
  }
  return grouped;
};

/** Live Services by namespace (undefined kept apart from '') and name, the first of each, as a search finds. */
const serviceIndex = (
  live: ReadonlyArray<Resource>,
): ReadonlyMap<string | undefined, ReadonlyMap<string, Resource>> => {
  const index = new Map<string | undefined, Map<string, Resource>>();
  for (const object of live) {
    if (object.kind !== 'Service') continue;
    const byName = index.get(object.metadata.namespace) ?? new Map<string, Resource>();
    index.set(object.metadata.namespace, byName);
    if (!byName.has(object.metadata.name)) byName.set(object.metadata.name, object);
  }
  return index;
};

const contextOf = (input: ImpactInput): Context => {
  const workloads = workloadIndex(input);
  const grouped = once(() => byNamespace(workloads));
  const inNamespace = (namespace: string | undefined): ReadonlyArray<Workload> => grouped().get(namespace) ?? [];
  const services = once(() => serviceIndex(input.live));
  return {
    workloads,
    rolled: new Set(
      input.actions
        .filter((action) => WORKLOAD_KINDS.has(action.ref.kind) && rollsTemplate(action))
        .map((action) => keyOfRef(action.ref)),
    ),
    readers: once(() => configReaders(workloads.entries.flatMap((w) => w.desired ?? w.live ?? []))),
    inNamespace,
    allIn: memo((namespace: string | undefined): Selected => {
      const all = inNamespace(namespace);
      return { refs: all.map((w) => w.ref), shown: all.map(showWorkload).join(', ') };
    }),
    liveService: (ref) => services().get(ref.namespace)?.get(ref.name),
  };
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
  const context = contextOf(input);
  return input.actions.map((action) => {
    const entry = WORKLOAD_KINDS.has(action.ref.kind) ? context.workloads.get(action.ref) : undefined;
    const workload = entry?.desired ?? entry?.live;
    if (workload !== undefined) return workloadImpacts(action, workload, entry?.live);
    const impacts = [
      ...configImpacts(action, context),
      ...lossImpacts(action, context),
      ...trafficImpacts(action, context),
    ];
    return impacts.length === 0 ? NONE : impacts;
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

const configImpacts = (action: Action, { readers, rolled }: Context): ReadonlyArray<Impact> => {
  if (action.ref.apiVersion !== 'v1' || !CONFIG_KINDS.has(action.ref.kind)) return NONE;
  if (!(action.type === 'patch' || action.type === 'recreate') || !action.changes.some(isDataChange)) return NONE;
  const config: ConfigRef = { kind: action.ref.kind, namespace: action.ref.namespace ?? '', name: action.ref.name };
  const reads = readers().get(`${config.namespace}/${config.kind}/${config.name}`) ?? [];
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
const lossImpacts = (action: Action, { liveService }: Context): ReadonlyArray<Impact> => {
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
    const object = liveService(action.ref);
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
const trafficImpacts = (action: Action, { inNamespace, allIn }: Context): ReadonlyArray<Impact> => {
  if (action.ref.kind !== 'Service' || action.ref.apiVersion !== 'v1') return NONE;
  if (action.type !== 'patch' && action.type !== 'recreate') return NONE;
  const changed = action.changes.filter((c) => c.path === 'spec.selector' || c.path.startsWith('spec.selector.'));
  if (changed.length === 0) return NONE;
  const selector = selectorAfter(action);
  const { refs, shown } =
    selector === undefined ? allIn(action.ref.namespace) : selectedBy(inNamespace(action.ref.namespace), selector);
  return [
    {
      type: 'traffic',
      message: `traffic moves: the selector changes (${changed.map((c) => c.path).join(', ')}); ${refs.length === 0 ? 'it selects no workload of this plan afterwards: its endpoints may be empty' : `it selects ${shown} afterwards`}`,
      workloads: refs,
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

/** The workloads a selector matches (a selector undefined, only the changed keys known, selects all: `allIn`). */
const selectedBy = (workloads: ReadonlyArray<Workload>, selector: JsonObject): Selected => {
  const keys = Object.keys(selector);
  const selected = workloads.filter((w) => keys.every((key) => getOwn(w.labels, key) === getOwn(selector, key)));
  return { refs: selected.map((w) => w.ref), shown: selected.map(showWorkload).join(', ') };
};

const showWorkload = (workload: Workload): string => `${workload.ref.kind} ${workload.ref.name}`;

const templateLabels = (workload: Resource): JsonObject => {
  const labels = getIn(workload, ['spec', 'template', 'metadata', 'labels']);
  return isJsonObject(labels) ? labels : {};
};
