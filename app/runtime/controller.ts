/**
 * The Application controller: watches Applications and their children, queues Application keys,
 * and runs reconciles on a pool of workers — one reconcile per Application at a time. The same
 * loop runs an embedder's own primary kind when given a `Primary` (primary.ts); "Application"
 * below then means an object of that kind.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  builtinScopes, markPrefixOf,
  liveVersionsOf, jsonEqual, scopeKey, scopeOf, showClusterError,
  type Application, type Clock, type Cluster, type ClusterError, type HotLoopPolicy, type JsonValue, type ObjectRef,
  type LiveVersions, type PlanOptions, type Resource, type ScopeTable, type TenancyPolicy,
} from '../../core/index.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { kindsOf, readLive, resolveScopes } from '../reconcile/live-reader.js';
import { createToscaTranslator, type Translator } from '../tosca/translator.js';
import { reconcileApplication, type ReconcileDeps, type ReconcileResult } from '../reconcile/reconcile-application.js';
import { recordEvents } from './events.js';
import { Informer, type InformerEvent } from './informer.js';
import { wrapImpersonated } from '../reconcile/child-access.js';
import { fencedByOwnership } from './sharding/ownership-fence.js';
import type { ShardOwnership } from './sharding/ownership.js';
import { silentLogger, type Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { ChildWatches } from './child-watches.js';
import { HotLoopHistory } from './hot-loop-history.js';
import { WorkQueue } from './work-queue.js';
import { fenced } from './write-fence.js';
import { APPLICATION_PRIMARY, type Primary } from './primary.js';

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
  /** Watch only this namespace's Applications (default: all). */
  readonly namespace?: string;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** Record Kubernetes Events for actions and failures (default true). */
  readonly events?: boolean;
  readonly hotLoop?: HotLoopPolicy;
  /** How children count as ready (default kstatus; `existence` where no workload controllers run). */
  readonly readiness?: 'kstatus' | 'existence';
  /** Passed to every plan (tenancy policy, requeue delays, …); `readiness` above wins over its field. */
  readonly planOptions?: PlanOptions;
  /** The admin's tenancy policy: where Applications may write (default: own namespace only). */
  readonly tenancy?: TenancyPolicy;
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
  /** Sharding: only Applications this replica owns are reconciled, and only while it owns them (default: all). */
  readonly shard?: ShardOwnership;
  /** The kind reconciled: an embedder's primary kind (see primary.ts; default `APPLICATION_PRIMARY`). */
  readonly primary?: Primary;
};

/** `start` gave up waiting for the first list of Applications. */
export class CacheSyncTimeout extends Error {
  override readonly name = 'CacheSyncTimeout';
}

export const applicationKey = (ref: { readonly namespace?: string; readonly name: string }): string => `${ref.namespace ?? 'default'}/${ref.name}`;

export class Controller {
  private readonly queue: WorkQueue;
  private readonly applications: Informer;
  private readonly children: ChildWatches;
  private readonly hotLoops: HotLoopHistory;
  private scopes: ScopeTable;
  private readonly translate: Translator;
  private readonly logger: Logger;
  private readonly workers: Array<Promise<void>> = [];
  private cancelResync: (() => void) | undefined;
  private cancelSweep: (() => void) | undefined;
  private lifecycle: 'new' | 'running' | 'stopped' = 'new';
  private stopped: ((value: 'stopped') => void) | undefined;
  private readonly stopping = new Promise<'stopped'>((resolve) => { this.stopped = resolve; });
  private cancelShardWatch: (() => void) | undefined;
  /** Application keys owned when ownership last changed: only newly owned ones are queued on a change. */
  private ownedKeys = new Set<string>();
  /** Keys dropped since then because they were not owned at that moment (ownership may have lapsed and come back). */
  private droppedKeys = new Set<string>();
  /** Reconciles started, total and per key (tests and benchmarks read these). */
  reconcileCount = 0;
  readonly reconcilesByKey = new Map<string, number>();
  /** Keys being reconciled right now; never holds a key twice. */
  readonly inFlight = new Set<string>();
  /** Times a key was handed to a worker while already in flight (the queue's guarantee; must stay 0). */
  concurrentReconciles = 0;

