/**
 * The Application controller, the composition root of the runtime's parts: the primary store
 * (primary-store.ts), the child watches (child-watches.ts), the work queue, the reconcile loop
 * (reconcile-loop.ts) running one reconcile step (reconcile-step.ts) per key at a time, the known
 * scopes and, with shards, the owned keys. The same loop runs an embedder's own primary kind when
 * given a `Primary` (primary.ts); "Application" below then means an object of that kind.
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
  type HotLoopPolicy,
  type PerpetualDiffPolicy,
  type PlanOptions,
  type ScopeTable,
  type TenancyPolicy,
  createMemo,
  managerNames,
  type Memo,
} from '../../core/index.js';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { kindsOf } from '../reconcile/live-reader.js';
import type { ReconcileDeps, ReconcileResult } from '../reconcile/reconcile-application.js';
import { createToscaTranslator, type Translator } from '../tosca/translator.js';
import { IsolatedRules, type RuleIsolationOptions } from '../isolation/isolated-rules.js';
import { ChildWatches } from './child-watches.js';
import { Dependants } from './dependants.js';
import { HotLoopHistory } from './hot-loop-history.js';
import { PerpetualDiffHistory } from './perpetual-diff-history.js';
import { KnownScopes, UnservedKinds } from './known-scopes.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import type { Metrics } from './metrics.js';
import { applicationPrimary, type Primary } from './primary.js';
import { PrimaryStore, applicationKey, type PrimaryChange } from './primary-store.js';
import { ReconcileLoop } from './reconcile-loop.js';
import { ReconcileStep } from './reconcile-step.js';
import { waitsForKind } from './requeue.js';
import { OwnedKeys } from './sharding/owned-keys.js';
import type { ShardOwnership } from './sharding/ownership.js';
import { WorkQueue } from './work-queue.js';
import { WriteLicence, fenced } from './write-fence.js';

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
  readonly hotLoop?: HotLoopPolicy;
  /** How many writes the API server does not keep before the object is no longer written (docs/decisions/0022-perpetual-diff.md). */
  readonly perpetualDiff?: PerpetualDiffPolicy;
  /** How children count as ready (default kstatus; `existence` where no workload controllers run). */
  readonly readiness?: 'kstatus' | 'existence';
  /** Passed to every plan (tenancy policy, requeue delays, …); `readiness` above wins over its field. */
  readonly planOptions?: PlanOptions;
  /** The admin's tenancy policy: where Applications may write (default: own namespace only). */
  readonly tenancy?: TenancyPolicy;
  /** The guard policy (`--guard`): plans it denies write nothing, their Application is `Stalled GuardDenied`. */
  readonly guard?: GuardPolicy;
  /** Why no `kreconcile.io/approve` is accepted (the approvals admission policy is missing): GuardDenied conditions say it. */
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
  /** How often discovery is asked for kinds Applications wait for (CRDs not served; default 1 s). */
  readonly unservedPollMs?: number;
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

/** `start` gave up waiting for the first list of Applications. */
export class CacheSyncTimeout extends Error {
  override readonly name = 'CacheSyncTimeout';
}

/** The queue key of an Application (`namespace/name`); part of the runtime's public API. */
export { applicationKey };

const ABANDONED = 'this reconcile was abandoned when its Controller stopped';

export class Controller {
  private readonly queue: WorkQueue;
  private readonly store: PrimaryStore;
  private readonly children: ChildWatches;
  private readonly hotLoops: HotLoopHistory;
  private readonly perpetualDiffs: PerpetualDiffHistory;
  private readonly scopes: KnownScopes;
  private readonly unserved: UnservedKinds;
  private readonly owned: OwnedKeys;
  private readonly step: ReconcileStep;
  /** `spec.dependsOn`: who depends on whom among the store's primaries; requeues dependants (dependants.ts). */
  private readonly dependants: Dependants;
  private readonly loop: ReconcileLoop;
  private readonly logger: Logger;
  /** What this controller's reconciles remember about the objects they saw (decoded, planned): dropped with it. */
  private readonly memo: Memo = createMemo();
  /** The worker threads `spec.readiness` rules run in (none started until a rule is evaluated). */
  private readonly isolatedRules: IsolatedRules | undefined;
  /** Per primary: the scope table and the count of stopped watches when its kinds were last handed to `children.watch`. */
  private readonly kindsWatchedFor = new WeakMap<
    Application,
    { readonly scopes: ScopeTable; readonly stops: number }
  >();
  private lifecycle: 'new' | 'running' | 'stopped' = 'new';
  private stopped: ((value: 'stopped') => void) | undefined;
  private readonly stopping = new Promise<'stopped'>((resolve) => {
    this.stopped = resolve;
  });

