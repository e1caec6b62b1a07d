/**
 * `spec.dependsOn` between Applications (Flux's `dependsOn`, docs/application.md): whether an
 * Application may be planned now, given a read-only view of the other Applications. Not to be
 * confused with core/plan/dependencies.ts, which orders the resources inside one Application
 * (`kreconcile.io/depends-on`).
 *
 * - Not being deleted: planned only while every dependency is Ready (its Ready condition True for
 *   its current generation, `status.observedGeneration` equal to `metadata.generation`); otherwise
 *   `Reconciling DependencyNotReady`, nothing written but the status. A cycle through the
 *   Application, or a dependency in a namespace the tenancy policy does not let it reach, is
 *   `Stalled` (`DependencyCycle`, `DependencyForbidden`).
 * - Being deleted: it waits (finalizer and children kept, `Reconciling DependantsExist`) while an
 *   Application that depends on it exists and is not being deleted itself. Only dependants the
 *   tenancy policy lets reach it count: another tenant cannot hold an Application back by naming it.
 *
 * Everything read from the view is what tenants wrote: it is decoded here, where it enters.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { Condition as ConditionCodec, type Application, type DependsOnEntry } from '../model/application.js';
import type { Resource } from '../model/resource.js';
import { ANY, type TenancyPolicy } from '../model/tenancy-policy.js';
import { conditionsFor, type Verdict } from '../status/conditions.js';
import { tenancyFor } from './tenancy.js';
import type { Plan } from '../model/plan.js';
import { defined } from '../json/defined.js';

/** An Application as stored (raw, from a cache or a snapshot) or as decoded (a directory's). */
export type StoredApplication = Resource | Application;

/** An Application by namespace and name. */
export type ApplicationKey = { readonly namespace: string; readonly name: string };

/**
 * What the planner may see of the other Applications (the runtime's primary store, the CLI's
 * directory and snapshot): objects as stored, never trusted.
 */
export type ApplicationsView = {
  /** The Application at `namespace/name`, or `undefined` when there is none. */
  readonly get: (namespace: string, name: string) => StoredApplication | undefined;
  /** The Applications whose `spec.dependsOn` names `namespace/name` (an index: asked when one is deleted). */
  readonly dependantsOf: (namespace: string, name: string) => ReadonlyArray<StoredApplication>;
};

export type DependsOnDecision =
  | { readonly _tag: 'Proceed' }
  | {
      readonly _tag: 'Waiting';
      readonly reason: 'DependencyNotReady' | 'DependantsExist';
      readonly message: string;
      /** The Applications waited for (dependencies not ready, or dependants still there). */
      readonly on: ReadonlyArray<ApplicationKey>;
    }
  | { readonly _tag: 'Stalled'; readonly reason: 'DependencyCycle' | 'DependencyForbidden'; readonly message: string };

/** How far a cycle is looked for: Applications visited from one (a longer cycle only waits, never stalls). */
export const MAX_DEPENDENCY_WALK = 4_096;

const PROCEED: DependsOnDecision = { _tag: 'Proceed' };

export const keyText = (key: ApplicationKey): string => `${key.namespace}/${key.name}`;

/** The Applications `spec.dependsOn` names, resolved against the Application's namespace, each once. */
export const dependenciesOf = (
  namespace: string,
  dependsOn: ReadonlyArray<DependsOnEntry> | undefined,
): ReadonlyArray<ApplicationKey> => {
  const seen = new Set<string>();
  return (dependsOn ?? []).flatMap((entry) => {
    const key = { namespace: entry.namespace ?? namespace, name: entry.name };
    if (seen.has(keyText(key))) return [];
    seen.add(keyText(key));
    return [key];
  });
};

/** The decision for `application` (decoded) given the others in `view` and the admin's tenancy `policy`. */
export const dependsOnDecision = (args: {
  readonly application: Application;
  readonly view: ApplicationsView;
  readonly policy?: TenancyPolicy;
}): DependsOnDecision => {
  const { application, view, policy } = args;
  const self: ApplicationKey = {
    namespace: application.metadata.namespace ?? 'default',
    name: application.metadata.name,
  };
  return application.metadata.deletionTimestamp === undefined
    ? dependenciesDecision(self, dependenciesOf(self.namespace, application.spec.dependsOn), view, policy)
    : dependantsDecision(self, view, policy);
};

