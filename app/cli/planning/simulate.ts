/**
 * `kreconcile plan --simulate`: the whole way to convergence, not just the next step. The public
 * `plan` function is iterated on a simulated cluster: each round's writes are carried out on the
 * snapshot (creations and patches become ready at once, unless `--simulate-unready Kind/name`
 * says otherwise; deletions are gone at once), the Application takes the status the plan wrote,
 * and the next round plans again, until a plan has nothing left to do or a limit is reached.
 * Ready means ready as the readiness that applies sees it: kstatus gets the status a controller
 * would report; an object under a `spec.readiness` rule is *assumed* ready by its rule (no status
 * can be invented for an arbitrary CEL expression), and each round lists those assumptions.
 */
import { celEvaluator } from '../../../adapters/cel/cel-evaluator.js';
import * as E from 'fp-ts/lib/Either.js';
import { settledStatus } from '../../../adapters/memory/controllers/workload-controllers.js';
import { applyJsonPatch } from '../../../adapters/memory/json/json-patch.js';
import {
  FINALIZER,
  applicationKeyText,
  applicationsViewOf,
  conditionOf,
  dependenciesOf,
  isJsonObject,
  plan,
  refKey,
  refOf,
  isResource,
  type Action,
  type Application,
  type ApplicationsView,
  type JsonObject,
  type JsonValue,
  type ObjectRef,
  type Plan,
  type ReadinessRuleSpec,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../../core/internal.js';
import type { CompiledExpression, ExpressionEvaluator } from '../../../core/ports/expressions.js';
import { liveObjectsFor } from './live-objects.js';
import type { Planned } from './plan-applications.js';
import { defined } from '../../../core/json/defined.js';

/** A simulation gives up after this many rounds (a plan that never settles, or waits forever). */
export const MAX_ROUNDS = 25;

/** An object this round wrote that the simulation takes as ready by its readiness rule, unverified. */
export type AssumedReady = { readonly ref: ObjectRef; readonly rule: string };

export type SimulatedRound = {
  readonly round: number;
  readonly actions: ReadonlyArray<Action>;
  /** The objects this round's writes made ready by assumption (their `spec.readiness` rule's `ready`). */
  readonly assumedReady: ReadonlyArray<AssumedReady>;
};

export type Simulation = {
  readonly planned: Planned;
  readonly rounds: ReadonlyArray<SimulatedRound>;
  /**
   * How the simulation ended: converged (Ready, nothing to do), stalled (with the reason), or still going at
   * `MAX_ROUNDS`.
   */
  readonly end:
    | { readonly _tag: 'Converged' }
    | { readonly _tag: 'Stalled'; readonly reason: string; readonly message: string }
    | { readonly _tag: 'Waiting'; readonly message: string };
  /** `spec.dependsOn`: the rounds it waited for its dependencies of the directory before acting, and why. */
  readonly waited?: { readonly rounds: number; readonly message: string };
  /** The Application as the last round left it (its status is what its dependants see). */
  readonly application: Application;
};

/** `Kind/name` or `Kind/namespace/name` of `--simulate-unready`, matched against objects the plan writes. */
export const matchesUnready = (patterns: ReadonlyArray<string>, object: Resource): boolean =>
  patterns.some((pattern) => {
    const [kind, ...rest] = pattern.split('/');
    if (kind !== object.kind) return false;
    return rest.length === 2
      ? rest[0] === object.metadata.namespace && rest[1] === object.metadata.name
      : rest[0] === object.metadata.name;
  });

/**
 * The status a controller would report once the object is ready (what kstatus readiness reads): the
 * memory server's workload controllers' for built-in kinds; custom resources Ready for their current
 * generation. Other built-in kinds are ready once they exist.
 */
const readyStatus = (object: Resource, now: string): JsonObject | undefined => {
  const generation = object.metadata.generation ?? 1;
  return (
    settledStatus(object, now) ??
    (object.apiVersion.includes('.') && object.apiVersion.includes('/')
      ? {
          observedGeneration: generation,
          conditions: [{ type: 'Ready', status: 'True', observedGeneration: generation }],
        }
      : undefined)
  );
};

/**
 * The `spec.readiness` rule that decides `object` (the first that matches, as core/status/readiness-rules.ts picks it).
 */
const readinessRuleOf = (application: Application, object: Resource): ReadinessRuleSpec | undefined =>
  (application.spec.readiness ?? []).find(
    (rule) =>
      rule.kind === object.kind &&
      (rule.apiVersion === undefined || rule.apiVersion === object.apiVersion) &&
      (rule.name === undefined || rule.name === object.metadata.name),
  );

/** The simulated cluster: its objects, and those ready by assumption (by key) with the rule that assumes it. */
type Model = {
  readonly live: ReadonlyArray<Resource>;
  readonly assumed: ReadonlyMap<string, ReadinessRuleSpec>;
};

/**
 * The CEL evaluator as the simulation's planner sees it: for an object ready by assumption, its
 * rule's `ready` expression is true and its `failed` expression false; every other object is
 * evaluated as written. Built per round from the model (no state of its own).
 */
const assumingEvaluator = (
  evaluator: ExpressionEvaluator,
  assumed: ReadonlyMap<string, ReadinessRuleSpec>,
): ExpressionEvaluator =>
  assumed.size === 0
    ? evaluator
    : {
        compile: (source) =>
          E.map((compiled: CompiledExpression): CompiledExpression => ({
            source: compiled.source,
            reads: compiled.reads,
            evaluate: (self: JsonValue) => {
              const rule = isResource(self) ? assumed.get(refKey(refOf(self))) : undefined;
              return rule === undefined ? compiled.evaluate(self) : E.right(source !== rule.failed);
            },
          }))(evaluator.compile(source)),
      };

/** The object as the simulated server stores it: identity, generation, and a ready status when `ready` (else none). */
const stored = (object: Resource, round: number, now: string, ready: boolean, before?: Resource): Resource => {
  const generation = (before?.metadata.generation ?? 0) + 1;
  const base: Resource = {
    ...object,
    metadata: {
      ...object.metadata,
      uid: before?.metadata.uid ?? `simulated-${round}-${object.metadata.name}`,
      resourceVersion: String(round),
      generation,
    },
  };
  const status = ready ? readyStatus(base, now) : undefined;
  const { status: _old, ...rest } = base;
  return status === undefined ? rest : { ...rest, status };
};

/**
 * The model after one round's writes: objects written under a readiness rule are ready by
 * assumption (unless `--simulate-unready` names them), and stored without an invented status.
 */
const carriedOut = (
  model: Model,
  application: Application,
  actions: ReadonlyArray<Action>,
  { round, now }: { readonly round: number; readonly now: string },
  unready: ReadonlyArray<string>,
): { readonly model: Model; readonly assumedReady: ReadonlyArray<AssumedReady> } => {
  const ruled = (object: Resource): ReadinessRuleSpec | undefined =>
    matchesUnready(unready, object) ? undefined : readinessRuleOf(application, object);
  // Under a rule no status is invented: the assumption, not a status, makes it ready.
  const store = (object: Resource, before?: Resource): Resource =>
    stored(object, round, now, !matchesUnready(unready, object) && ruled(object) === undefined, before);
  const live = written(model.live, actions, store);
  const assumed = new Map([...model.assumed].filter(([key]) => live.some((object) => refKey(refOf(object)) === key)));
  const assumedReady: AssumedReady[] = [];
  for (const action of actions) {
    if (action.type !== 'create' && action.type !== 'patch' && action.type !== 'recreate') continue;
    const object = live.find((candidate) => refKey(refOf(candidate)) === refKey(action.ref));
    const rule = object === undefined ? undefined : ruled(object);
    if (object === undefined || rule === undefined) continue;
    assumed.set(refKey(action.ref), rule);
    assumedReady.push({ ref: action.ref, rule: rule.ready });
  }
  return { model: { live, assumed }, assumedReady };
};

/** The cluster after one round's writes, each written object as `store` keeps it. */
const written = (
  live: ReadonlyArray<Resource>,
  actions: ReadonlyArray<Action>,
  store: (object: Resource, before?: Resource) => Resource,
): ReadonlyArray<Resource> =>
  actions.reduce<ReadonlyArray<Resource>>((objects, action) => {
    const key = refKey(action.ref);
    const index = objects.findIndex((object) => refKey(refOf(object)) === key);
    const others = objects.filter((_, i) => i !== index);
    switch (action.type) {
      case 'create':
        return [...others, store(action.body)];
      case 'recreate':
        return [...others, store(action.body)];
      case 'delete':
        return others;
      case 'patch': {
        const before = objects[index];
        if (before === undefined) return objects;
        const operations = [
          ...(action.serverSideApply?.beforeApply ?? []),
          ...(action.serverSideApply === undefined ? action.patch : []),
        ].filter((op) => op.op !== 'test');
        const result = applyJsonPatch(before, operations);
        // A patch the simulated object refuses leaves it as it was (the real server would refuse it too).
        if (E.isLeft(result)) return objects;
        const patched = result.right;
        const applied =
          action.serverSideApply === undefined ? patched : deepMerge(patched, action.serverSideApply.body);
        // An apply that loses the identification is refused, as the real server would.
        if (!isResource(applied)) return objects;
        return objects.map((object, i) => (i === index ? store(applied, before) : object));
      }
      default:
        return objects;
    }
  }, live);

/** Server-side apply as far as a simulation needs it: objects merged, everything else replaced. */
const deepMerge = (target: JsonValue | undefined, patch: JsonObject): JsonObject => {
  const base: Record<string, JsonValue> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch))
    base[key] = isJsonObject(value) ? deepMerge(base[key], value) : value;
  return base;
};

