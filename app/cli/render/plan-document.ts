/**
 * The machine-readable plan (`-o json` / `-o yaml`), format `kreconcile.io/plan/v1`: a stable,
 * documented contract (docs/plan-output.md, docs/plan-output.schema.json) mapped field by field
 * from the core's Plan value, so core refactorings cannot change it by accident.
 */
import {
  addSummaries,
  EMPTY_SUMMARY,
  conditionOf,
  displayRedactor,
  redactForDisplay,
  type Action,
  type Application,
  type ApplicationStatus,
  type FieldChange,
  type Impact,
  type JsonPatchOperation,
  type JsonValue,
  type ObjectRef,
  type ObserverSchema,
  type Outcome,
  type PatchAction,
  type PatchedFieldOwners,
  type PlanSummary,
  type Resource,
} from '../../../core/internal.js';
import type { Planned } from '../planning/plan-applications.js';
import type { ClusterBasis } from '../planning/cluster-view.js';
import { defined } from '../../../core/json/defined.js';

export const PLAN_API_VERSION = 'kreconcile.io/plan/v1';

/** What the plan was computed against. */
export type { ClusterBasis } from '../planning/cluster-view.js';

export type ResourceRefV1 = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
};
export type ChangeV1 = { readonly path: string; readonly from?: JsonValue; readonly to?: JsonValue };

/** What an action does at run time (core/impact): present on an action only when it has one. */
export type ImpactV1 = {
  readonly type: string;
  readonly message: string;
  readonly workloads?: ReadonlyArray<ResourceRefV1>;
  readonly pods?: number;
};

export type ActionV1 = PlainActionV1 & { readonly impact?: ReadonlyArray<ImpactV1> };

type PlainActionV1 =
  | {
      readonly type: 'create';
      readonly resource: ResourceRefV1;
      readonly body: Resource;
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'patch';
      readonly resource: ResourceRefV1;
      readonly patch: ReadonlyArray<JsonPatchOperation>;
      readonly changes: ReadonlyArray<ChangeV1>;
      /**
       * Present only with `spec.applyMode: ServerSideApply` (JsonPatch documents stay as they were): how
       * this patch is sent; `JsonPatch` when `positionalLists` hold live names off the observed positions.
       */
      readonly applyMode?: 'ServerSideApply' | 'JsonPatch';
      readonly forceConflicts?: boolean;
      readonly positionalLists?: ReadonlyArray<string>;
      /**
       * Present on the patch that orphans a child under `kreconcile.io/prune: disabled` instead of deleting it: why it
       * would have been deleted.
       */
      readonly orphan?: 'RemovedFromSpec' | 'ApplicationDeleted';
    }
  | {
      readonly type: 'recreate';
      readonly resource: ResourceRefV1;
      readonly body: Resource;
      readonly fields: ReadonlyArray<string>;
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'delete';
      readonly resource: ResourceRefV1;
      readonly reason: string;
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'wait';
      readonly resource: ResourceRefV1;
      readonly until: 'DependenciesReady' | 'DependentsGone';
      readonly waitsFor: ReadonlyArray<ResourceRefV1>;
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'conflict';
      readonly resource: ResourceRefV1;
      readonly reason: string;
      readonly owner?: string;
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'forbidden';
      readonly resource: ResourceRefV1;
      readonly rule: string;
      readonly reason: string;
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'skip';
      readonly resource: ResourceRefV1;
      readonly apply: 'IfNotPresent' | 'Ignore';
      readonly withheld: 'create' | 'patch' | 'recreate' | 'conflict';
      readonly changes: ReadonlyArray<ChangeV1>;
    }
  | {
      readonly type: 'addFinalizer' | 'removeFinalizer';
      readonly resource: ResourceRefV1;
      readonly finalizer: string;
      readonly changes: ReadonlyArray<ChangeV1>;
    };

/** `forbidden`, `recreate`, `wait` and `skip` appear only when nonzero (fields added within v1). */
export type SummaryV1 = {
  readonly create: number;
  readonly patch: number;
  readonly delete: number;
  readonly conflict: number;
  readonly forbidden?: number;
  readonly recreate?: number;
  readonly wait?: number;
  readonly skip?: number;
};

export type OutcomeV1 =
  | { readonly type: 'RequeueAfter'; readonly afterMs: number; readonly reason: string }
  | { readonly type: 'AwaitChange' };

/** `Changes`: resources would be written; `Stalled`: the operator would stop (e.g. a conflict). */
export type ResultV1 = 'NoChanges' | 'Changes' | 'Stalled';