  /**
   * Builds the parts, each before the parts that use it. The handlers of the stores' changes
   * (`onPrimaryChange`, `onUnserved`) name parts built later: they run only once `start` has listed.
   */
  constructor(private readonly options: ControllerOptions) {
    const { clock, metrics } = options;
    const resyncMs = options.resyncMs ?? 10 * 60_000;
    const relistMs = options.relistMs ?? 6 * resyncMs;
    this.logger = options.logger ?? silentLogger;
    const reportApiError = apiErrorReporter(this.logger, metrics);
    this.scopes = new KnownScopes(options.scopes ?? builtinScopes, this.memo, (kind) => this.kindForgotten(kind));
    this.queue = new WorkQueue(clock, {
      random: options.random,
      onHandOut: (waited) => metrics?.queueLatency.observe(waited / 1000),
    });
    this.isolatedRules =
      options.ruleIsolation === false || options.planOptions?.expressions !== undefined
        ? undefined
        : new IsolatedRules(options.ruleIsolation ?? {});
    this.hotLoops = new HotLoopHistory({
      now: () => clock.now(),
      logger: this.logger,
      ...(options.hotLoop ? { policy: options.hotLoop } : {}),
    });
    this.perpetualDiffs = new PerpetualDiffHistory({
      now: () => clock.now(),
      logger: this.logger,
      ...(options.perpetualDiff ? { policy: options.perpetualDiff } : {}),
    });
    this.dependants = new Dependants({
      object: (key) => this.store.object(key),
      enqueue: (key) => this.queue.add(key),
    });
    this.store = new PrimaryStore(options.cluster, {
      primary: options.primary ?? applicationPrimary(this.memo),
      clock,
      resyncMs,
      relistMs,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      onChange: (change) => this.onPrimaryChange(change),
      onResync: (key) => this.queue.add(key),
      onError: reportApiError,
      onObserved: (before, after) => this.dependants.observe(before, after),
    });
    this.children = new ChildWatches({
      cluster: options.cluster,
      clock,
      relistEveryMs: relistMs,
      logger: this.logger,
      onOwnedChange: (mark) => {
        const key = this.store.keyOfOwnerMark(mark);
        if (key !== undefined) this.queue.add(key);
      },
      onError: reportApiError,
      // A child watch found its kind not served any more (its CRD was deleted): the kind is forgotten.
      onUnserved: (kind) => this.scopes.forget(kind),
      wantedKinds: () => [...this.store.applications()].flatMap((application) => kindsOf(application, this.memo)),
      scopeOf: (kind) => scopeOf(this.scopes.current, kind),
      ...(options.childCacheWaitMs === undefined ? {} : { readableWithinMs: options.childCacheWaitMs }),
      // The planner leaves the fields of these managers to them: the caches keep their claims (core/plan/field-fights.ts).
      ...(options.planOptions?.fieldManagers === undefined
        ? {}
        : { keepManagers: managerNames(options.planOptions.fieldManagers) }),
      ...childNamespacesOf(options),
    });
    this.unserved = new UnservedKinds({
      discovery: options.cluster,
      clock,
      everyMs: options.unservedPollMs ?? 1_000,
      onServed: (kind, keys) => {
        this.logger.info({ kind: `${kind.apiVersion}/${kind.kind}`, applications: keys.length }, 'kind served again');
        this.children.served(kind);
        for (const key of keys) this.queue.add(key);
      },
    });
    this.owned = new OwnedKeys(options.shard, { keys: () => this.store.keys(), enqueue: (key) => this.queue.add(key) });
    // What this controller's reconciles write under: the loop revokes it when it abandons them at its stop deadline.
    const licence = new WriteLicence();
    const mayWrite = () => licence.valid;
    // The operator's own client behind the abandon fence, built once (it reads the licence at each write), not per reconcile.
    const operatorWrites = fenced(options.cluster, mayWrite, ABANDONED);
    this.step = new ReconcileStep({
      access: {
        cluster: options.cluster,
        ...(options.eventCluster === undefined ? {} : { eventCluster: options.eventCluster }),
        writesFor: (cluster, key) =>
          this.owned.fence(cluster === options.cluster ? operatorWrites : fenced(cluster, mayWrite, ABANDONED), key),
        owns: (key) => this.owned.owns(key),
        ...(options.childClusterFor === undefined ? {} : { childClusterFor: options.childClusterFor }),
      },
      observed: {
        store: this.store,
        children: this.children,
        scopes: this.scopes,
        ...(options.watchChildren === false
          ? {}
          : {
              watchChildrenOf: (application) => this.watchChildrenOf(application),
              childCachesReadable: (application) => this.children.readable(() => kindsOf(application, this.memo)),
              ...(childNamespacesOf(options).namespaces === undefined ? {} : { childrenPerNamespace: true }),
            }),
      },
      policy: {
        planOptions: { ...planOptionsOf(options), applications: this.dependants.view },
        ...(options.guard === undefined ? {} : { guard: options.guard }),
        ...(options.approvalsRefused === undefined ? {} : { approvalsRefused: options.approvalsRefused }),
        hotLoops: this.hotLoops,
        perpetualDiffs: this.perpetualDiffs,
        translate: options.translate ?? createToscaTranslator({ now: () => clock.now() }),
        ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
        progressStatusAfterMs: options.progressStatusAfterMs ?? DEFAULT_PROGRESS_STATUS_AFTER_MS,
        ...(this.isolatedRules === undefined ? {} : { isolatedRules: this.isolatedRules }),
      },
      recorder: {
        logger: this.logger,
        ...(metrics === undefined ? {} : { metrics }),
        events: options.events !== false,
        reportApiError,
        onReconciled: (key, result) => {
          this.trackUnserved(key, result);
          options.onReconciled?.(key, result);
        },
      },
      clock,
      random: options.random,
      memo: this.memo,
    });
    this.loop = new ReconcileLoop({
      queue: this.queue,
      clock,
      logger: this.logger,
      ...(metrics === undefined ? {} : { metrics }),
      workers: options.workers ?? 2,
      ownership: this.owned,
      reconcile: (key, attempt) => this.step.run(key, attempt),
      licence,
    });
  }

