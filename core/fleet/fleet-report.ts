/**
 * The fleet report (docs/plan-output.md, "Fleet plan"; docs/decisions/0030-fleet-plan-and-impact.md):
 * over every instance's plan, the totals per action, kind and fields; the instances grouped by
 * identical change; the conflicts between Applications that declare the same object, with who wins
 * on the server by the owner mark (decision 0014); the guard policy over the whole fleet. Pure:
 * plans in, report out, linear in the actions.
 */
import { evaluateGuard, type GuardVerdict } from '../guard/evaluate.js';
import { guardedApplicationOf } from '../guard/guard-plan.js';
import type { GuardPolicy } from '../guard/policy.js';
import type { Application, ContestedField } from '../model/application.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import { ownerFor, ownerMark, ownerOf } from '../manifest/ownership.js';
import type { Action, Plan, PlanSummary } from '../model/plan.js';
import { fleetConflicts, objectKey, type FleetConflict } from './fleet-conflicts.js';
import { defined } from '../json/defined.js';

/** One instance of the fleet: an Application (or an embedder's primary as one), its plan, what it declares. */
export type FleetInstance = {
  readonly application: Application;
  readonly plan: Plan;
  /** The identities of the objects it declares (its desired state), for conflicts between instances. */
  readonly declares: ReadonlyArray<ObjectRef>;
};

/** `37 instances patch Deployment spec.template`: one row per action, kind and the fields it changes. */
export type FleetTotal = {
  readonly action: Action['type'];
  readonly kind: string;
  /**
   * The changed fields' first two path segments (`spec.template`, `data`), sorted; empty for creations and deletions.
   */
  readonly fields: ReadonlyArray<string>;
  /** How many instances have such an action. */
  readonly instances: number;
  /** How many such actions (an instance may have several). */
  readonly objects: number;
};

/** Instances whose plans make the identical change (names and namespaces aside). */
export type FleetGroup = {
  /** Positions in the fleet's instances, in fleet order; the first is the example. */
  readonly instances: ReadonlyArray<number>;
  readonly summary: PlanSummary;
};

/** An instance whose observed fields known controllers own: left to them, not patched back (docs/field-owners.md). */
export type FleetFight = {
  /** Its position in the fleet's instances. */
  readonly instance: number;
  readonly fields: ReadonlyArray<ContestedField>;
};

export type FleetReport = {
  /** The sum of every instance's plan summary. */
  readonly summary: PlanSummary;
  readonly totals: ReadonlyArray<FleetTotal>;
  /** Largest first; together they hold every instance exactly once. */
  readonly groups: ReadonlyArray<FleetGroup>;
  readonly conflicts: ReadonlyArray<FleetConflict>;
  /** Instances whose plans leave fields to the controllers that own them (an HPA's replicas), in fleet order. */
  readonly fights: ReadonlyArray<FleetFight>;
  /** The guard's verdicts over the whole fleet, one per instance (none without a policy). */
  readonly verdicts: ReadonlyArray<GuardVerdict>;
};

export const EMPTY_SUMMARY: PlanSummary = { create: 0, patch: 0, delete: 0, conflict: 0 };

/** The sum of two summaries (the optional counts kept absent while they are 0). */
export const addSummaries = (a: PlanSummary, b: PlanSummary): PlanSummary => {
  const forbidden = (a.forbidden ?? 0) + (b.forbidden ?? 0);
  const recreate = (a.recreate ?? 0) + (b.recreate ?? 0);
  const wait = (a.wait ?? 0) + (b.wait ?? 0);
  const skip = (a.skip ?? 0) + (b.skip ?? 0);
  return {
    create: a.create + b.create,
    patch: a.patch + b.patch,
    delete: a.delete + b.delete,
    conflict: a.conflict + b.conflict,
    ...(forbidden === 0 ? {} : { forbidden }),
    ...(recreate === 0 ? {} : { recreate }),
    ...(wait === 0 ? {} : { wait }),
    ...(skip === 0 ? {} : { skip }),
  };
};

/**
 * The report over `instances` planned against `live` (the objects they were planned with, for
 * who owns a contested object now); `guard` evaluates the policy over every plan together, each
 * approved by its Application's `kreconcile.io/approve` annotation as the operator does.
 */