/** The Application after a round: its finalizer as the plan left it, and the status it wrote. */
const afterRound = (
  application: Application,
  actions: ReadonlyArray<Action>,
  status: Application['status'],
): Application => {
  const finalizers = application.metadata.finalizers ?? [];
  const next = actions.some((a) => a.type === 'removeFinalizer')
    ? finalizers.filter((f) => f !== FINALIZER)
    : actions.some((a) => a.type === 'addFinalizer')
      ? [...finalizers, FINALIZER]
      : finalizers;
  return {
    ...application,
    metadata: { ...application.metadata, finalizers: next },
    ...defined({ status }),
  };
};

/** Simulates one Application from its first plan (`planned`) to convergence, a stall, or `MAX_ROUNDS`. */
export const simulate = (args: {
  readonly planned: Planned;
  readonly live: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
  readonly now: string;
  readonly unready: ReadonlyArray<string>;
  readonly tenancy?: TenancyPolicy;
  /** The other Applications (`spec.dependsOn`), as they stand when this one's simulation starts. */
  readonly applications?: ApplicationsView;
  /** Rounds already taken by its dependencies: its own are numbered after them. */
  readonly after?: number;
}): Simulation => {
  const rounds: SimulatedRound[] = [];
  const after = args.after ?? 0;
  let application = args.planned.application;
  let model: Model = { live: args.live, assumed: new Map() };
  const optionsFor = (assumed: Model['assumed']) => ({
    expressions: assumingEvaluator(celEvaluator, assumed),
    ...defined({ tenancy: args.tenancy, applications: args.applications }),
  });
  const replan = (): Plan =>
    plan({ application, live: model.live, scopes: args.scopes, now: args.now, options: optionsFor(model.assumed) });
  // Its first plan waited for dependencies the simulation has since made Ready: planned again from there.
  const waited = after > 0 && heldByDependencies(args.planned.plan) ? waitingMessage(args.planned.plan) : undefined;
  let current = waited === undefined ? args.planned.plan : replan();
  const ended = (end: Simulation['end']): Simulation => ({
    planned: args.planned,
    rounds,
    end,
    application,
    ...(waited === undefined ? {} : { waited: { rounds: after, message: waited } }),
  });
  for (let round = after + 1; round <= after + MAX_ROUNDS; round++) {
    const stalled = conditionOf(current.status.conditions, 'Stalled');
    if (stalled?.status === 'True') return ended({ _tag: 'Stalled', reason: stalled.reason, message: stalled.message });
    if (current.actions.every(writesNothing) && conditionOf(current.status.conditions, 'Ready')?.status === 'True') {
      application = afterRound(application, [], current.status);
      return ended({ _tag: 'Converged' });
    }
    // A round that only waits, as the one before did, waits forever: the simulation changes nothing more.
    const previous = rounds[rounds.length - 1];
    if (previous !== undefined && onlyWaits(current.actions) && sameActions(previous.actions, current.actions))
      return ended({ _tag: 'Waiting', message: waitingMessage(current) });
    const next = carriedOut(model, application, current.actions, { round, now: args.now }, args.unready);
    rounds.push({ round, actions: current.actions, assumedReady: next.assumedReady });
    model = next.model;
    application = afterRound(application, current.actions, current.status);
    current = replan();
  }
  return ended({ _tag: 'Waiting', message: waitingMessage(current) });
};

