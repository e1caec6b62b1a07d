/**
 * `kreconcile`: the pure core as its users see it (docs/install.md: `plan`, observer schemas, the
 * model codecs, the ports). A name is here when docs/ describe it for users, or when a public
 * signature names it (docs/decisions/0031-public-api-on-purpose.md); api/kreconcile.api.md lists
 * them and `npm run lint` fails on one added or removed. The repository itself imports the core
 * through core/internal.ts.
 */

// The core API of docs/behaviour.md §8: one pure function per step of the loop.
export { validateObserverSchema } from './validation/observer-schemas.js';
export type { ObserverSchemaError } from './schema/errors.js';
export { generateDefaultObserverSchema } from './schema/default.js';
export { updateLastAppliedManifestFromSpec, updateLastAppliedManifestFromResponse } from './manifest/last-applied.js';
export { updateLastObservedManifestFromResponse } from './manifest/last-observed.js';
export { calculateResourceDelta, type ResourceDelta } from './delta/resource-delta.js';
export { plan, createPlanner, type Planner, type PlanInput, type PlanOptions } from './plan/plan.js';

// Planning from a library (docs/runtime.md): the memo a planner owns, and the fleet plan.
export type { Memo } from './memo/memo.js';
export { planFleet, type FleetInput, type FleetMember, type FleetPlan } from './fleet/plan-fleet.js';
export type { FleetFight, FleetGroup, FleetInstance, FleetReport, FleetTotal } from './fleet/fleet-report.js';
export type { ConflictWinner, FleetConflict } from './fleet/fleet-conflicts.js';
export type { Impact, ImpactType } from './impact/types.js';
export type { DenySelector, GuardPolicy, GuardRule, GuardedActionType } from './guard/policy.js';
export type { GuardVerdict, GuardedApplication, Violation } from './guard/evaluate.js';

// Mangling hooks (docs/hooks.md).
export { mangle, builtinHooks, type HookRegistry } from './hooks/mangle.js';
export type { HookContext, HookOwner, MangleContext, MangleHook, Mangled } from './hooks/types.js';

// The model and its codecs (docs/application.md, docs/plan-output.md).
export {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  APPLY_MODES,
  HOOKS,
  Application,
  ApplicationSpec,
  ApplicationStatus,
  Condition,
  type ApplyMode,
  type ConditionStatus,
  type ConditionType,
  type ContestedField,
  type DependsOnEntry,
  type DriftEntry,
  type DriftPolicy,
  type Hook,
  type ReadinessRuleSpec,
  type ReadinessWait,
} from './model/application.js';
export { decodeApplication, type Issue } from './model/decode.js';
export { Resource, type ObjectMeta, type ObjectRef, type OwnerReference } from './model/resource.js';
export { builtinScopes, type Scope, type ScopeTable } from './model/scope.js';
export type { ObserverSchema } from './model/observer-schema.js';
export type {
  Action,
  ActionType,
  ConflictAction,
  CreateAction,
  DeleteAction,
  FieldChange,
  FinalizerAction,
  ForbiddenAction,
  ForbiddenRule,
  JsonPatchOperation,
  Outcome,
  PatchAction,
  Plan,
  PlanSummary,
  RecreateAction,
  ServerSideApplyIntent,
  SkipAction,
  WaitAction,
} from './model/plan.js';
export type {
  AdoptionRule,
  ClusterKindRule,
  DestinationRule,
  ServiceAccountRule,
  TenancyPolicy,
} from './model/tenancy-policy.js';
export type { KnownManager } from './fields/known-managers.js';
export type { ApplicationsView, StoredApplication } from './plan/depends-on.js';
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from './json/json.js';

// The ports (docs/architecture.md): what a Cluster is, and its errors.
export type * from './ports/cluster.js';
export type { ClusterError, ClusterErrorTag, ErrorCause } from './ports/errors.js';
