/** The Plan value: what a reconcile would do, as plain data that can be printed, diffed and asserted. */
import type { JsonObject, JsonValue } from '../json/json.js';
import type { ApplicationStatus } from './application.js';
import type { ObjectRef, Resource } from './resource.js';

/** RFC 6902 operations the planner emits. */
export type JsonPatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'replace'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'test'; readonly path: string; readonly value: JsonValue };

/** A field-level explanation: `path: from → to` (absent values are `undefined`). */
export type FieldChange = {
  readonly path: string;
  readonly from?: JsonValue;
  readonly to?: JsonValue;
};

export type CreateAction = {
  readonly type: 'create';
  readonly ref: ObjectRef;
  readonly body: Resource;
  readonly changes: ReadonlyArray<FieldChange>;
};

export type PatchAction = {
  readonly type: 'patch';
  readonly ref: ObjectRef;
  /** The JSON Patch (sent in `JsonPatch` mode; in `ServerSideApply` mode it explains the change). */
  readonly patch: ReadonlyArray<JsonPatchOperation>;
  readonly changes: ReadonlyArray<FieldChange>;
  /** With `spec.applyMode: ServerSideApply`, unless `positionalLists` is set: what is sent instead of `patch`. */
  readonly serverSideApply?: ServerSideApplyIntent;
  /**
   * With `spec.applyMode: ServerSideApply` only, instead of `serverSideApply`: `patch` is sent, because
   * in these lists of named elements (readable paths) the live names are not at the positions the
   * observer schema addresses (renamed, moved or duplicated by another actor), and an apply merges by name.
   */
  readonly positionalLists?: ReadonlyArray<string>;
  /**
   * Set on the patch that orphans a child under `kreconcile.io/prune: disabled` instead of deleting
   * it (why it would have been deleted): `patch` removes only our owner marks (core/plan/protection.ts).
   */
  readonly orphan?: 'RemovedFromSpec' | 'ApplicationDeleted';
};

/**
 * A server-side apply of the observed fields only: identification, ownership marks and every
 * observed desired value (a fully specified intent for field manager `kreconcile`), nothing else.
 */
export type ServerSideApplyIntent = {
  readonly body: Resource;
  /** `spec.forceConflicts`: take fields over from other field managers. */
  readonly force: boolean;
  /**
   * The part of the patch server-side apply cannot express, sent first as a guarded JSON Patch:
   * removals (observed fields and list elements the desired state no longer has; an apply only
   * removes what its own manager applied before).
   */
  readonly beforeApply: ReadonlyArray<JsonPatchOperation>;
};

export type DeleteAction = {
  readonly type: 'delete';
  readonly ref: ObjectRef;
  readonly reason: 'RemovedFromSpec' | 'ApplicationDeleted';
  readonly changes: ReadonlyArray<FieldChange>;
};

/**
 * A change to fields the API server will not change once set, on a resource that opted into
 * recreation (`kreconcile.io/recreate: "true"`): delete it, wait until it is gone, create `body`.
 */
export type RecreateAction = {
  readonly type: 'recreate';
  readonly ref: ObjectRef;
  readonly body: Resource;
  /** The immutable fields that force it (dotted paths, e.g. `spec.selector`). */
  readonly fields: ReadonlyArray<string>;
  readonly changes: ReadonlyArray<FieldChange>;
};

/**
 * A creation or deletion held back by `kreconcile.io/depends-on`: until what it depends on is
 * ready (`DependenciesReady`), or until what depends on it is gone (`DependentsGone`). Writes nothing.
 */
export type WaitAction = {
  readonly type: 'wait';
  readonly ref: ObjectRef;
  readonly until: 'DependenciesReady' | 'DependentsGone';
  readonly for: ReadonlyArray<ObjectRef>;
  readonly changes: ReadonlyArray<FieldChange>;
};

/** A live object matches a desired resource but is not ours: never silently taken over. */
export type ConflictAction = {
  readonly type: 'conflict';
  readonly ref: ObjectRef;
  readonly reason: 'NotOwned' | 'OwnedByAnother';
  readonly owner?: string;
  readonly changes: ReadonlyArray<FieldChange>;
};

/** Which tenancy rule forbids a child (core/plan/tenancy.ts). */
export type ForbiddenRule = 'Destination' | 'ClusterScoped' | 'Adoption';

/**
 * A desired child the tenancy policy does not allow this Application to write: never written, and
 * while one exists nothing else of the Application is written either (see core/plan/tenancy.ts).
 */
export type ForbiddenAction = {
  readonly type: 'forbidden';
  readonly ref: ObjectRef;
  readonly rule: ForbiddenRule;
  readonly reason: string;
  readonly changes: ReadonlyArray<FieldChange>;
};

/**
 * A write the planner decided and a protection annotation withholds (core/plan/protection.ts):
 * `kreconcile.io/apply: IfNotPresent` (an existing object is never patched or recreated) or
 * `kreconcile.io/apply: Ignore` (never created, patched or recreated). Writes nothing; it is in the
 * plan so that what the plan does not do is shown, but no guard or count of writes counts it.
 */
export type SkipAction = {
  readonly type: 'skip';
  readonly ref: ObjectRef;
  /** The annotation's value that withholds the write. */
  readonly apply: 'IfNotPresent' | 'Ignore';
  /**
   * The write withheld; `conflict`: the object exists and is not this Application's, which would be
   * a conflict (a creation in the way) if the annotation did not leave it alone.
   */
  readonly withheld: 'create' | 'patch' | 'recreate' | 'conflict';
  /** The withheld patch's or recreation's field changes: the drift left in place (none for a creation). */
  readonly changes: ReadonlyArray<FieldChange>;
};

/** Finalizer bookkeeping on the Application itself. */
export type FinalizerAction = {
  readonly type: 'addFinalizer' | 'removeFinalizer';
  readonly ref: ObjectRef;
  readonly finalizer: string;
  readonly changes: ReadonlyArray<FieldChange>;
};

export type Action =
  | CreateAction
  | PatchAction
  | RecreateAction
  | DeleteAction
  | WaitAction
  | ConflictAction
  | ForbiddenAction
  | SkipAction
  | FinalizerAction;
export type ActionType = Action['type'];

/** What the runtime should do after executing the plan. */
export type Outcome =
  { readonly _tag: 'RequeueAfter'; readonly ms: number; readonly reason: string } | { readonly _tag: 'AwaitChange' };

export type PlanSummary = {
  readonly create: number;
  readonly patch: number;
  readonly delete: number;
  readonly conflict: number;
  /** Forbidden children (absent: none; optional so summaries built before tenancy stay valid). */
  readonly forbidden?: number;
  /** Present only when the plan recreates something. */
  readonly recreate?: number;
  /** Present only when creations or deletions wait on dependencies. */
  readonly wait?: number;
  /** Present only when protection annotations withhold writes (`skip` entries; not writes). */
  readonly skip?: number;
};

export type Plan = {
  readonly actions: ReadonlyArray<Action>;
  /** The status to write: the observation made while planning, conditions for the outcome. */
  readonly status: ApplicationStatus;
  readonly outcome: Outcome;
  readonly summary: PlanSummary;
};

/** The live object a plan was computed against, when one exists (for guards and explanations). */
export type LiveIndex = ReadonlyMap<string, Resource>;

export type { JsonObject };