export const fleetReport = (args: {
  readonly instances: ReadonlyArray<FleetInstance>;
  readonly live: ReadonlyArray<Resource>;
  readonly guard?: GuardPolicy;
}): FleetReport => {
  const { instances } = args;
  return {
    summary: instances.map((i) => i.plan.summary).reduce(addSummaries, EMPTY_SUMMARY),
    totals: fleetTotals(instances),
    groups: groupByChange(instances),
    conflicts: fleetConflicts(instances.map(contenderOf), liveOwners(args.live)),
    fights: instances.flatMap((instance, index) => {
      const fields = instance.plan.status.contestedFields ?? [];
      return fields.length === 0 ? [] : [{ instance: index, fields }];
    }),
    verdicts:
      args.guard === undefined
        ? []
        : evaluateGuard(
            args.guard,
            instances.map((i) => ({ application: guardedApplicationOf(i.application), actions: i.plan.actions })),
          ),
  };
};

const contenderOf = (instance: FleetInstance, index: number) => ({
  index,
  mark: ownerMark(ownerFor(instance.application)),
  adopt: instance.application.spec.adopt === true,
  declares: instance.declares,
});

/** Who owns each live object now: its owner mark, or `null` when it exists unmarked. */
const liveOwners = (live: ReadonlyArray<Resource>): ReadonlyMap<string, string | null> =>
  new Map(
    live.map((object) => [
      objectKey({
        apiVersion: object.apiVersion,
        kind: object.kind,
        ...defined({ namespace: object.metadata.namespace }),
        name: object.metadata.name,
      }),
      ownerOf(object) ?? null,
    ]),
  );

/** The fields an action changes, as its row names them: the first two segments of each path. */
const fieldsOf = (action: Action): ReadonlyArray<string> =>
  action.type === 'patch' || action.type === 'recreate' || action.type === 'skip'
    ? [
        ...new Set(action.changes.map((change) => /^[^.[]+(?:[.[][^.[]+)?/.exec(change.path)?.[0] ?? change.path)),
      ].sort()
    : [];

const fleetTotals = (instances: ReadonlyArray<FleetInstance>): ReadonlyArray<FleetTotal> => {
  const rows = new Map<
    string,
    { total: Omit<FleetTotal, 'instances' | 'objects'>; objects: number; seen: Set<number> }
  >();
  instances.forEach((instance, index) => {
    for (const action of instance.plan.actions) {
      if (action.type === 'addFinalizer' || action.type === 'removeFinalizer') continue;
      const fields = fieldsOf(action);
      const key = `${action.type}\u0000${action.ref.kind}\u0000${fields.join(',')}`;
      const row = rows.get(key) ?? {
        total: { action: action.type, kind: action.ref.kind, fields },
        objects: 0,
        seen: new Set(),
      };
      rows.set(key, row);
      row.objects += 1;
      row.seen.add(index);
    }
  });
  return [...rows.values()]
    .map((row) => ({ ...row.total, instances: row.seen.size, objects: row.objects }))
    .sort((a, b) => b.instances - a.instances || a.action.localeCompare(b.action) || a.kind.localeCompare(b.kind));
};

/**
 * What an instance's plan changes, names and namespaces aside: two instances of one template with
 * the same change have the same signature. Values are the plan's (Secret values already digests).
 * Fields left to their controllers count too: an instance fighting an HPA is not grouped under an
 * example that does not show the fight.
 */
export const changeSignature = (plan: Plan): string =>
  JSON.stringify([
    plan.actions.map((action) => [
      action.type,
      action.ref.apiVersion,
      action.ref.kind,
      action.changes.map((change) => [change.path, change.from ?? null, change.to ?? null]),
    ]),
    (plan.status.contestedFields ?? []).map((field) => [field.resource.kind, field.path, field.controller]),
  ]);

const groupByChange = (instances: ReadonlyArray<FleetInstance>): ReadonlyArray<FleetGroup> => {
  const groups = new Map<string, number[]>();
  instances.forEach((instance, index) => {
    const signature = changeSignature(instance.plan);
    const members = groups.get(signature);
    if (members === undefined) groups.set(signature, [index]);
    else members.push(index);
  });
  return [...groups.values()]
    .map((members) => ({ instances: members, summary: instances[members[0] ?? 0]?.plan.summary ?? EMPTY_SUMMARY }))
    .sort((a, b) => b.instances.length - a.instances.length || (a.instances[0] ?? 0) - (b.instances[0] ?? 0));
};