const dependenciesDecision = (
  self: ApplicationKey,
  dependencies: ReadonlyArray<ApplicationKey>,
  view: ApplicationsView,
  policy: TenancyPolicy | undefined,
): DependsOnDecision => {
  if (dependencies.length === 0) return PROCEED;
  const forbidden = dependencies.filter((dependency) => !mayReach(policy, self.namespace, dependency.namespace));
  if (forbidden.length > 0)
    return {
      _tag: 'Stalled',
      reason: 'DependencyForbidden',
      message: `spec.dependsOn: ${forbidden.map(keyText).join(', ')} ${forbidden.length === 1 ? 'is' : 'are'} in a namespace Applications in ${self.namespace} may not depend on (tenancy policy destinations: ${[...tenancyFor(policy, self.namespace).destinations].join(', ')}): depend on Applications of allowed namespaces, or ask the admin to allow it`,
    };
  const cycle = cycleThrough(self, dependencies, view, policy);
  if (cycle !== undefined)
    return {
      _tag: 'Stalled',
      reason: 'DependencyCycle',
      message: `spec.dependsOn: the dependencies form a cycle ${cycle.map(keyText).join(' → ')}: remove one of its entries`,
    };
  const waits = dependencies.flatMap((dependency) => {
    const why = notReady(view.get(dependency.namespace, dependency.name));
    return why === undefined ? [] : [{ dependency, why }];
  });
  if (waits.length === 0) return PROCEED;
  return {
    _tag: 'Waiting',
    reason: 'DependencyNotReady',
    message: `waiting for ${waits.length === 1 ? 'dependency' : 'dependencies'} ${waits.map(({ dependency, why }) => `${keyText(dependency)} (${why})`).join(', ')}: nothing is written until ${waits.length === 1 ? 'it is' : 'they are'} Ready`,
    on: waits.map(({ dependency }) => dependency),
  };
};

const dependantsDecision = (
  self: ApplicationKey,
  view: ApplicationsView,
  policy: TenancyPolicy | undefined,
): DependsOnDecision => {
  const waiting = view
    .dependantsOf(self.namespace, self.name)
    .map(dependencyStateOf)
    .filter(
      (dependant) =>
        !dependant.deleting &&
        !(dependant.key.namespace === self.namespace && dependant.key.name === self.name) &&
        mayReach(policy, dependant.key.namespace, self.namespace) &&
        dependant.dependencies.some((key) => key.namespace === self.namespace && key.name === self.name),
    )
    .map((dependant) => dependant.key)
    .sort((a, b) => keyText(a).localeCompare(keyText(b)));
  if (waiting.length === 0) return PROCEED;
  return {
    _tag: 'Waiting',
    reason: 'DependantsExist',
    message: `deletion waits for ${waiting.length === 1 ? 'the Application that depends' : 'the Applications that depend'} on this one: ${waiting.map(keyText).join(', ')} (delete ${waiting.length === 1 ? 'it' : 'them'} or remove this Application from their spec.dependsOn); its children are kept until then`,
    on: waiting,
  };
};

/**
 * Whether Applications in `from` may depend on one in `to`: their own namespace, or a destination the policy allows
 * them.
 */
const mayReach = (policy: TenancyPolicy | undefined, from: string, to: string): boolean => {
  if (from === to) return true;
  const destinations = tenancyFor(policy, from).destinations;
  return destinations.has(ANY) || destinations.has(to);
};

/**
 * The shortest cycle through `self` along `spec.dependsOn` (as `self → … → self`), or `undefined`.
 * Breadth first from `self`'s dependencies, each Application visited once, at most
 * `MAX_DEPENDENCY_WALK`; edges the tenancy policy forbids are not followed (they stall where they start).
 */
const cycleThrough = (
  self: ApplicationKey,
  dependencies: ReadonlyArray<ApplicationKey>,
  view: ApplicationsView,
  policy: TenancyPolicy | undefined,
): ReadonlyArray<ApplicationKey> | undefined => {
  const origin = keyText(self);
  const previous = new Map<string, ApplicationKey | undefined>();
  const queue: ApplicationKey[] = [];
  for (const dependency of dependencies) {
    if (keyText(dependency) === origin) return [self, self];
    previous.set(keyText(dependency), undefined);
    queue.push(dependency);
  }
  for (let head = 0; head < queue.length && head < MAX_DEPENDENCY_WALK; head++) {
    const current = queue[head]!;
    const object = view.get(current.namespace, current.name);
    if (object === undefined) continue;
    for (const next of dependencyStateOf(object).dependencies) {
      if (!mayReach(policy, current.namespace, next.namespace)) continue;
      if (keyText(next) === origin) return [self, ...pathTo(current, previous), self];
      if (previous.has(keyText(next))) continue;
      previous.set(keyText(next), current);
      queue.push(next);
    }
  }
  return undefined;
};

const pathTo = (
  last: ApplicationKey,
  previous: ReadonlyMap<string, ApplicationKey | undefined>,
): ReadonlyArray<ApplicationKey> => {
  const path: ApplicationKey[] = [];
  for (let at: ApplicationKey | undefined = last; at !== undefined; at = previous.get(keyText(at))) path.unshift(at);
  return path;
};

/** What another Application shows of itself through the view, decoded where it enters. */
export type DependencyState = {
  readonly key: ApplicationKey;
  /** Its own `spec.dependsOn`, resolved (none when it does not decode). */
  readonly dependencies: ReadonlyArray<ApplicationKey>;
  readonly deleting: boolean;
  readonly generation?: number;
  readonly observedGeneration?: number;
  readonly ready?: { readonly status: string; readonly reason: string };
};

