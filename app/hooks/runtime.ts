/** The hooks in a reconcile: which hook Secrets to read, the hook context to plan with, the shutdown wait. */
import {
  awaitingShutdownPlan,
  DEFAULT_SHUTDOWN_GRACE_MS,
  hookSecretRefs,
  identityOf,
  shutdownState,
  withCrdScopes,
  type Application,
  type HookContext,
  type Plan,
  type Resource,
  type ScopeTable,
} from '../../core/internal.js';
import { enabledHooks, ownerOfApp, type HookTokens } from './tokens.js';

/** What the runtime needs to serve hooks. */
export type HookRuntime = {
  /** Base URL workloads call back, e.g. `http://kreconcile.kreconcile-system.svc:8080`. */
  readonly callbackUrl: string;
  readonly tokens: HookTokens;
  /** How long children wait for the workload's shutdown callback (default 5 min). */
  readonly shutdownGraceMs?: number;
};

/**
 * The hook Secrets of an Application with hooks, as references to read with the live objects
 * (they are not in `spec.manifest`, and the planner must see them to patch rather than create).
 */
export const hookSecretsToRead = (
  application: Application,
  manifest: ReadonlyArray<Resource>,
  scopes: ScopeTable,
): ReadonlyArray<Resource> => {
  if (enabledHooks(application).length === 0) return NO_SECRETS;
  const owner = ownerOfApp(application);
  const known = withCrdScopes(scopes, manifest);
  const namespaces = [
    ...new Set(manifest.flatMap((resource) => identityOf(resource, known, owner.namespace).namespace ?? [])),
  ];
  return hookSecretRefs(namespaces, owner).map((ref): Resource => ({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: ref.namespace === undefined ? { name: ref.name } : { name: ref.name, namespace: ref.namespace },
  }));
};

/** What an Application without hooks reads: nothing (one constant, not an array per reconcile). */
const NO_SECRETS: ReadonlyArray<Resource> = Object.freeze([]);

/** The context to plan with, or undefined for an Application without hooks. */
export const hookContextOf = (
  application: Application,
  live: ReadonlyArray<Resource>,
  runtime: HookRuntime | undefined,
): HookContext | undefined =>
  runtime === undefined || enabledHooks(application).length === 0
    ? undefined
    : runtime.tokens.contextFor(application, live, runtime.callbackUrl);

/**
 * While an Application with `shutdown` is deleted and its workload has not called back (within the grace period): the
 * waiting plan.
 */
export const shutdownWait = (
  application: Application,
  runtime: HookRuntime | undefined,
  nowMs: number,
): Plan | undefined => {
  if (runtime === undefined) return undefined;
  const state = shutdownState({ application, nowMs, graceMs: runtime.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS });
  return state._tag === 'Wait' ? awaitingShutdownPlan(application, state, new Date(nowMs).toISOString()) : undefined;
};
