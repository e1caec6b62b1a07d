/**
 * `kreconcile plan --simulate`: the whole way to convergence, not just the next step. The public
 * `plan` function is iterated on a simulated cluster: each round's writes are carried out on the
 * snapshot (creations and patches become ready at once, unless `--simulate-unready Kind/name`
 * says otherwise; deletions are gone at once), the Application takes the status the plan wrote,
 * and the next round plans again, until a plan has nothing left to do or a limit is reached.
 */
import { celEvaluator } from '../../../adapters/cel/cel-evaluator.js';
import * as E from 'fp-ts/lib/Either.js';
import { applyJsonPatch } from '../../../adapters/memory/json/json-patch.js';
import {
  FINALIZER,
  conditionOf,
  isJsonObject,
  isResource,
  plan,
  refKey,
  refOf,
  type Action,
  type Application,
  type JsonObject,
  type JsonValue,
  type Plan,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../../core/index.js';
import { liveObjectsFor } from './live-objects.js';
import type { Planned } from './plan-applications.js';

/** A simulation gives up after this many rounds (a plan that never settles, or waits forever). */
export const MAX_ROUNDS = 25;

export type SimulatedRound = { readonly round: number; readonly actions: ReadonlyArray<Action> };

export type Simulation = {
  readonly planned: Planned;
  readonly rounds: ReadonlyArray<SimulatedRound>;
  /** How the simulation ended: converged (Ready, nothing to do), stalled (with the reason), or still going at `MAX_ROUNDS`. */
  readonly end:
    | { readonly _tag: 'Converged' }
    | { readonly _tag: 'Stalled'; readonly reason: string; readonly message: string }
    | { readonly _tag: 'Waiting'; readonly message: string };
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

/** The status a controller would report once the object is ready (what kstatus readiness reads). */
const readyStatus = (object: Resource): JsonObject | undefined => {
  const generation = object.metadata.generation ?? 1;
  const replicas = isJsonObject(object.spec) ? object.spec.replicas : undefined;
  const n = typeof replicas === 'number' ? replicas : 1;
  switch (`${object.apiVersion}/${object.kind}`) {
    case 'apps/v1/Deployment':
    case 'apps/v1/ReplicaSet':
    case 'apps/v1/StatefulSet':
      return {
        observedGeneration: generation,
        replicas: n,
        updatedReplicas: n,
        readyReplicas: n,
        availableReplicas: n,
      };
    case 'apps/v1/DaemonSet':
      return {
        observedGeneration: generation,
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        updatedNumberScheduled: 1,
        numberAvailable: 1,
        numberReady: 1,
      };
    case 'batch/v1/Job':
      return { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
    case 'v1/PersistentVolumeClaim':
      return { phase: 'Bound' };
    case 'v1/Service':
      return { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };
    default:
      // Custom resources: Ready for their current generation. Built-in kinds without rules are ready once they exist.
      return object.apiVersion.includes('.') && object.apiVersion.includes('/')
        ? {
            observedGeneration: generation,
            conditions: [{ type: 'Ready', status: 'True', observedGeneration: generation }],
          }
        : undefined;
  }
};

/** The object as the simulated server stores it: identity, generation, and a ready status unless it stays unready. */
const stored = (object: Resource, round: number, unready: ReadonlyArray<string>, before?: Resource): Resource => {
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
  const status = matchesUnready(unready, base) ? undefined : readyStatus(base);
  const { status: _old, ...rest } = base;
  return status === undefined ? rest : { ...rest, status };
};

/** The cluster after one round's writes. */
const carriedOut = (
  live: ReadonlyArray<Resource>,
  actions: ReadonlyArray<Action>,
  round: number,
  unready: ReadonlyArray<string>,
): ReadonlyArray<Resource> =>
  actions.reduce<ReadonlyArray<Resource>>((objects, action) => {
    const key = refKey(action.ref);
    const index = objects.findIndex((object) => refKey(refOf(object)) === key);
    const others = objects.filter((_, i) => i !== index);
    switch (action.type) {
      case 'create':
        return [...others, stored(action.body, round, unready)];
      case 'recreate':
        return [...others, stored(action.body, round, unready)];
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
        return objects.map((object, i) => (i === index ? stored(applied, round, unready, before) : object));
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
    ...(status === undefined ? {} : { status }),
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
}): Simulation => {
  const rounds: SimulatedRound[] = [];
  let application = args.planned.application;
  let live = args.live;
  let current = args.planned.plan;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const stalled = conditionOf(current.status.conditions, 'Stalled');
    if (stalled?.status === 'True')
      return {
        planned: args.planned,
        rounds,
        end: { _tag: 'Stalled', reason: stalled.reason, message: stalled.message },
      };
    if (current.actions.length === 0 && conditionOf(current.status.conditions, 'Ready')?.status === 'True')
      return { planned: args.planned, rounds, end: { _tag: 'Converged' } };
    // A round that only waits, as the one before did, waits forever: the simulation changes nothing more.
    const previous = rounds[rounds.length - 1];
    if (previous !== undefined && onlyWaits(current.actions) && sameActions(previous.actions, current.actions))
      return { planned: args.planned, rounds, end: { _tag: 'Waiting', message: waitingMessage(current) } };
    rounds.push({ round, actions: current.actions });
    live = carriedOut(live, current.actions, round, args.unready);
    application = afterRound(application, current.actions, current.status);
    current = plan({
      application,
      live,
      scopes: args.scopes,
      now: args.now,
      options: { expressions: celEvaluator, ...(args.tenancy === undefined ? {} : { tenancy: args.tenancy }) },
    });
  }
  return { planned: args.planned, rounds, end: { _tag: 'Waiting', message: waitingMessage(current) } };
};

const onlyWaits = (actions: ReadonlyArray<Action>): boolean => actions.every((action) => action.type === 'wait');

const sameActions = (a: ReadonlyArray<Action>, b: ReadonlyArray<Action>): boolean =>
  a.length === b.length &&
  a.every((action, i) => action.type === b[i]?.type && refKey(action.ref) === refKey(b[i].ref));

const waitingMessage = (current: Plan): string =>
  conditionOf(current.status.conditions, 'Reconciling')?.message ||
  conditionOf(current.status.conditions, 'Ready')?.message ||
  'still acting';

/** Every planned Application simulated against the snapshot (each alone, as the operator reconciles them). */
export const simulateAll = (args: {
  readonly planned: ReadonlyArray<Planned>;
  readonly objects: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
  readonly now: string;
  readonly unready: ReadonlyArray<string>;
  readonly tenancy?: TenancyPolicy;
}): ReadonlyArray<Simulation> =>
  args.planned.map((planned) =>
    simulate({
      planned,
      live: liveObjectsFor(planned.application, args.objects, args.scopes),
      scopes: args.scopes,
      now: args.now,
      unready: args.unready,
      ...(args.tenancy === undefined ? {} : { tenancy: args.tenancy }),
    }),
  );