export type ApplicationPlanV1 = {
  readonly application: ResourceRefV1 & { readonly uid?: string; readonly generation?: number };
  readonly source: { readonly file: string; readonly document: number };
  readonly result: ResultV1;
  readonly message: string;
  readonly stalled?: { readonly reason: string; readonly message: string };
  /**
   * Present for an Application defined by a TOSCA template or CSAR: where from, and the resources it gave (added within
   * v1).
   */
  readonly translated?: TranslatedV1;
  readonly actions: ReadonlyArray<ActionV1>;
  readonly summary: SummaryV1;
  readonly status: ApplicationStatus;
  readonly outcome: OutcomeV1;
  /** Other managers that own the fields the patches write, from the snapshot's managedFields (added within v1). */
  readonly fieldOwners?: ReadonlyArray<PatchedFieldOwners>;
};

/** `url` for a fetched template or CSAR; `resources` as the template writes them (namespace only when it does). */
export type TranslatedV1 = {
  readonly from: 'spec.tosca' | 'spec.csar';
  readonly url?: string;
  readonly resources: ReadonlyArray<ResourceRefV1>;
};

export type PlanDocumentV1 = {
  readonly apiVersion: typeof PLAN_API_VERSION;
  readonly kind: 'Plan';
  readonly metadata: { readonly now: string; readonly cluster: ClusterBasis };
  readonly applications: ReadonlyArray<ApplicationPlanV1>;
  readonly summary: SummaryV1 & { readonly changes: boolean };
};

export const refV1 = (ref: ObjectRef): ResourceRefV1 => ({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  ...defined({ namespace: ref.namespace }),
  name: ref.name,
});

const changeV1 = (change: FieldChange): ChangeV1 => ({
  path: change.path,
  ...defined({ from: change.from, to: change.to }),
});

/** An action as printed: Secret values in bodies and patches shown as `(sensitive value) sha256:<hex>`. */
export const actionV1 = (unsafe: Action, schemas?: ReadonlyArray<ObserverSchema>): ActionV1 =>
  plainActionV1(redactForDisplay(unsafe, schemas));

/** `actionV1` for every action of one plan, the schemas' sensitive marks looked up once (linear in the actions). */
export const actionsV1 = (
  unsafe: ReadonlyArray<Action>,
  schemas?: ReadonlyArray<ObserverSchema>,
): ReadonlyArray<ActionV1> => {
  const redact = displayRedactor(schemas);
  return unsafe.map((action) => plainActionV1(redact(action)));
};

/** How a patch is sent in ServerSideApply mode; nothing for JsonPatch plans. */
const patchModeV1 = (
  action: PatchAction,
): Pick<Extract<ActionV1, { type: 'patch' }>, 'applyMode' | 'forceConflicts' | 'positionalLists'> => {
  if (action.positionalLists !== undefined) return { applyMode: 'JsonPatch', positionalLists: action.positionalLists };
  return action.serverSideApply === undefined
    ? {}
    : { applyMode: 'ServerSideApply', forceConflicts: action.serverSideApply.force };
};

/**
 * An action in the v1 format with every value as it is, Secret values included: only for a saved
 * plan that will be carried out (`kreconcile apply` must write the real values, never their masks).
 */
export const plainActionV1 = (action: Action): ActionV1 => {
  const resource = refV1(action.ref);
  const changes = action.changes.map(changeV1);
  switch (action.type) {
    case 'create':
      return { type: 'create', resource, body: action.body, changes };
    // The intent itself is not printed (it holds every observed value, Secret data included): the mode and the changes
    // are.
    case 'patch':
      return {
        type: 'patch',
        resource,
        patch: action.patch,
        changes,
        ...patchModeV1(action),
        ...defined({ orphan: action.orphan }),
      };
    case 'recreate':
      return { type: 'recreate', resource, body: action.body, fields: action.fields, changes };
    case 'delete':
      return { type: 'delete', resource, reason: action.reason, changes };
    case 'wait':
      return { type: 'wait', resource, until: action.until, waitsFor: action.for.map(refV1), changes };
    case 'conflict':
      return {
        type: 'conflict',
        resource,
        reason: action.reason,
        ...defined({ owner: action.owner }),
        changes,
      };
    case 'forbidden':
      return { type: 'forbidden', resource, rule: action.rule, reason: action.reason, changes };
    case 'skip':
      return { type: 'skip', resource, apply: action.apply, withheld: action.withheld, changes };
    case 'addFinalizer':
    case 'removeFinalizer':
      return { type: action.type, resource, finalizer: action.finalizer, changes };
  }
};

const outcomeV1 = (outcome: Outcome): OutcomeV1 =>
  outcome._tag === 'RequeueAfter'
    ? { type: 'RequeueAfter', afterMs: outcome.ms, reason: outcome.reason }
    : { type: 'AwaitChange' };

