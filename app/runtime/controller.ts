/**
 * The Application controller, the composition root of the runtime's parts: the primary store
 * (primary-store.ts, with its dependants), the known scopes, the child watches (child-watches.ts),
 * the kinds waited for and, with shards, the owned keys, all emitting keys into one stream; the
 * applier (applier.ts) reads it and runs the reconcile step (reconcile-step.ts) per key, one at a
 * time, its reports judged by `afterReconcile` (bookkeeping.ts). The same parts run an embedder's own
 * primary kind when given a `Primary` (primary.ts); "Application" below then means an object of that kind.
 */
import {
  ANY,
  builtinScopes,
  scopeKey,
  scopeOf,
  showClusterError,
  tenancyFor,
  type Application,
  type Clock,
  type Cluster,
  type ClusterError,
  type GuardPolicy,
  type PlanOptions,
  type Resource,
  type ScopeTable,
  createMemo,
  managerNames,
  type Memo,
} from '../../core/internal.js';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { kindsOf } from '../reconcile/live-reader.js';
import type { ReconcileDeps, ReconcileResult } from '../reconcile/reconcile-application.js';
import { createToscaTranslator, type Translator } from '../tosca/translator.js';
import { IsolatedRules, type RuleIsolationOptions } from '../isolation/isolated-rules.js';
import {
  applier,
  CacheSyncTimeout,
  Triggers,
  type Applier,
  type ApplierContext,
  type ApplierStores,
} from './applier.js';
import { afterReconcile, defaultBookkeepingPolicy, type BookkeepingPolicy } from './bookkeeping.js';
import { ChildWatches, childWatchStarter } from './child-watches.js';
import { KnownScopes, UnservedKinds, type Kind } from './known-scopes.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import type { Metrics } from './metrics.js';
import { applicationPrimary, type Primary } from './primary.js';
import { PrimaryStore, applicationKey, ownerKeyOf } from './primary-store.js';
import { ReconcileStep, type ReconcileStepOptions, type StepAccess, type StepPolicy } from './reconcile-step.js';
import { OwnedKeys } from './sharding/owned-keys.js';
import type { ShardOwnership } from './sharding/ownership.js';
import { WorkQueue } from './work-queue.js';
import { WriteLicence, fenced } from './write-fence.js';
import { defined } from '../../core/json/defined.js';

