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
import { Condition, type ContestedField, jsonValueCodec, Resource } from '../../../core/internal.js';
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
  /**
   * Observed fields the plan leaves to the controllers that own them (the status's `contestedFields`; added within v1).
   */
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

/**
 * Every string of a saved plan outside the objects' bodies is printed by `show` and `apply`; a
 * file edited to hold terminal control sequences (ESC, C1) would write to the reviewer's terminal.
 * kreconcile never writes one there (names, paths, messages and managers are printable).
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const text = new t.Type<string, string, unknown>(
  'text without control characters',
  (value): value is string => typeof value === 'string' && !CONTROL.test(value),
  (value, context) =>
    typeof value === 'string' && !CONTROL.test(value) ? t.success(value) : t.failure(value, context),
  t.identity,
);

// A saved plan is JSON text: whatever its parse gave is JSON, except a value that is missing.
const jsonValue = jsonValueCodec('a JSON value');

const ResourceRef = t.intersection([
  t.type({ apiVersion: text, kind: text, name: text }),
  t.partial({ namespace: text }),
]);

const Change = t.intersection([t.type({ path: text }), t.partial({ from: jsonValue, to: jsonValue })]);

const PatchOperation = t.union([
  t.type({ op: t.keyof({ add: null, replace: null, test: null }), path: text, value: jsonValue }),
  t.type({ op: t.literal('remove'), path: text }),
]);

const Guard = t.union([
  t.type({ absent: t.literal(true) }),
  t.intersection([t.type({ resourceVersion: text }), t.partial({ uid: text })]),
]);

const written = { resource: ResourceRef, changes: t.array(Change), guard: Guard };

// What an action does at run time, as `-o json` prints it (the type a string: a newer kreconcile may know more).
const Impact = t.intersection([
  t.type({ type: text, message: text }),
  t.partial({ workloads: t.array(ResourceRef), pods: t.number }),
]);

const FieldOwner = t.intersection([
  t.type({ manager: text, operation: text, extent: t.keyof({ field: null, part: null }) }),
  t.partial({ subresource: text, time: text }),
]);

const FieldOwners = t.type({ resource: ResourceRef, path: text, owners: t.array(FieldOwner) });

const ContestedFieldCodec = t.intersection([
  t.type({ resource: ResourceRef, path: text, manager: text, controller: text }),
  t.partial({ subresource: text, since: text }),
]);

const SavedActionOnly = t.union([
  t.type({ type: t.literal('create'), body: Resource, ...written }),
  t.intersection([
    t.type({ type: t.literal('patch'), patch: t.array(PatchOperation), ...written }),
    t.partial({ orphan: t.keyof({ RemovedFromSpec: null, ApplicationDeleted: null }) }),
  ]),
  t.type({ type: t.literal('recreate'), body: Resource, fields: t.array(text), ...written }),
  t.type({ type: t.literal('delete'), reason: text, ...written }),
  t.type({
    type: t.literal('wait'),
    resource: ResourceRef,
    until: t.keyof({ DependenciesReady: null, DependentsGone: null }),
    waitsFor: t.array(ResourceRef),
    changes: t.array(Change),
  }),
  t.intersection([
    t.type({ type: t.literal('conflict'), resource: ResourceRef, reason: text, changes: t.array(Change) }),
    t.partial({ owner: text }),
  ]),
  t.type({
    type: t.literal('forbidden'),
    resource: ResourceRef,
    rule: text,
    reason: text,
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
  t.type({ type: t.literal('RequeueAfter'), afterMs: t.number, reason: text }),
  t.type({ type: t.literal('AwaitChange') }),
]);

const Summary = t.intersection([
  t.type({ create: t.number, patch: t.number, delete: t.number, conflict: t.number }),
  t.partial({ forbidden: t.number, recreate: t.number, wait: t.number, skip: t.number }),
]);

const SavedApplication = t.intersection([
  t.type({
    application: t.intersection([ResourceRef, t.partial({ uid: text, generation: t.number, resourceVersion: text })]),
    source: t.type({ file: text, document: t.number }),
    result: t.keyof({ NoChanges: null, Changes: null, Stalled: null }),
    message: text,
    conditions: t.array(Condition),
    outcome: Outcome,
    actions: t.array(SavedAction),
    summary: Summary,
  }),
  t.partial({
    stalled: t.type({ reason: text, message: text }),
    digest: text,
    fieldOwners: t.array(FieldOwners),
    contestedFields: t.array(ContestedFieldCodec),
  }),
]);

const Basis = t.union([
  t.type({ type: t.literal('Empty') }),
  t.type({ type: t.literal('Snapshot'), files: t.array(text) }),
  t.intersection([t.type({ type: t.literal('Live') }), t.partial({ kubeconfigPath: text, context: text })]),
]);

/** Codec of a saved plan file (after its `apiVersion` was checked, so errors name fields, not versions). */
const SavedPlanCodec = t.type({
  apiVersion: t.literal(SAVED_PLAN_API_VERSION),
  kind: t.literal(SAVED_PLAN_KIND),
  metadata: t.intersection([
    t.type({
      createdAt: text,
      kreconcileVersion: text,
      cluster: Basis,
      secretValues: t.boolean,
      scopes: t.record(text, t.keyof({ Namespaced: null, Cluster: null })),
    }),
    t.partial({ guard: t.type({ file: text, digest: text }) }),
  ]),
  applications: t.array(SavedApplication),
});

/** Decoder of a saved plan file: what `apply` and `show` read. */
export const SavedPlanV1: t.Decoder<unknown, SavedPlanV1> = SavedPlanCodec;