  /**
   * The cluster as this Controller's work sees it: once `stop`'s deadline has passed, reconciles
   * still in flight are abandoned — their writes are refused, never sent (a stopped Controller
   * and its successor must not write concurrently).
   */
  private readonly cluster: Cluster;
  private abandoned = false;
  /** The kind reconciled (Applications, or the embedder's primary kind): how its objects decode and its status is written. */
  private readonly primary: Primary;
  private readonly primaryKind: { readonly apiVersion: string; readonly kind: string };
  /** The owner-mark prefix of this kind's children ('' for Applications, whose marks are `ns/name`). */
  private readonly markPrefix: string;

  constructor(private readonly options: ControllerOptions) {
    this.primary = options.primary ?? APPLICATION_PRIMARY;
    this.primaryKind = { apiVersion: this.primary.apiVersion, kind: this.primary.kind };
    this.markPrefix = markPrefixOf(this.primaryKind);
    this.cluster = fenced(options.cluster, () => !this.abandoned, 'this reconcile was abandoned when its Controller stopped');
    this.logger = options.logger ?? silentLogger;
    this.scopes = options.scopes ?? builtinScopes;
    this.translate = options.translate ?? createToscaTranslator({ now: () => options.clock.now() });
    this.queue = new WorkQueue(options.clock, {
      random: options.random,
      onHandOut: (waited) => options.metrics?.queueLatency.observe(waited / 1000),
    });
    this.applications = new Informer(options.cluster, { ...this.primaryKind, ...(options.namespace ? { namespace: options.namespace } : {}) }, {
      clock: options.clock,
      onEvent: (event) => this.onApplicationEvent(event),
      relistEveryMs: options.resyncMs ?? 10 * 60_000,
      onError: (error, phase) => this.apiError(error, `application ${phase}`),
    });
    this.hotLoops = new HotLoopHistory({ now: () => options.clock.now(), logger: this.logger, ...(options.hotLoop ? { policy: options.hotLoop } : {}) });
    this.children = new ChildWatches({
      cluster: this.cluster, clock: options.clock, relistEveryMs: options.resyncMs ?? 10 * 60_000, logger: this.logger,
      onOwnedChange: (mark) => { const key = this.keyOfMark(mark); if (key !== undefined) this.queue.add(key); },
      onError: (error, where) => this.apiError(error, where),
      onUnserved: (kind) => this.forgetScope(kind),
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
    if (this.lifecycle === 'stopped') throw new Error('this Controller was stopped and does not start again: create a new Controller');
    this.lifecycle = 'running';
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    let cancelTimeout: (() => void) | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => { cancelTimeout = this.options.clock.setTimer(timeoutMs, () => resolve('timeout')); });
    const synced = await Promise.race([this.applications.start().then(() => 'synced' as const), timedOut, this.stopping]);
    cancelTimeout?.();
    if (synced === 'stopped') return;
    if (synced === 'timeout') {
      await this.stop(0);
      throw new CacheSyncTimeout(`the Applications could not be listed within ${timeoutMs} ms (see the API errors logged); is the Application CRD installed and may this identity list it?`);
    }
    for (let i = 0; i < (this.options.workers ?? 2); i++) this.workers.push(this.work());
    this.scheduleResync();
    // The Applications just listed are queued already: from now on only newly owned ones are.
    this.cancelShardWatch = this.options.shard?.onChange(() => this.enqueueOwned(true));
    this.enqueueOwned(false);
    this.logger.info({ applications: this.applications.size }, 'controller started');
  }

  /**
   * Stops taking work, lets in-flight reconciles finish (up to `deadlineMs`; after that they are
   * abandoned: their results are ignored), stops the watches. Resolves true when everything in
   * flight finished in time. Idempotent; leaves no timer behind.
   */
  async stop(deadlineMs = 30_000): Promise<boolean> {
    if (this.lifecycle !== 'running') { this.lifecycle = 'stopped'; return true; }
    this.lifecycle = 'stopped';
    this.stopped?.('stopped');
    this.cancelResync?.();
    this.cancelSweep?.();
    this.cancelShardWatch?.();
    this.queue.shutdown();
    this.applications.stop();
    this.children.stop();
    let cancelDeadline: (() => void) | undefined;
    const finished = deadlineMs <= 0 && this.inFlight.size > 0 ? false : await Promise.race([
      Promise.all(this.workers).then(() => true),
      new Promise<boolean>((resolve) => { cancelDeadline = this.options.clock.setTimer(deadlineMs, () => resolve(false)); }),
    ]);
    cancelDeadline?.();
    this.abandoned = !finished;
    this.logger.info({ finished }, 'controller stopped');
    return finished;
  }

  get running(): boolean { return this.lifecycle === 'running'; }

  /** Whether `start` was ever called (a started Controller never starts again). */
  get started(): boolean { return this.lifecycle !== 'new'; }

  /** Queues an Application for reconcile (e.g. from an HTTP callback). */
  enqueue(key: string): void { this.queue.add(key); }

  get queueDepth(): number { return this.queue.depth; }

  /** Child kinds watched now (`apiVersion/kind`). */
  get watchedKinds(): ReadonlyArray<string> { return this.children.kinds; }

  /** True when nothing is queued, running or scheduled soon (tests use it to run "until quiet"). */
  get idle(): boolean { return this.queue.depth === 0 && this.inFlight.size === 0; }

  /** The queue key (`ns/name`) of a child's owner mark, when the mark names this Controller's kind. */
  private keyOfMark(mark: string): string | undefined {
    if (this.markPrefix === '') return mark.includes(':') ? undefined : mark;
    return mark.startsWith(this.markPrefix) ? mark.slice(this.markPrefix.length) : undefined;
  }

  private onApplicationEvent(event: InformerEvent): void {
    const key = applicationKey(event.object.metadata);
    if (event.type === 'DELETED') {
      this.hotLoops.forget(key);
      this.options.hooks?.tokens.forget(event.object.metadata.namespace ?? 'default', event.object.metadata.name);
      this.scheduleSweep();
      return;
    }
    if (event.type === 'MODIFIED' && event.old !== undefined && onlyStatusChanged(event.old, event.object)) return;
    const decoded = this.primary.decode(event.object);
    if (E.isRight(decoded)) this.watchKindsOf(decoded.right);
    if (event.old !== undefined) this.scheduleSweep();
    this.queue.add(key);
  }

  /**
   * Stopping watches needs a look at every Application, so it runs once after a quiet second
   * rather than on every event (a burst of N events would otherwise cost N²).
   */
  private scheduleSweep(): void {
    if (this.cancelSweep !== undefined || !this.running) return;
    this.cancelSweep = this.options.clock.setTimer(1_000, () => { this.cancelSweep = undefined; this.sweepChildWatches(); });
  }

  /** Stops watching child kinds no Application uses any more. */
  private sweepChildWatches(): void {
    const wanted = new Set<string>();
    for (const object of this.applications.list()) {
      const application = this.primary.decode(object);
      // An Application that does not decode names no kinds; watches holding its objects stay anyway (see sweep).
      if (E.isRight(application)) for (const kind of kindsOf(application.right)) wanted.add(`${kind.apiVersion}/${kind.kind}`);
    }
    this.children.sweep(wanted);
  }

  /** Starts watching the child kinds of one Application that are not watched yet (on demand). */
  private watchKindsOf(application: Application): void {
    if (this.options.watchChildren === false) return;
    // A kind the server does not serve is not watched (its list would only fail): the plan says UnknownKind.
    this.children.watch(kindsOf(application).filter((kind) => scopeOf(this.scopes, kind) !== undefined));
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.options.metrics?.queueDepth.set(this.queue.depth);
      if (!this.owns(key)) { this.drop(key); this.queue.done(key); continue; }
      if (this.inFlight.has(key)) this.concurrentReconciles++;
      this.inFlight.add(key);
      try {
        await this.reconcile(key);
      } catch (defect) {
        this.logger.error({ key, err: String(defect) }, 'reconcile crashed (defect); backing off');
        this.queue.addRateLimited(key);
      } finally {
        this.inFlight.delete(key);
        this.queue.done(key);
      }
    }
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const ref: ObjectRef = { ...this.primaryKind, namespace, name };
    const started = this.options.clock.now();
    let plannedAgainst: LiveVersions = new Map();
    const cached = this.applications.get(namespace, name);
    if (cached !== undefined) {
      const decoded = this.primary.decode(cached);
      if (E.isRight(decoded)) {
        this.scopes = await resolveScopes(decoded.right, this.scopes, this.cluster);
        // Watches start here, never waited for: until a kind's cache is synced its objects are read directly.
        this.watchKindsOf(decoded.right);
      }
    }
    // Ownership can be lost while waiting above: check again right before acting.
    if (!this.owns(key)) { this.drop(key); return; }
    this.reconcileCount++;
    this.reconcilesByKey.set(key, (this.reconcilesByKey.get(key) ?? 0) + 1);
    const result = await reconcileApplication(ref, {
      cluster: this.clusterFor(key),
      scopes: this.scopes,
      now: () => new Date(this.options.clock.now()).toISOString(),
      random: this.options.random,
      planOptions: { ...this.options.planOptions, ...(this.options.readiness ? { readiness: this.options.readiness } : {}), ...(this.options.tenancy ? { tenancy: this.options.tenancy } : {}) },
      readApplication: async (r) => E.right(O.fromNullable(this.applications.get(r.namespace, r.name))),
      readLive: (application, scopes) => (this.options.watchChildren === false
        ? readLive(application, scopes, this.cluster, { perNamespace: true, ...(this.options.tenancy ? { tenancy: this.options.tenancy } : {}) })
        : readLive(application, scopes, this.cluster, { cache: this.children.liveCache(), ...(this.options.tenancy ? { tenancy: this.options.tenancy } : {}) })),
      guard: (application, plan, live) => { plannedAgainst = liveVersionsOf(live); return this.hotLoops.guard(key, application, plan, plannedAgainst); },
      onWritten: (object) => this.cacheWrite(object),
      onDeleted: (deleted) => this.children.forget(deleted),
      translate: this.translate,
      ...(this.options.hooks === undefined ? {} : { hooks: this.options.hooks }),
      ...(this.options.childClusterFor === undefined ? {} : { childClusterFor: this.childClustersFor(key, this.options.childClusterFor) }),
      decode: this.primary.decode,
      statusPatch: (status) => this.primary.statusPatch(this.applications.get(namespace, name)?.status as JsonValue | undefined, status),
    }, this.queue.attempts(key) + 1);
    this.hotLoops.record(key, result._tag === 'Gone' ? [] : result.execution?.done ?? [], plannedAgainst);
    this.finish(key, result, started);
  }