  /**
   * Starts watching and reconciling; resolves once the Applications are listed.
   * A Controller runs once: `start` after `stop` throws (build a new Controller for a new term).
   * Errors: rejects with a `CacheSyncTimeout` error when the first list does not succeed within
   * `cacheSyncTimeoutMs` (controller-runtime's CacheSyncTimeout), everything started stopped again.
   */
  async start(): Promise<void> {
    if (this.lifecycle === 'running') return;
    if (this.lifecycle === 'stopped')
      throw new Error('this Controller was stopped and does not start again: create a new Controller');
    this.lifecycle = 'running';
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    let cancelTimeout: (() => void) | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      cancelTimeout = this.options.clock.setTimer(timeoutMs, () => resolve('timeout'));
    });
    const synced = await Promise.race([this.store.start().then(() => 'synced' as const), timedOut, this.stopping]);
    cancelTimeout?.();
    if (synced === 'stopped') return;
    if (synced === 'timeout') {
      await this.stop(0);
      throw new CacheSyncTimeout(
        `the Applications could not be listed within ${timeoutMs} ms (see the API errors logged); is the Application CRD installed and may this identity list it?`,
      );
    }
    this.loop.start();
    // The Applications just listed are queued already: from now on only newly owned ones are.
    this.owned.start();
    this.logger.info({ applications: this.store.size }, 'controller started');
  }

  /**
   * Stops taking work, lets in-flight reconciles finish (up to `deadlineMs`; after that they are
   * abandoned: their writes are refused, never sent — a stopped Controller and its successor must
   * not write concurrently), stops the watches. Resolves true when everything in flight finished
   * in time. Idempotent; leaves no timer behind.
   */
  async stop(deadlineMs = 30_000): Promise<boolean> {
    if (this.lifecycle !== 'running') {
      this.lifecycle = 'stopped';
      return true;
    }
    this.lifecycle = 'stopped';
    this.stopped?.('stopped');
    this.owned.stop();
    this.unserved.stop();
    this.store.stop();
    this.children.stop();
    const finished = await this.loop.stop(deadlineMs);
    await this.isolatedRules?.close();
    this.logger.info({ finished }, 'controller stopped');
    return finished;
  }

  get running(): boolean {
    return this.lifecycle === 'running';
  }

  /** Whether `start` was ever called (a started Controller never starts again). */
  get started(): boolean {
    return this.lifecycle !== 'new';
  }

  /** Queues an Application for reconcile (e.g. from an HTTP callback). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  /** Child kinds watched now (`apiVersion/kind`). */
  get watchedKinds(): ReadonlyArray<string> {
    return this.children.kinds;
  }

  /** True when nothing is queued, running, waiting for a cache or scheduled soon (tests use it to run "until quiet"). */
  get idle(): boolean {
    return this.queue.depth === 0 && this.loop.inFlight.size === 0 && this.loop.deferred.size === 0;
  }

  /** Reconciles started, total and per key (tests and benchmarks read these); a deleted primary's count goes with it. */
  get reconcileCount(): number {
    return this.step.count;
  }
  get reconcilesByKey(): ReadonlyMap<string, number> {
    return this.step.countByKey;
  }

  /** Keys being reconciled right now; never holds a key twice. */
  get inFlight(): ReadonlySet<string> {
    return this.loop.inFlight;
  }

  /** Times a key was handed to a worker while already in flight (the queue's guarantee; must stay 0). */
  get concurrentReconciles(): number {
    return this.loop.concurrentReconciles;
  }

  private onPrimaryChange(change: PrimaryChange): void {
    if (change._tag === 'Deleted') {
      this.hotLoops.forget(change.key);
      this.perpetualDiffs.forget(change.key);
      this.step.forget(change.key);
      this.unserved.release(change.key);
      this.options.hooks?.tokens.forget(change.object.metadata.namespace ?? 'default', change.object.metadata.name);
      this.children.sweepSoon();
      return;
    }
    if (change.application !== undefined) this.watchChildrenOf(change.application);
    if (change.replaced) this.children.sweepSoon();
    this.queue.add(change.key);
  }

  /** Starts watching the child kinds of one Application that are not watched yet (on demand). */
  private watchChildrenOf(application: Application): void {
    if (this.options.watchChildren === false) return;
    // Nothing to start for an Application whose kinds were handed over under the same scope table
    // with no watch stopped since (every reconcile asks, a resync for every Application).
    const scopes = this.scopes.current;
    const handed = this.kindsWatchedFor.get(application);
    if (handed !== undefined && handed.scopes === scopes && handed.stops === this.children.stops) return;
    // A kind the server does not serve is not watched (its list would only fail): the plan says UnknownKind.
    this.children.watch(kindsOf(application, this.memo).filter((kind) => this.scopes.knows(kind)));
    this.kindsWatchedFor.set(application, { scopes, stops: this.children.stops });
  }

  /**
   * A kind turned unknown (found by a child watch or by a reconcile's UnknownKind): the Applications
   * naming it are planned again now, so they say UnknownKind at once rather than at their next retry,
   * which may be a backoff of seconds (a create refused while the CRD was Terminating); their
   * children may have been gone for a while: the cache had nothing to report.
   */
  private kindForgotten(kind: { readonly apiVersion: string; readonly kind: string }): void {
    this.logger.info({ kind: `${kind.apiVersion}/${kind.kind}` }, 'kind not served any more');
    for (const application of this.store.applications())
      if (
        kindsOf(application, this.memo).some(
          (named) => named.apiVersion === kind.apiVersion && named.kind === kind.kind,
        )
      )
        this.queue.add(applicationKey(application.metadata));
  }

  /** An Application waiting for kinds the server does not serve has discovery asked again until they are back. */
  private trackUnserved(key: string, result: ReconcileResult): void {
    // Most results wait for no kind: then the primary is not even looked up.
    const application = result._tag === 'Gone' || !waitsForKind(result) ? undefined : this.store.application(key);
    if (application === undefined) {
      this.unserved.release(key);
      return;
    }
    this.unserved.wait(
      key,
      kindsOf(application, this.memo).filter((kind) => !this.scopes.knows(kind)),
    );
  }
}

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
  const destinations = tenancyFor(planOptionsOf(options).tenancy, options.namespace).destinations;
  return destinations.has(ANY) ? {} : { namespaces: [...destinations] };
};

/**
 * Every plan's options: `readiness` and `tenancy` given on their own win over `planOptions`' fields;
 * `spec.readiness` rules are evaluated in CEL unless the embedder passes its own evaluator.
 */
const planOptionsOf = (options: ControllerOptions): PlanOptions => ({
  expressions: celEvaluator,
  ...options.planOptions,
  ...(options.readiness ? { readiness: options.readiness } : {}),
  ...(options.tenancy ? { tenancy: options.tenancy } : {}),
});

export { scopeKey };