const DependencyFields = t.partial({
  metadata: t.partial({ generation: t.number, deletionTimestamp: t.string }),
  spec: t.partial({
    dependsOn: t.array(t.intersection([t.type({ name: t.string }), t.partial({ namespace: t.string })])),
  }),
  status: t.partial({ observedGeneration: t.number, conditions: t.array(ConditionCodec) }),
});

/**
 * `value` decoded by `codec`, or `undefined` when it does not decode (a partial codec refuses non-objects, null
 * included).
 */
const part = <A>(codec: t.Type<A, unknown, unknown>, value: unknown): A | undefined => {
  const decoded = codec.decode(value);
  return E.isRight(decoded) ? decoded.right : undefined;
};

/** The fields of a stored Application the decision reads; a field that does not decode counts as absent. */
export const dependencyStateOf = (object: StoredApplication): DependencyState => {
  const namespace = object.metadata.namespace ?? 'default';
  const key = { namespace, name: object.metadata.name };
  const metadata = part(DependencyFields.props.metadata, object.metadata);
  const spec = part(DependencyFields.props.spec, object.spec);
  const status = part(DependencyFields.props.status, object.status);
  const ready = status?.conditions?.find((condition) => condition.type === 'Ready');
  return {
    key,
    dependencies: dependenciesOf(namespace, spec?.dependsOn),
    deleting: metadata?.deletionTimestamp !== undefined,
    ...defined({ generation: metadata?.generation, observedGeneration: status?.observedGeneration }),
    ...(ready === undefined ? {} : { ready: { status: ready.status, reason: ready.reason } }),
  };
};

/**
 * Whether the Application is Ready as a dependency (Flux's check): its Ready condition True and its
 * status observed for its current generation. Undefined when it is; else why not (missing, being
 * deleted, not ready with its reason, or stale), words that change only when its state does.
 */
export const notReady = (object: StoredApplication | undefined): string | undefined => {
  if (object === undefined) return 'not found';
  const state = dependencyStateOf(object);
  if (state.deleting) return 'being deleted';
  if (state.ready?.status !== 'True')
    return state.ready === undefined ? 'not ready: no Ready condition yet' : `not ready: ${state.ready.reason}`;
  if (state.generation !== undefined && state.observedGeneration !== state.generation)
    return `stale: status is for generation ${state.observedGeneration ?? 'none'}, the spec is at ${state.generation}`;
  return undefined;
};

/** Whether the stored object counts as a Ready dependency (`notReady` finds nothing). */
export const isReadyDependency = (object: StoredApplication): boolean => notReady(object) === undefined;

/**
 * The plan of an Application the decision holds back: no action at all (no child created, patched
 * or pruned, the finalizer neither added nor removed), the stored status with the conditions and
 * `observedGeneration` for it. Waiting is ended by an event (the dependency turning Ready, a
 * dependant going away, an edit), never by polling.
 */
export const dependsOnPlan = (
  application: Application,
  decision: Exclude<DependsOnDecision, { readonly _tag: 'Proceed' }>,
  now: string,
): Plan => {
  const stored = application.status ?? {};
  const generation = application.metadata.generation;
  const verdict: Verdict =
    decision._tag === 'Stalled'
      ? { _tag: 'Stalled', reason: decision.reason, message: decision.message }
      : { _tag: 'Progressing', reason: decision.reason, message: decision.message };
  return {
    actions: [],
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
    status: {
      ...stored,
      ...defined({ observedGeneration: generation }),
      conditions: conditionsFor({ verdict, previous: stored.conditions, now, generation }),
    },
    outcome: { _tag: 'AwaitChange' },
  };
};

/**
 * A view of a fixed set of Applications (a directory, a snapshot): an Application listed later
 * replaces one of the same namespace and name listed earlier.
 */
export const applicationsViewOf = (objects: ReadonlyArray<StoredApplication>): ApplicationsView => {
  const byKey = new Map(objects.map((object) => [keyText(dependencyStateOf(object).key), object]));
  const dependants = new Map<string, StoredApplication[]>();
  for (const object of byKey.values())
    for (const dependency of dependencyStateOf(object).dependencies) {
      const list = dependants.get(keyText(dependency)) ?? [];
      list.push(object);
      dependants.set(keyText(dependency), list);
    }
  return {
    get: (namespace, name) => byKey.get(`${namespace}/${name}`),
    dependantsOf: (namespace, name) => dependants.get(`${namespace}/${name}`) ?? [],
  };
};

/**
 * The plan `plan` makes instead of planning, when `spec.dependsOn` (or, being deleted, its
 * dependants) hold the Application back; `undefined` when it may be planned. Without a view
 * nothing is held back: the caller that plans without the other Applications decides alone.
 */
export const heldByDependsOn = (
  application: Application,
  options: { readonly applications?: ApplicationsView; readonly tenancy?: TenancyPolicy } | undefined,
  now: string,
): Plan | undefined => {
  const view = options?.applications;
  if (view === undefined) return undefined;
  const decision = dependsOnDecision({
    application,
    view,
    ...defined({ policy: options?.tenancy }),
  });
  return decision._tag === 'Proceed' ? undefined : dependsOnPlan(application, decision, now);
};