export const summaryV1 = (summary: PlanSummary): SummaryV1 => ({
  create: summary.create,
  patch: summary.patch,
  delete: summary.delete,
  conflict: summary.conflict,
  ...((summary.forbidden ?? 0) > 0 ? { forbidden: summary.forbidden } : {}),
  ...((summary.recreate ?? 0) > 0 ? { recreate: summary.recreate } : {}),
  ...((summary.wait ?? 0) > 0 ? { wait: summary.wait } : {}),
  ...((summary.skip ?? 0) > 0 ? { skip: summary.skip } : {}),
});

// Waiting creations and deletions are changes still to come.
const writes = (summary: PlanSummary): number =>
  summary.create + summary.patch + summary.delete + (summary.recreate ?? 0) + (summary.wait ?? 0);

/** Whether a plan would write resources or finds one it may not touch (finalizer bookkeeping aside). */
export const hasChanges = (summary: PlanSummary): boolean =>
  writes(summary) + summary.conflict + (summary.forbidden ?? 0) > 0;

export const resultOf = ({ plan }: Pick<Planned, 'plan'>): ResultV1 => {
  if (conditionOf(plan.status.conditions, 'Stalled')?.status === 'True') return 'Stalled';
  return writes(plan.summary) > 0 ? 'Changes' : 'NoChanges';
};

export const applicationPlanV1 = (planned: Planned): ApplicationPlanV1 => {
  const { application, plan, input } = planned;
  const stalled = conditionOf(plan.status.conditions, 'Stalled');
  const ready = conditionOf(plan.status.conditions, 'Ready');
  const metadata = application.metadata;
  return {
    application: {
      ...refV1({
        apiVersion: application.apiVersion,
        kind: application.kind,
        namespace: metadata.namespace ?? 'default',
        name: metadata.name,
      }),
      ...defined({ uid: metadata.uid, generation: metadata.generation }),
    },
    source: { file: input.origin.file, document: input.origin.document },
    result: resultOf(planned),
    message: ready?.message ?? '',
    ...(stalled?.status === 'True' ? { stalled: { reason: stalled.reason, message: stalled.message } } : {}),
    ...(input.translated === undefined ? {} : { translated: translatedV1(application, input.translated) }),
    actions: withImpacts(actionsV1(plan.actions, plan.status.mangledObserverSchema), planned.impacts),
    summary: summaryV1(plan.summary),
    status: plan.status,
    outcome: outcomeV1(plan.outcome),
    ...defined({ fieldOwners: planned.owners }),
  };
};

export const impactV1 = (impact: Impact): ImpactV1 => ({
  type: impact.type,
  message: impact.message,
  ...(impact.workloads === undefined || impact.workloads.length === 0
    ? {}
    : { workloads: impact.workloads.map(refV1) }),
  ...defined({ pods: impact.pods }),
});

/** Each action with its impacts (`impacts` parallel to the actions), `impact` left out where there is none. */
export const withImpacts = (
  actions: ReadonlyArray<ActionV1>,
  impacts: ReadonlyArray<ReadonlyArray<Impact>> | undefined,
): ReadonlyArray<ActionV1> =>
  impacts === undefined
    ? actions
    : actions.map((action, index) => {
        const each = impacts[index] ?? [];
        return each.length === 0 ? action : { ...action, impact: each.map(impactV1) };
      });

export const translatedV1 = (application: Application, manifest: ReadonlyArray<Resource>): TranslatedV1 => {
  const { spec } = application;
  const url = typeof spec.csar === 'string' ? spec.csar : typeof spec.tosca === 'string' ? spec.tosca : undefined;
  return {
    from: spec.csar === undefined ? 'spec.tosca' : 'spec.csar',
    ...defined({ url }),
    resources: manifest.map((resource) =>
      refV1({
        apiVersion: resource.apiVersion,
        kind: resource.kind,
        ...defined({ namespace: resource.metadata.namespace }),
        name: resource.metadata.name,
      }),
    ),
  };
};

const total = (plans: ReadonlyArray<Planned>): SummaryV1 =>
  summaryV1(plans.map(({ plan }) => plan.summary).reduce(addSummaries, EMPTY_SUMMARY));

export { addSummaries, EMPTY_SUMMARY } from '../../../core/internal.js';

/** The v1 document for a run of `kreconcile plan`. */
export const planDocument = (
  plans: ReadonlyArray<Planned>,
  meta: { readonly now: string; readonly cluster: ClusterBasis },
): PlanDocumentV1 => {
  const summary = total(plans);
  return {
    apiVersion: PLAN_API_VERSION,
    kind: 'Plan',
    metadata: { now: meta.now, cluster: meta.cluster },
    applications: plans.map(applicationPlanV1),
    summary: { ...summary, changes: hasChanges({ ...summary }) },
  };
};