  /** Read-your-own-writes: answers of our writes go into the caches before the next reconcile. */
  private cacheWrite(object: Resource): void {
    if (object.apiVersion === this.primaryKind.apiVersion && object.kind === this.primaryKind.kind) { this.applications.apply(object); return; }
    this.children.apply(object);
  }

  private finish(key: string, result: ReconcileResult, started: number): void {
    const seconds = (this.options.clock.now() - started) / 1000;
    const label = result._tag === 'Failed' ? (result.terminal ? 'terminal' : 'error') : result._tag === 'Done' && result.requeueAfterMs !== undefined ? 'requeue' : 'success';
    this.options.metrics?.reconciles.inc({ result: label });
    this.options.metrics?.reconcileDuration.observe({ result: label }, seconds);
    for (const done of (result._tag === 'Gone' ? [] : result.execution?.done ?? [])) this.options.metrics?.actions.inc({ type: done.action.type });
    if (result._tag === 'Failed') {
      this.apiError(result.error, `reconcile ${key}`);
      const failedOn = result.execution?.failure?.action;
      if (result.error._tag === 'UnknownKind' && failedOn !== undefined) this.forgetScope(failedOn.ref);
      if (result.terminal) this.queue.forget(key);
      else this.queue.addRateLimited(key, result.retryAfterMs ?? 0);
    } else if (result._tag === 'Done' && result.plan.outcome._tag === 'RequeueAfter' && result.plan.outcome.reason === 'UnknownKind') {
      // Waiting for a CRD that may be installed any moment: retry soon, then less often, up to the plan's delay.
      this.queue.addRateLimited(key, 0, result.plan.outcome.ms);
    } else {
      this.queue.forget(key);
      if (result._tag === 'Done' && result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
    }
    if (this.options.events !== false && result._tag !== 'Gone') void this.recordEvents(key, result);
    this.logger.debug({ key, result: label, seconds }, 'reconciled');
    this.options.onReconciled?.(key, result);
  }

  private async recordEvents(key: string, result: Exclude<ReconcileResult, { _tag: 'Gone' }>): Promise<void> {
    const application = this.applications.get(...(key.split('/') as [string, string]));
    if (application === undefined) return;
    const failures = await recordEvents(this.clusterFor(key), application, result, this.options.clock.now(), this.options.random);
    for (const failure of failures) this.logger.debug({ key, error: showClusterError(failure) }, 'could not record event');
  }

  /**
   * The server stopped serving a kind (its CRD was deleted): forget its scope, so the next plan
   * says UnknownKind instead of retrying writes; discovery learns it again once it is served.
   */
  private forgetScope(kind: { readonly apiVersion: string; readonly kind: string }): void {
    const key = scopeKey(kind.apiVersion, kind.kind);
    if (!this.scopes.has(key) || builtinScopes.has(key)) return;
    const scopes = new Map(this.scopes);
    scopes.delete(key);
    this.scopes = scopes;
  }

  // --- sharding seam: everything the controller knows about shards is below ---

  private owns(key: string): boolean { return this.options.shard?.owns(key) ?? true; }

  /** The cluster a reconcile of `key` writes through: with shards, every write re-checks ownership. */
  private clusterFor(key: string): Cluster {
    const shard = this.options.shard;
    return shard === undefined ? this.cluster : fencedByOwnership(this.cluster, () => shard.owns(key), key);
  }

  /** Impersonating clients pass the same fences as the operator's own writes (abandoned reconciles, shard ownership). */
  private childClustersFor(key: string, childClusterFor: NonNullable<ReconcileDeps['childClusterFor']>): NonNullable<ReconcileDeps['childClusterFor']> {
    const shard = this.options.shard;
    return wrapImpersonated(childClusterFor, (cluster) => {
      const current = fenced(cluster, () => !this.abandoned, 'this reconcile was abandoned when its Controller stopped');
      return shard === undefined ? current : fencedByOwnership(current, () => shard.owns(key), key);
    });
  }

  private drop(key: string): void {
    this.queue.forget(key);
    this.droppedKeys.add(key);
  }

  /** Ownership changed: every Application owned now and not before, or dropped meanwhile, is reconciled. */
  private enqueueOwned(enqueue: boolean): void {
    const owned = new Set<string>();
    for (const application of this.applications.list()) {
      const key = applicationKey(application.metadata);
      if (!this.owns(key)) continue;
      owned.add(key);
      if (enqueue && (!this.ownedKeys.has(key) || this.droppedKeys.has(key))) this.queue.add(key);
    }
    this.ownedKeys = owned;
    this.droppedKeys.clear();
  }

  private apiError(error: ClusterError, where: string): void {
    this.options.metrics?.apiErrors.inc({ code: String(error.code), reason: error._tag });
    this.logger.warn({ where, error: showClusterError(error) }, 'API error');
  }

  private scheduleResync(): void {
    const every = this.options.resyncMs ?? 10 * 60_000;
    if (every <= 0 || !this.running) return;
    this.cancelResync = this.options.clock.setTimer(every, () => {
      for (const application of this.applications.list()) this.queue.add(applicationKey(application.metadata));
      this.scheduleResync();
    });
  }
}

/** A status-only update (typically our own status write) is not a reason to reconcile again. */
const onlyStatusChanged = (before: Resource, after: Resource): boolean => {
  const strip = (object: Resource): JsonValue => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
    return { ...object, metadata, status: null } as unknown as JsonValue;
  };
  return jsonEqual(strip(before), strip(after));
};

export { scopeKey };