/** A `skip` (withheld by kreconcile.io/apply) stays in every plan and changes nothing: it is no work left. */
const writesNothing = (action: Action): boolean => action.type === 'skip';

/** Whether a plan was held back by `spec.dependsOn` (core/plan/depends-on.ts). */
const heldByDependencies = (held: Plan): boolean =>
  conditionOf(held.status.conditions, 'Reconciling')?.reason === 'DependencyNotReady';

const onlyWaits = (actions: ReadonlyArray<Action>): boolean =>
  actions.every((action) => action.type === 'wait' || writesNothing(action));

const sameActions = (a: ReadonlyArray<Action>, b: ReadonlyArray<Action>): boolean =>
  a.length === b.length &&
  a.every((action, i) => action.type === b[i]?.type && refKey(action.ref) === refKey(b[i].ref));

const waitingMessage = (current: Plan): string =>
  conditionOf(current.status.conditions, 'Reconciling')?.message ||
  conditionOf(current.status.conditions, 'Ready')?.message ||
  'still acting';

/**
 * Every planned Application simulated against the snapshot, each alone as the operator reconciles
 * them, in the order given (dependencies first: plan-applications.ts). An Application that depends
 * on others of the directory starts once they converged, its rounds numbered after theirs, with the
 * rounds it waited; when one of them does not converge, it waits for ever.
 */