export type ControllerOptions = {
  readonly cluster: Cluster;
  readonly clock: Clock;
  /** [0, 1): jitter and event names. */
  readonly random: () => number;
  readonly scopes?: ScopeTable;
  /** Concurrent reconciles of different Applications (default 2). */
  readonly workers?: number;
  /** Every Application is reconciled at least this often (default 10 min; 0 = never). */
  readonly resyncMs?: number;
  /**
   * Every informer (Applications, children) lists in full this often (default 6 × `resyncMs`;
   * 0 = never, as client-go): a watch can lose events a proxy drops without closing the stream,
   * and the relist turns them into events again. A resync works from the cache and does not relist.
   */
  readonly relistMs?: number;
  /** Watch only this namespace's Applications (default: all). */
  readonly namespace?: string;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** Record Kubernetes Events for actions and failures (default true). */
  readonly events?: boolean;
  /** Where Events are written (default `cluster`); on a real server `KubernetesCluster.lowPriority`. */
  readonly eventCluster?: Cluster;
  /**
   * The policies a key's histories are judged by: `hotLoop` (patches someone keeps undoing), `perpetualDiff` (how
   * many writes the API server does not keep before the object is no longer written,
   * docs/decisions/0022-perpetual-diff.md). Each defaults on its own.
   */
  readonly bookkeeping?: Partial<BookkeepingPolicy>;
  /**
   * Passed to every plan: among others `readiness` (how children count as ready: default kstatus, `existence` where no
   * workload controllers run), `tenancy` (the admin's policy of where Applications may write: default their own
   * namespace only; a namespaced Controller watches children where it allows), requeue delays.
   */
  readonly planOptions?: PlanOptions;
  /** The guard policy (`--guard`): plans it denies write nothing, their Application is `Stalled GuardDenied`. */
  readonly guard?: GuardPolicy;
  /**
   * Why no `kreconcile.io/approve` is accepted (the approvals admission policy is missing): GuardDenied conditions say
   * it.
   */
  readonly approvalsRefused?: string;
  /** Observes every finished reconcile (CLI progress, tests). */
  readonly onReconciled?: (key: string, result: ReconcileResult) => void;
  /** TOSCA/CSAR translation (default: a translator with default limits, `file:` URLs refused). */
  readonly translate?: Translator;
  /** The hooks' runtime side (callback URL, tokens, grace period); without it hooks plan without tokens. */
  readonly hooks?: HookRuntime;
  /** Whose rights each Application's children are read and written with (impersonation); default the operator's. */
  readonly childClusterFor?: ReconcileDeps['childClusterFor'];
  /**
   * Watch child kinds cluster-wide with the operator's identity (default true). False when the
   * operator may not list children cluster-wide (impersonation only, or namespace-bound RBAC):
   * live reads go straight to the API server per namespace, drift is corrected at each resync.
   */
  readonly watchChildren?: boolean;
  /** How long `start` waits for the Applications' first list (default 2 min). */
  readonly cacheSyncTimeoutMs?: number;
  /**
   * How long a reconcile waits at most for the first list of a child kind it reads (default 10 s),
   * from the kind's watch start; a kind whose first list fails is read directly at once.
   */
  readonly childCacheWaitMs?: number;
  /** Sharding: only Applications this replica owns are reconciled, and only while it owns them (default: all). */
  readonly shard?: ShardOwnership;
  /** The kind reconciled: an embedder's primary kind (see primary.ts; default `APPLICATION_PRIMARY`). */
  readonly primary?: Primary;
  /**
   * How long a brand-new Application's first status is held while it only waits for its children to
   * become ready, counted from their creation (default `DEFAULT_PROGRESS_STATUS_AFTER_MS`; 0 = written
   * at once): a rollout ready within it costs one status write, not two (docs/behaviour.md §5).
   */
  readonly progressStatusAfterMs?: number;
  /**
   * How `spec.readiness` rules are evaluated: in a bounded pool of worker threads, each evaluation
   * within a time and a memory bound (default; docs/decisions/0025-isolated-tenant-expressions.md),
   * or `false`: in the plan, on the main loop (an embedder's own `planOptions.expressions` is always
   * used as given, never isolated).
   */
  readonly ruleIsolation?: RuleIsolationOptions | false;
};

/**
 * 5 s: a Deployment's controller reports a rollout in well under a second on an idle control plane,
 * and kube-controller-manager may lag a few seconds behind a burst of creates; it is also the plan's
 * requeue for readiness, so a held Application is looked at again no later than it would be anyway.
 */
export const DEFAULT_PROGRESS_STATUS_AFTER_MS = 5_000;

/** How often discovery is asked for kinds Applications wait for (CRDs not served). */
const UNSERVED_POLL_MS = 1_000;

export { CacheSyncTimeout };

/** The queue key of an Application (`namespace/name`); part of the runtime's public API. */
export { applicationKey };

const ABANDONED = 'this reconcile was abandoned when its Controller stopped';

/**
 * The Application controller: a thin builder of the runtime's parts over one applier (applier.ts).
 * Every part emits the keys it finds into one stream (`Triggers`), built first, so no part names
 * one built after it; the applier reads the stream, runs the reconcile step and keeps the keys' books.
 */
export class Controller {
  private readonly applier: Applier;
  private readonly work: WorkQueue;
  private readonly children: ChildWatches;

  constructor(options: ControllerOptions) {
    const shared = sharedPartsOf(options);
    const stores = storesOf(options, shared);
    const step = new ReconcileStep(stepOptionsOf(options, shared, stores));
    const { bookkeeping: policy } = shared;
    this.work = shared.work;
    this.children = stores.children;
    this.applier = applier(
      (key, attempt, book) => step.run(key, attempt, book),
      (state, report) => afterReconcile(state, report, policy),
      applierContextOf(options, shared, stores),
      stores,
      { work: shared.work, triggers: shared.triggers },
    );
  }

