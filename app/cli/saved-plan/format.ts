/**
 * The saved plan (`kreconcile plan --out`), format `kreconcile.io/saved-plan/v1`: the actions of
 * a plan, each with the guard it was computed against (the live object's resourceVersion, or its
 * absence), so `kreconcile apply` can carry out exactly these actions or refuse when the cluster
 * moved; with what the plan knew of their effect when it was made (each action's rollout impact,
 * who else owns the fields it patches, the fields left to their controllers), since the live
 * objects it was computed from are not kept. Those were added within v1, optional: a plan saved
 * before them still reads (docs/plan-output.md, "Saved plans"). Decoded at the boundary with
 * io-ts: a saved plan is input like any other file.
 */
import * as t from 'io-ts';
import {
  Condition,
  type ContestedField,
  jsonObjectCodec,
  jsonValueCodec,
  Resource,
  type JsonObject,
  type JsonValue,
} from '../../../core/index.js';
import type { ActionV1, ApplicationPlanV1, ClusterBasis } from '../render/plan-document.js';

export const SAVED_PLAN_API_VERSION = 'kreconcile.io/saved-plan/v1';
export const SAVED_PLAN_KIND = 'SavedPlan';

/** What a write expects to find: no object (creations), or the object at this resourceVersion. */
export type GuardV1 = { readonly absent: true } | { readonly resourceVersion: string; readonly uid?: string };

/** A written action carries its guard; conflicts, waits and skips write nothing and have none. */
export type SavedActionV1 =
  | (Extract<ActionV1, { type: 'create' | 'patch' | 'recreate' | 'delete' }> & { readonly guard: GuardV1 })
  | Extract<ActionV1, { type: 'conflict' | 'forbidden' | 'wait' | 'skip' }>;

/** An Application's plan as `-o json` has it, with guarded actions, and conditions instead of the status. */
export type SavedApplicationV1 = Omit<ApplicationPlanV1, 'application' | 'actions' | 'status'> & {
  readonly application: ApplicationPlanV1['application'] & { readonly resourceVersion?: string };
  /** The conditions the plan concluded (no manifests: they may hold Secret values). */
  readonly conditions: ReadonlyArray<Condition>;
  readonly actions: ReadonlyArray<SavedActionV1>;
  /** The digest of the plan's writes (`sha256:…`): what `kreconcile.io/approve` names to let a guarded plan through. */
  readonly digest?: string;
  /** Observed fields the plan leaves to the controllers that own them (the status's `contestedFields`; added within v1). */
  readonly contestedFields?: ReadonlyArray<ContestedField>;
};

export type SavedPlanV1 = {
  readonly apiVersion: typeof SAVED_PLAN_API_VERSION;
  readonly kind: typeof SAVED_PLAN_KIND;
  readonly metadata: {
    readonly createdAt: string;
    readonly kreconcileVersion: string;
    readonly cluster: ClusterBasis;
    /** Whether the writes hold Secret values (`--allow-secret-values`). */
    readonly secretValues: boolean;
    /** The scopes of the kinds the actions touch, keyed `group/Kind`. */
    readonly scopes: Readonly<Record<string, 'Namespaced' | 'Cluster'>>;
    /** The guard file the plan was checked against (`plan --guard`), by digest of its text. */
    readonly guard?: { readonly file: string; readonly digest: string };
  };
  readonly applications: ReadonlyArray<SavedApplicationV1>;
};

// ---- codecs (the types above are the source of truth; the codecs check what `apply` relies on)

const jsonObject = jsonObjectCodec('an object');
// A saved plan is JSON text: whatever its parse gave is JSON, except a value that is missing.
const jsonValue = jsonValueCodec('a JSON value');

const ResourceRef = t.intersection([
  t.type({ apiVersion: t.string, kind: t.string, name: t.string }),
  t.partial({ namespace: t.string }),
]);

const Change = t.intersection([t.type({ path: t.string }), t.partial({ from: jsonValue, to: jsonValue })]);

const PatchOperation = t.union([
  t.type({ op: t.keyof({ add: null, replace: null, test: null }), path: t.string, value: jsonValue }),
  t.type({ op: t.literal('remove'), path: t.string }),
]);

const Guard = t.union([
  t.type({ absent: t.literal(true) }),
  t.intersection([t.type({ resourceVersion: t.string }), t.partial({ uid: t.string })]),
]);

const written = { resource: ResourceRef, changes: t.array(Change), guard: Guard };