export const simulateAll = (args: {
  readonly planned: ReadonlyArray<Planned>;
  readonly objects: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
  readonly now: string;
  readonly unready: ReadonlyArray<string>;
  readonly tenancy?: TenancyPolicy;
  /** The Applications of the snapshot (what an Application of the directory may depend on besides the others). */
  readonly recorded?: ReadonlyArray<Application>;
}): ReadonlyArray<Simulation> => {
  const simulated = new Map<string, Simulation>();
  const keyOf = (application: Application): string =>
    `${application.metadata.namespace ?? 'default'}/${application.metadata.name}`;
  const directory = new Set(args.planned.map((planned) => keyOf(planned.application)));
  return args.planned.map((planned) => {
    const dependencies = dependenciesOf(
      planned.application.metadata.namespace ?? 'default',
      planned.application.spec.dependsOn,
    )
      .map(applicationKeyText)
      .filter((key) => directory.has(key));
    const done = dependencies.flatMap((key) => simulated.get(key) ?? []);
    const after = Math.max(0, ...done.map((simulation) => (simulation.waited?.rounds ?? 0) + simulation.rounds.length));
    // The others as the simulation left them so far (those not simulated yet: as planned).
    const applications = applicationsViewOf([
      ...(args.recorded ?? []),
      ...args.planned.map((other) => simulated.get(keyOf(other.application))?.application ?? other.application),
    ]);
    const simulation = simulate({
      planned,
      live: liveObjectsFor(planned.application, args.objects, args.scopes),
      scopes: args.scopes,
      now: args.now,
      unready: args.unready,
      ...defined({ tenancy: args.tenancy }),
      applications,
      after,
    });
    simulated.set(keyOf(planned.application), simulation);
    return simulation;
  });
};