  /**
   * Starts watching and reconciling; resolves once the Applications are listed.
   * A Controller runs once: `start` after `stop` throws (build a new Controller for a new term).
   * Errors: rejects with a `CacheSyncTimeout` error when the first list does not succeed within
   * `cacheSyncTimeoutMs` (controller-runtime's CacheSyncTimeout), everything started stopped again.
   */
  start(): Promise<void> {
    return this.applier.start();
  }

  /**
   * Stops taking work, lets in-flight reconciles finish (up to `deadlineMs`; after that they are
   * abandoned: their writes are refused, never sent — a stopped Controller and its successor must
   * not write concurrently), stops the watches. Resolves true when everything in flight finished
   * in time. Idempotent; leaves no timer behind.
   */
  stop(deadlineMs = 30_000): Promise<boolean> {
    return this.applier.stop(deadlineMs);
  }

  get running(): boolean {
    return this.applier.running;
  }

  /** Whether `start` was ever called (a started Controller never starts again). */
  get started(): boolean {
    return this.applier.started;
  }

  /** Queues an Application for reconcile (e.g. from an HTTP callback). */
  enqueue(key: string): void {
    this.work.add(key);
  }

  get queueDepth(): number {
    return this.work.depth;
  }

  /** Child kinds watched now (`apiVersion/kind`). */
  get watchedKinds(): ReadonlyArray<string> {
    return this.children.kinds;
  }

  /**
   * True when nothing is queued, running, waiting for a cache or scheduled soon (tests use it to run "until quiet").
   */
  get idle(): boolean {
    return this.applier.idle;
  }

  /**
   * Reconciles finished, total and per key (tests and benchmarks read these); a deleted primary's count goes with it.
   */
  get reconcileCount(): number {
    return this.applier.reconcileCount;
  }
  get reconcilesByKey(): ReadonlyMap<string, number> {
    return this.applier.reconcilesByKey;
  }

  /** Keys being reconciled right now; never holds a key twice. */
  get inFlight(): ReadonlySet<string> {
    return this.applier.inFlight;
  }

  /** Times a key was handed to a worker while already in flight (the queue's guarantee; must stay 0). */
  get concurrentReconciles(): number {
    return this.applier.concurrentReconciles;
  }
}

/** What every part is built with: the clock, the log, the memo, the queue and the one stream of keys. */
type SharedParts = {
  readonly logger: Logger;
  readonly reportApiError: (error: ClusterError, where: string) => void;
  /** What this controller's reconciles remember about the objects they saw (decoded, planned): dropped with it. */
  readonly memo: Memo;
  readonly work: WorkQueue;
  readonly triggers: Triggers;
  /**
   * What this controller's reconciles write under: the applier revokes it when it abandons them at its stop deadline.
   */
  readonly licence: WriteLicence;
  /** The worker threads `spec.readiness` rules run in (none started until a rule is evaluated). */
  readonly isolatedRules: IsolatedRules | undefined;
  /** The policies the keys' histories are judged by, each default filled in. */
  readonly bookkeeping: BookkeepingPolicy;
};

const sharedPartsOf = (options: ControllerOptions): SharedParts => {
  const logger = options.logger ?? silentLogger;
  const { metrics } = options;
  return {
    logger,
    reportApiError: apiErrorReporter(logger, metrics),
    memo: createMemo(),
    work: new WorkQueue(options.clock, {
      random: options.random,
      onHandOut: (waited) => metrics?.queueLatency.observe(waited / 1000),
    }),
    triggers: new Triggers(),
    licence: new WriteLicence(),
    isolatedRules:
      options.ruleIsolation === false || options.planOptions?.expressions !== undefined
        ? undefined
        : new IsolatedRules(options.ruleIsolation ?? {}),
    bookkeeping: { ...defaultBookkeepingPolicy, ...options.bookkeeping },
  };
};

type Stores = ApplierStores & { readonly watchChildrenOf: ((application: Application) => void) | undefined };

/**
 * The observation parts, each built before the parts that read it, each emitting its keys into the
 * one stream: the primary store (with its dependants), the scope table, the child watches, the
 * kinds waited for, the owned keys.
 */
