/**
 * Core's internal import point: everything the rest of the repository (app/, adapters/, tools/,
 * bench/, test/) uses from the core through one path. Not a package entry: users import
 * `kreconcile` (core/index.ts), which re-exports only what docs/ describe for them
 * (docs/decisions/0031-public-api-on-purpose.md). `tools/api/internal-imports.ts` keeps the
 * repository's imports pointed here.
 */
export { validateObserverSchema } from './validation/observer-schemas.js';
export { generateDefaultObserverSchema } from './schema/default.js';
export { updateLastAppliedManifestFromSpec, updateLastAppliedManifestFromResponse } from './manifest/last-applied.js';
export { updateLastObservedManifestFromResponse, removeFromLastObservedManifest } from './manifest/last-observed.js';
export { calculateResourceDelta, type ResourceDelta } from './delta/resource-delta.js';
export { driftOf, type Drift } from './delta/drift.js';
export { plan, createPlanner, type Planner, type PlanInput, type PlanOptions } from './plan/plan.js';
export { createMemo, keep, memoTable, recall, remember, type Memo, type MemoTable } from './memo/memo.js';
export type * from './model/plan.js';
export { installRank } from './plan/order.js';
export { adviceFor, patchedFieldOwners, type PatchedFieldOwners } from './plan/field-fights.js';
export {
  DEFAULT_KNOWN_MANAGERS,
  knownManagersCodec,
  managerNames,
  type KnownManager,
} from './fields/known-managers.js';
export { managerOf, type FieldOwner } from './fields/owners.js';
export {
  isOwnedBy,
  markPrefixOf,
  ownerFor,
  ownerOf,
  ownerMark,
  primaryMarkPrefix,
  type Owner,
  type PrimaryKind,
} from './manifest/ownership.js';
export {
  DEFAULT_TENANCY,
  forbiddenChildren,
  mayAdopt,
  mayWrite,
  serviceAccountViolation,
  targetViolation,
  tenancyFor,
  type Tenancy,
} from './plan/tenancy.js';
export {
  ANY,
  TenancyPolicyDocument,
  policyOf,
  type AdoptionRule,
  type ClusterKindRule,
  type DestinationRule,
  type ServiceAccountRule,
  type TenancyPolicy,
} from './model/tenancy-policy.js';
export { RECREATE_ANNOTATION, immutableFieldsTouched } from './plan/recreate.js';
export {
  APPLY_ANNOTATION,
  PRUNE_ANNOTATION,
  applyPolicyOf,
  pruneDisabled,
  type ApplyPolicy,
} from './plan/protection.js';
export { DEPENDS_ON_ANNOTATION, dependencyIssues } from './plan/dependencies.js';
export {
  applicationsViewOf,
  dependenciesOf,
  dependencyStateOf,
  dependsOnDecision,
  dependsOnPlan,
  isReadyDependency,
  keyText as applicationKeyText,
  notReady as dependencyNotReady,
  MAX_DEPENDENCY_WALK,
  type ApplicationKey,
  type ApplicationsView,
  type DependencyState,
  type DependsOnDecision,
  type StoredApplication,
} from './plan/depends-on.js';
export { withNamespaces } from './plan/spec-check.js';
export { conditionsFor, conditionOf, type Verdict, type StalledReason } from './status/conditions.js';
export {
  childCreationTimes,
  firstStatusDecision,
  WRITE_STATUS,
  type FirstStatusDecision,
} from './status/first-status.js';
export { showSpecError, type ObserverSchemaError, type SpecError } from './schema/errors.js';
export { observeResource, projectObserved, projectKnown } from './manifest/project.js';
export { identityOf, withNamespace, sameResource } from './manifest/identity.js';
export * from './model/resource.js';
export * from './model/scope.js';
export * from './model/application.js';
export * from './model/observer-schema.js';
export { decodeApplication, decodeWith, issuesOf, showIssue, type Issue } from './model/decode.js';
export { unknownFieldIssues } from './model/unknown-fields.js';
export { openApiIssues, openApiPathOf, type OpenApiDocument } from './schema/openapi.js';
export {
  catalogIssues,
  catalogOfCompact,
  catalogOfCrds,
  catalogOfDocuments,
  CompactSchemasCodec,
  EMPTY_CATALOG,
  mergeCatalogs,
  objectSchemaIssues,
  patchValueIssues,
  serverRefusalIssues,
  unknownFieldPaths,
  type CompactSchemas,
  type KindSchema,
  type SchemaCatalog,
} from './schema/catalog.js';
export * from './json/json.js';
export * from './json/path.js';
export * from './json/bounds.js';
export * from './json/codecs.js';
export type * from './ports/cluster.js';
export * from './ports/errors.js';
export {
  errorPolicy,
  backoffDelay,
  defaultBackoff,
  immutableFieldsOf,
  conflictingManagers,
  temporaryRefusalOf,
  missingRightOf,
  type ErrorDecision,
  type TemporaryRefusal,
  type Backoff,
} from './status/error-policy.js';
export {
  contestedPaths,
  recordPatches,
  guardHotLoop,
  liveVersionsOf,
  defaultHotLoopPolicy,
  type PatchRecord,
  type HotLoopPolicy,
  type LiveVersions,
} from './status/hot-loop.js';
export {
  droppedPaths,
  droppedPointers,
  guardPerpetualDiff,
  pathOfPointer,
  perpetualDiffMessage,
  perpetualDiffs,
  recordWrites,
  defaultPerpetualDiffPolicy,
  type PerpetualDiff,
  type PerpetualDiffPolicy,
  type WriteRecord,
} from './status/perpetual-diff.js';
// Hooks (docs/behaviour.md §4.4 and §6) and TOSCA translation (docs/behaviour.md §7).
export { mangle, builtinHooks, type HookRegistry } from './hooks/mangle.js';
export { callbackHook } from './hooks/callback-hook.js';
export { redactPlan, redactStatus, redactForDisplay, displayRedactor, REDACTED } from './hooks/redact.js';
export {
  SENSITIVE,
  digestOfData,
  digestOfString,
  foldStringData,
  isDigest,
  withDigests,
} from './sensitive/secret-values.js';
export { redactClusterError, redactEcho, redactEchoedObjects, secretTexts } from './sensitive/echo.js';
export type { HookContext, HookOwner, MangleContext, MangleHook, Mangled } from './hooks/types.js';
export {
  callbackPath,
  callbackUrlOf,
  desiredNamespaces,
  hookEnvNames,
  hookSecretKeys,
  hookSecretName,
  hookSecretRefs,
  isHookSecret,
  withoutHookTokens,
} from './hooks/secret.js';
export { hookEnvEntries } from './hooks/env.js';
export { podSpecPathOf, WORKLOAD_KINDS } from './hooks/workloads.js';
export { base64Of } from './json/base64.js';
export {
  awaitingShutdownPlan,
  isAcknowledged,
  shutdownState,
  DEFAULT_SHUTDOWN_GRACE_MS,
  SHUTDOWN_ACKNOWLEDGED_ANNOTATION,
  type ShutdownState,
} from './hooks/shutdown.js';
export { translateTemplate } from './tosca/translate.js';
export { BOUND_EXCEEDED, DEFAULT_TOSCA_BOUNDS, type ToscaBounds } from './tosca/functions.js';
export {
  KUBERNETES_OBJECT_TYPE,
  SUPPORTED_FUNCTIONS,
  UNSUPPORTED_FUNCTIONS,
  type ParseDocument,
  type ToscaIssue,
} from './tosca/types.js';
export { readinessOf, type Readiness } from './status/readiness.js';
export { fnv1a32, shardOf } from './sharding/shard-of.js';
export {
  decideShards,
  fairShare,
  isFree,
  isLiveMember,
  liveMembers,
  stillValid,
  type LeaseDecision,
  type LeaseObservation,
  type ShardDecision,
  type ShardView,
} from './sharding/shard-assignment.js';
// Guard policies over plans (shared by `kreconcile plan/apply --guard` and the operator's `--guard`).
export {
  GuardPolicyDocument,
  guardPolicyOf,
  parseFieldPath,
  type DenySelector,
  type GuardPolicy,
  type GuardRule,
  type GuardedActionType,
} from './guard/policy.js';
export {
  APPROVE_ANNOTATION,
  denialMessage,
  evaluateGuard,
  evaluateOne,
  isDenied,
  planDigest,
  policyDigest,
  judgedDigest,
  type DigestScope,
  type GuardSubject,
  type GuardVerdict,
  type GuardedApplication,
  type Violation,
} from './guard/evaluate.js';
export { guardPlan, guardedApplicationOf } from './guard/guard-plan.js';
export { guardPolicyIssues } from './guard/check-policy.js';

// Rollout impact: what each action of a plan does at run time (docs/plan-output.md, "Rollout impact").
export { rolloutImpacts, type ImpactInput } from './impact/rollout-impact.js';
export type { Impact, ImpactType } from './impact/types.js';

// Fleet plan: every Application of a snapshot or cache planned together, and the report over them.
export {
  desiredRefs,
  indexLive,
  liveObjectsFor,
  liveObjectsIn,
  type LiveIndex as LiveObjectIndex,
} from './fleet/live-index.js';
export {
  addSummaries,
  changeSignature,
  EMPTY_SUMMARY,
  fleetReport,
  type FleetGroup,
  type FleetInstance,
  type FleetReport,
  type FleetFight,
  type FleetTotal,
} from './fleet/fleet-report.js';
export {
  fleetConflicts,
  objectKey,
  type ConflictWinner,
  type Contender,
  type FleetConflict,
} from './fleet/fleet-conflicts.js';
export { planFleet, type FleetInput, type FleetMember, type FleetPlan } from './fleet/plan-fleet.js';
