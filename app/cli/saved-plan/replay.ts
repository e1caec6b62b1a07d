/**
 * A saved plan read back: its actions as the core's Action values (for the executor), and its
 * Applications as `Planned` values (so `show` and `apply` render it with the same renderers as
 * `plan`, rollout impact and field owners included when the plan saved them).
 */
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  type Action,
  type Application,
  type ForbiddenRule,
  type Impact,
  type ImpactType,
  type PatchedFieldOwners,
  type ObjectRef,
  type Plan,
  type PlanSummary,
} from '../../../core/internal.js';
import type { Origin } from '../input/entries.js';
import type { Planned } from '../planning/plan-applications.js';
import type { ImpactV1, ResourceRefV1 } from '../render/plan-document.js';
import type { SavedActionV1, SavedApplicationV1 } from './format.js';
import { defined } from '../../../core/json/defined.js';

const refOfV1 = (resource: ResourceRefV1): ObjectRef => ({
  apiVersion: resource.apiVersion,
  kind: resource.kind,
  name: resource.name,
  ...defined({ namespace: resource.namespace }),
});

const DELETE_REASONS = ['RemovedFromSpec', 'ApplicationDeleted'] as const;
const CONFLICT_REASONS = ['NotOwned', 'OwnedByAnother'] as const;

// Reasons are shown as written; an unknown one (a newer kreconcile) keeps the closest meaning.
const deleteReason = (reason: string): (typeof DELETE_REASONS)[number] =>
  DELETE_REASONS.find((r) => r === reason) ?? 'RemovedFromSpec';
const forbiddenRule = (rule: string): ForbiddenRule => FORBIDDEN_RULES.find((r) => r === rule) ?? 'Destination';
const FORBIDDEN_RULES: ReadonlyArray<ForbiddenRule> = ['Destination', 'ClusterScoped', 'Adoption'];
const conflictReason = (reason: string): (typeof CONFLICT_REASONS)[number] =>
  CONFLICT_REASONS.find((r) => r === reason) ?? 'NotOwned';

/** The core action a saved action stands for (the inverse of `actionV1`). */
export const actionOf = (saved: SavedActionV1): Action => {
  const ref = refOfV1(saved.resource);
  const changes = saved.changes;
  switch (saved.type) {
    case 'create':
      return { type: 'create', ref, body: saved.body, changes };
    case 'patch':
      return {
        type: 'patch',
        ref,
        patch: saved.patch,
        changes,
        ...defined({ orphan: saved.orphan }),
      };
    case 'recreate':
      return { type: 'recreate', ref, body: saved.body, fields: saved.fields, changes };
    case 'delete':
      return { type: 'delete', ref, reason: deleteReason(saved.reason), changes };
    case 'wait':
      return { type: 'wait', ref, until: saved.until, for: saved.waitsFor.map(refOfV1), changes };
    case 'conflict':
      return {
        type: 'conflict',
        ref,
        reason: conflictReason(saved.reason),
        ...defined({ owner: saved.owner }),
        changes,
      };
    case 'forbidden':
      return { type: 'forbidden', ref, rule: forbiddenRule(saved.rule), reason: saved.reason, changes };
    case 'skip':
      return { type: 'skip', ref, apply: saved.apply, withheld: saved.withheld, changes };
  }
};

/** The Application a saved plan was made for, as far as the file knows it (no spec: it is not needed). */
export const savedApplicationObject = (saved: SavedApplicationV1): Application => {
  const { application } = saved;
  return {
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: {
      name: application.name,
      ...defined({ namespace: application.namespace, uid: application.uid, generation: application.generation }),
    },
    spec: {},
  };
};

/** The saved Application's plan as the core's Plan value (status: the saved conditions and contested fields only). */
export const planOf = (saved: SavedApplicationV1): Plan => {
  const summary: PlanSummary = saved.summary;
  return {
    actions: saved.actions.map(actionOf),
    status: {
      conditions: saved.conditions,
      ...defined({ contestedFields: saved.contestedFields }),
    },
    outcome:
      saved.outcome.type === 'RequeueAfter'
        ? { _tag: 'RequeueAfter', ms: saved.outcome.afterMs, reason: saved.outcome.reason }
        : { _tag: 'AwaitChange' },
    summary,
  };
};

const originOf = (saved: SavedApplicationV1): Origin => ({
  file: saved.source.file,
  document: saved.source.document,
  prefix: [],
  locate: () => ({ file: saved.source.file, document: saved.source.document }),
});

// Every ImpactType, or this does not compile: a saved type outside them is a newer kreconcile's.
const KNOWN_IMPACTS: Readonly<Record<ImpactType, true>> = {
  rollout: true,
  noRollout: true,
  start: true,
  configReload: true,
  configStale: true,
  configRollout: true,
  loss: true,
  traffic: true,
};

const isImpactType = (type: string): type is ImpactType => Object.hasOwn(KNOWN_IMPACTS, type);

/** A saved impact as the core's; one of a type this version does not know (a newer kreconcile's) is left out. */
const impactOf = (saved: ImpactV1): ReadonlyArray<Impact> => {
  const { type } = saved;
  return !isImpactType(type)
    ? []
    : [
        {
          type,
          message: saved.message,
          ...(saved.workloads === undefined ? {} : { workloads: saved.workloads.map(refOfV1) }),
          ...defined({ pods: saved.pods }),
        },
      ];
};

/** Each saved action's impacts, parallel to `planOf(saved).actions` (empty where none was saved). */
export const impactsOf = (saved: SavedApplicationV1): ReadonlyArray<ReadonlyArray<Impact>> =>
  saved.actions.map((action) => (action.impact ?? []).flatMap(impactOf));

const ownersOf = (saved: SavedApplicationV1): ReadonlyArray<PatchedFieldOwners> =>
  (saved.fieldOwners ?? []).map((entry) => ({ ...entry, resource: refOfV1(entry.resource) }));

/** The saved Applications as `plan` computed them, for the renderers. */
export const plannedOf = (applications: ReadonlyArray<SavedApplicationV1>): ReadonlyArray<Planned> =>
  applications.map((saved) => {
    const application = savedApplicationObject(saved);
    const owners = ownersOf(saved);
    return {
      input: { application, origin: originOf(saved) },
      application,
      plan: planOf(saved),
      impacts: impactsOf(saved),
      ...(owners.length === 0 ? {} : { owners }),
    };
  });