const storesOf = (options: ControllerOptions, shared: SharedParts): Stores => {
  const { triggers, logger, memo } = shared;
  const resyncMs = options.resyncMs ?? 10 * 60_000;
  const relistMs = options.relistMs ?? 6 * resyncMs;
  const primary = new PrimaryStore(options.cluster, {
    primary: options.primary ?? applicationPrimary(memo),
    clock: options.clock,
    resyncMs,
    relistMs,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    onChange: triggers.emit,
    onResync: triggers.queue,
    onDependant: triggers.queue,
    onError: shared.reportApiError,
  });
  const scopes = new KnownScopes(options.scopes ?? builtinScopes, memo, (kind) => {
    logger.info({ kind: `${kind.apiVersion}/${kind.kind}` }, 'kind not served any more');
    for (const key of keysNaming(primary, kind, memo)) triggers.queue(key);
  });
  const children = childWatchesOf(options, shared, { primary, scopes, relistMs });
  const unserved = new UnservedKinds({
    discovery: options.cluster,
    clock: options.clock,
    everyMs: UNSERVED_POLL_MS,
    onServed: (kind, keys) => {
      logger.info({ kind: `${kind.apiVersion}/${kind.kind}`, applications: keys.length }, 'kind served again');
      children.served(kind);
      for (const key of keys) triggers.queue(key);
    },
  });
  const owned = new OwnedKeys(options.shard, { keys: () => primary.keys(), enqueue: triggers.queue });
  const watchChildrenOf = options.watchChildren === false ? undefined : childWatchStarter(children, scopes, memo);
  return { primary, scopes, children, unserved, owned, watchChildrenOf };
};

/**
 * A kind turned unknown (found by a child watch or by a reconcile's UnknownKind): the Applications
 * naming it are planned again now, so they say UnknownKind at once rather than at their next retry,
 * which may be a backoff of seconds (a create refused while the CRD was Terminating); their
 * children may have been gone for a while: the cache had nothing to report.
 */
const keysNaming = (primary: PrimaryStore, kind: Kind, memo: Memo): ReadonlyArray<string> =>
  [...primary.applications()]
    .filter((application) =>
      kindsOf(application, memo).some((named) => named.apiVersion === kind.apiVersion && named.kind === kind.kind),
    )
    .map((application) => applicationKey(application.metadata));

const childWatchesOf = (
  options: ControllerOptions,
  shared: SharedParts,
  parts: { readonly primary: PrimaryStore; readonly scopes: KnownScopes; readonly relistMs: number },
): ChildWatches => {
  const { primary, scopes } = parts;
  const ownerKey = ownerKeyOf(primary.primary);
  return new ChildWatches({
    cluster: options.cluster,
    clock: options.clock,
    relistEveryMs: parts.relistMs,
    logger: shared.logger,
    onOwnedChange: (mark) => {
      const key = ownerKey(mark);
      if (key !== undefined) shared.triggers.queue(key);
    },
    onError: shared.reportApiError,
    // A child watch found its kind not served any more (its CRD was deleted): the kind is forgotten.
    onUnserved: (kind) => scopes.forget(kind),
    wantedKinds: () => [...primary.applications()].flatMap((application) => kindsOf(application, shared.memo)),
    scopeOf: (kind) => scopeOf(scopes.current, kind),
    ...defined({ readableWithinMs: options.childCacheWaitMs }),
    // The planner leaves the fields of these managers to them: the caches keep their claims
    // (core/plan/field-fights.ts).
    ...(options.planOptions?.fieldManagers === undefined
      ? {}
      : { keepManagers: managerNames(options.planOptions.fieldManagers) }),
    ...childNamespacesOf(options),
  });
};

/** The reconcile step's parts: how it reaches the cluster, what it observes, the policies, where it tells. */
const stepOptionsOf = (options: ControllerOptions, shared: SharedParts, stores: Stores): ReconcileStepOptions => ({
  access: stepAccessOf(options, shared, stores.owned),
  observed: {
    store: stores.primary,
    children: stores.children,
    scopes: stores.scopes,
    ...(stores.watchChildrenOf === undefined
      ? {}
      : {
          watchChildrenOf: stores.watchChildrenOf,
          childCachesReadable: (application: Application) =>
            stores.children.readable(() => kindsOf(application, shared.memo)),
          ...(childNamespacesOf(options).namespaces === undefined ? {} : { childrenPerNamespace: true }),
        }),
  },
  policy: stepPolicyOf(options, shared, stores.primary),
  recorder: {
    logger: shared.logger,
    ...defined({ metrics: options.metrics }),
    events: options.events !== false,
    reportApiError: shared.reportApiError,
    ...defined({ onReconciled: options.onReconciled }),
  },
  clock: options.clock,
  random: options.random,
  memo: shared.memo,
});