// What an action does at run time, as `-o json` prints it (the type a string: a newer kreconcile may know more).
const Impact = t.intersection([
  t.type({ type: t.string, message: t.string }),
  t.partial({ workloads: t.array(ResourceRef), pods: t.number }),
]);

const FieldOwner = t.intersection([
  t.type({ manager: t.string, operation: t.string, extent: t.keyof({ field: null, part: null }) }),
  t.partial({ subresource: t.string, time: t.string }),
]);

const FieldOwners = t.type({ resource: ResourceRef, path: t.string, owners: t.array(FieldOwner) });

const ContestedFieldCodec = t.intersection([
  t.type({ resource: ResourceRef, path: t.string, manager: t.string, controller: t.string }),
  t.partial({ subresource: t.string, since: t.string }),
]);

const SavedActionOnly = t.union([
  t.type({ type: t.literal('create'), body: Resource, ...written }),
  t.intersection([
    t.type({ type: t.literal('patch'), patch: t.array(PatchOperation), ...written }),
    t.partial({ orphan: t.keyof({ RemovedFromSpec: null, ApplicationDeleted: null }) }),
  ]),
  t.type({ type: t.literal('recreate'), body: Resource, fields: t.array(t.string), ...written }),
  t.type({ type: t.literal('delete'), reason: t.string, ...written }),
  t.type({
    type: t.literal('wait'),
    resource: ResourceRef,
    until: t.keyof({ DependenciesReady: null, DependentsGone: null }),
    waitsFor: t.array(ResourceRef),
    changes: t.array(Change),
  }),
  t.intersection([
    t.type({ type: t.literal('conflict'), resource: ResourceRef, reason: t.string, changes: t.array(Change) }),
    t.partial({ owner: t.string }),
  ]),
  t.type({
    type: t.literal('forbidden'),
    resource: ResourceRef,
    rule: t.string,
    reason: t.string,
    changes: t.array(Change),
  }),
  t.type({
    type: t.literal('skip'),
    resource: ResourceRef,
    apply: t.keyof({ IfNotPresent: null, Ignore: null }),
    withheld: t.keyof({ create: null, patch: null, recreate: null, conflict: null }),
    changes: t.array(Change),
  }),
]);

const SavedAction = t.intersection([SavedActionOnly, t.partial({ impact: t.array(Impact) })]);

const Outcome = t.union([
  t.type({ type: t.literal('RequeueAfter'), afterMs: t.number, reason: t.string }),
  t.type({ type: t.literal('AwaitChange') }),
]);

const Summary = t.intersection([
  t.type({ create: t.number, patch: t.number, delete: t.number, conflict: t.number }),
  t.partial({ forbidden: t.number, recreate: t.number, wait: t.number, skip: t.number }),
]);

const SavedApplication = t.intersection([
  t.type({
    application: t.intersection([
      ResourceRef,
      t.partial({ uid: t.string, generation: t.number, resourceVersion: t.string }),
    ]),
    source: t.type({ file: t.string, document: t.number }),
    result: t.keyof({ NoChanges: null, Changes: null, Stalled: null }),
    message: t.string,
    conditions: t.array(Condition),
    outcome: Outcome,
    actions: t.array(SavedAction),
    summary: Summary,
  }),
  t.partial({
    stalled: t.type({ reason: t.string, message: t.string }),
    digest: t.string,
    fieldOwners: t.array(FieldOwners),
    contestedFields: t.array(ContestedFieldCodec),
  }),
]);

const Basis = t.union([
  t.type({ type: t.literal('Empty') }),
  t.type({ type: t.literal('Snapshot'), files: t.array(t.string) }),
  t.intersection([t.type({ type: t.literal('Live') }), t.partial({ kubeconfigPath: t.string, context: t.string })]),
]);

/** Codec of a saved plan file (after its `apiVersion` was checked, so errors name fields, not versions). */
const SavedPlanCodec = t.type({
  apiVersion: t.literal(SAVED_PLAN_API_VERSION),
  kind: t.literal(SAVED_PLAN_KIND),
  metadata: t.intersection([
    t.type({
      createdAt: t.string,
      kreconcileVersion: t.string,
      cluster: Basis,
      secretValues: t.boolean,
      scopes: t.record(t.string, t.keyof({ Namespaced: null, Cluster: null })),
    }),
    t.partial({ guard: t.type({ file: t.string, digest: t.string }) }),
  ]),
  applications: t.array(SavedApplication),
});

/** Decoder of a saved plan file: what `apply` and `show` read. */
export const SavedPlanV1: t.Decoder<unknown, SavedPlanV1> = SavedPlanCodec;