/** Every write behind the abandon fence (the licence) and, with shards, the ownership fence. */
const stepAccessOf = (options: ControllerOptions, shared: SharedParts, owned: OwnedKeys): StepAccess => {
  const mayWrite = () => shared.licence.valid;
  // The operator's own client behind the abandon fence, built once (it reads the licence at each write), not per
  // reconcile.
  const operatorWrites = fenced(options.cluster, mayWrite, ABANDONED);
  return {
    cluster: options.cluster,
    ...defined({ eventCluster: options.eventCluster }),
    writesFor: (cluster, key) =>
      owned.fence(cluster === options.cluster ? operatorWrites : fenced(cluster, mayWrite, ABANDONED), key),
    owns: (key) => owned.owns(key),
    ...defined({ childClusterFor: options.childClusterFor }),
  };
};

const stepPolicyOf = (options: ControllerOptions, shared: SharedParts, primary: PrimaryStore): StepPolicy => ({
  planOptions: { ...planOptionsOf(options), applications: primary.dependants.view },
  ...defined({ guard: options.guard, approvalsRefused: options.approvalsRefused }),
  bookkeeping: shared.bookkeeping,
  translate: options.translate ?? createToscaTranslator({ now: () => options.clock.now() }),
  ...defined({ hooks: options.hooks }),
  progressStatusAfterMs: options.progressStatusAfterMs ?? DEFAULT_PROGRESS_STATUS_AFTER_MS,
  ...defined({ isolatedRules: shared.isolatedRules }),
});

const applierContextOf = (options: ControllerOptions, shared: SharedParts, stores: Stores): ApplierContext => {
  const { hooks } = options;
  const { isolatedRules } = shared;
  return {
    clock: options.clock,
    logger: shared.logger,
    ...defined({ metrics: options.metrics }),
    workers: options.workers ?? 2,
    licence: shared.licence,
    cacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 120_000,
    ...defined({ watchChildrenOf: stores.watchChildrenOf }),
    ...(hooks === undefined
      ? {}
      : {
          onDeleted: (object: Resource) =>
            hooks.tokens.forget(object.metadata.namespace ?? 'default', object.metadata.name),
        }),
    ...(isolatedRules === undefined ? {} : { onStopped: () => isolatedRules.close() }),
  };
};

/** Every part reports API errors the same way: counted by code and reason, logged with where they happened. */
const apiErrorReporter =
  (logger: Logger, metrics: Metrics | undefined) =>
  (error: ClusterError, where: string): void => {
    metrics?.apiErrors.inc({ code: String(error.code), reason: error._tag });
    logger.warn({ where, error: showClusterError(error) }, 'API error');
  };

/**
 * Where a namespaced operator watches namespaced child kinds: the namespaces its Applications may
 * write in under the tenancy policy (their own, and the policy's destinations from it), so it
 * caches no other installation's children and needs list/watch rights only there. Children
 * elsewhere are never written nor pruned for these Applications (docs/behaviour.md §1, Tenancy), so
 * nothing they own is missed. A destination `*` (or no namespace) watches every namespace at once.
 */
const childNamespacesOf = (options: ControllerOptions): { readonly namespaces?: ReadonlyArray<string> } => {
  if (options.namespace === undefined || options.namespace === '') return {};
  const destinations = tenancyFor(options.planOptions?.tenancy, options.namespace).destinations;
  return destinations.has(ANY) ? {} : { namespaces: [...destinations] };
};

/** Every plan's options: `spec.readiness` rules are evaluated in CEL unless the embedder passes its own evaluator. */
const planOptionsOf = (options: ControllerOptions): PlanOptions => ({
  expressions: celEvaluator,
  ...options.planOptions,
});

export { scopeKey };
