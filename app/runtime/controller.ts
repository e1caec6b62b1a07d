/**
 * The Application controller: watches Applications and their children, queues Application keys,
 * and runs reconciles on a pool of workers — one reconcile per Application at a time.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  APPLICATION_API_VERSION, APPLICATION_KIND, MANAGED_BY_LABEL, MANAGED_BY_VALUE, builtinScopes, conditionsFor, contestedPaths,
  defaultHotLoopPolicy, identityOf, jsonEqual, ownerOf, recordPatches, scopeKey, scopeOf, showClusterError,
  type Application, type Clock, type Cluster, type ClusterError, type HotLoopPolicy, type JsonValue, type ObjectRef,
  type PatchRecord, type Plan, type Resource, type ScopeTable, type TenancyPolicy,
} from '../../core/index.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { kindsOf, ownerOfApplication, readableFor, readLive, resolveScopes } from '../reconcile/live-reader.js';
import { createToscaTranslator, type Translator } from '../tosca/translator.js';
import { reconcileApplication, type ReconcileDeps, type ReconcileResult } from '../reconcile/reconcile-application.js';
import { recordEvents } from './events.js';
import { Informer, type InformerEvent } from './informer.js';
import { wrapImpersonated } from '../reconcile/child-access.js';
import { fencedByOwnership } from './sharding/ownership-fence.js';
import type { ShardOwnership } from './sharding/ownership.js';
import { silentLogger, type Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';

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
  /** Sharding: only Applications this replica owns are reconciled, and only while it owns them (default: all). */
  readonly shard?: ShardOwnership;
};

const APPLICATION_QUERY = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND };

export const applicationKey = (ref: { readonly namespace?: string; readonly name: string }): string => `${ref.namespace ?? 'default'}/${ref.name}`;

type ChildWatch = { readonly informer: Informer; readonly kind: { readonly apiVersion: string; readonly kind: string } };

export class Controller {
  private readonly queue: WorkQueue;
  private readonly applications: Informer;
  private readonly children = new Map<string, ChildWatch>();
  private readonly history = new Map<string, ReadonlyArray<PatchRecord>>();
  private scopes: ScopeTable;
  private readonly translate: Translator;
  private readonly logger: Logger;
  private readonly workers: Array<Promise<void>> = [];
  private cancelResync: (() => void) | undefined;
  private cancelSweep: (() => void) | undefined;
  private cancelShardWatch: (() => void) | undefined;
  /** Application keys owned when ownership last changed: only newly owned ones are queued on a change. */
  private ownedKeys = new Set<string>();
  /** Keys dropped since then because they were not owned at that moment (ownership may have lapsed and come back). */
  private droppedKeys = new Set<string>();
  private running = false;
  /** Reconciles started, total and per key (tests and benchmarks read these). */
  reconcileCount = 0;
  readonly reconcilesByKey = new Map<string, number>();
  /** Keys being reconciled right now; never holds a key twice. */
  readonly inFlight = new Set<string>();
  /** Times a key was handed to a worker while already in flight (the queue's guarantee; must stay 0). */
  concurrentReconciles = 0;

  constructor(private readonly options: ControllerOptions) {
    this.logger = options.logger ?? silentLogger;
    this.scopes = options.scopes ?? builtinScopes;
    this.translate = options.translate ?? createToscaTranslator({ now: () => options.clock.now() });
    this.queue = new WorkQueue(options.clock, {
      random: options.random,
      onHandOut: (waited) => options.metrics?.queueLatency.observe(waited / 1000),
    });
    this.applications = new Informer(options.cluster, { ...APPLICATION_QUERY, ...(options.namespace ? { namespace: options.namespace } : {}) }, {
      clock: options.clock,
      onEvent: (event) => this.onApplicationEvent(event),
      relistEveryMs: options.resyncMs ?? 10 * 60_000,
      onError: (error, phase) => this.apiError(error, `application ${phase}`),
    });
  }

  /** Starts watching and reconciling; resolves once the Applications are listed. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.applications.start();
    for (let i = 0; i < (this.options.workers ?? 2); i++) this.workers.push(this.work());
    this.scheduleResync();
    // The Applications just listed are queued already: from now on only newly owned ones are.
    this.cancelShardWatch = this.options.shard?.onChange(() => this.enqueueOwned(true));
    this.enqueueOwned(false);
    this.logger.info({ applications: this.applications.size }, 'controller started');
  }

  /**
   * Stops taking work, lets in-flight reconciles finish (up to `deadlineMs`), stops the watches.
   * Resolves true when everything in flight finished in time.
   */
  async stop(deadlineMs = 30_000): Promise<boolean> {
    if (!this.running) return true;
    this.running = false;
    this.cancelResync?.();
    this.cancelSweep?.();
    this.cancelShardWatch?.();
    this.queue.shutdown();
    const finished = await Promise.race([
      Promise.all(this.workers).then(() => true),
      this.options.clock.sleep(deadlineMs).then(() => false),
    ]);
    this.applications.stop();
    for (const child of this.children.values()) child.informer.stop();
    this.children.clear();
    this.logger.info({ finished }, 'controller stopped');
    return finished;
  }

  /** Queues an Application for reconcile (e.g. from an HTTP callback). */
  enqueue(key: string): void { this.queue.add(key); }

  get queueDepth(): number { return this.queue.depth; }

  /** Child kinds watched now (`apiVersion/kind`). */
  get watchedKinds(): ReadonlyArray<string> { return [...this.children.keys()]; }

  /** True when nothing is queued, running or scheduled soon (tests use it to run "until quiet"). */
  get idle(): boolean { return this.queue.depth === 0 && this.inFlight.size === 0; }

  private onApplicationEvent(event: InformerEvent): void {
    const key = applicationKey(event.object.metadata);
    if (event.type === 'DELETED') {
      this.history.delete(key);
      this.options.hooks?.tokens.forget(event.object.metadata.namespace ?? 'default', event.object.metadata.name);
      this.scheduleSweep();
      return;
    }
    if (event.type === 'MODIFIED' && event.old !== undefined && onlyStatusChanged(event.old, event.object)) return;
    this.watchKindsOf(event.object as unknown as Application);
    if (event.old !== undefined) this.scheduleSweep();
    this.queue.add(key);
  }

  private onChildEvent(event: InformerEvent): void {
    const owner = ownerOf(event.object);
    if (owner !== undefined) this.queue.add(owner);
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
    for (const application of this.applications.list()) {
      for (const kind of kindsOf(application as unknown as Application)) wanted.add(`${kind.apiVersion}/${kind.kind}`);
    }
    for (const [key, child] of this.children) {
      // A kind whose cache still holds our objects stays watched, so they can still be found and pruned.
      if (!wanted.has(key) && child.informer.size === 0) { child.informer.stop(); this.children.delete(key); this.logger.debug({ kind: key }, 'stopped watching child kind'); }
    }
  }

  /** Starts watching the child kinds of one Application that are not watched yet (on demand). */
  private watchKindsOf(application: Application): void {
    if (this.options.watchChildren === false) return;
    for (const kind of kindsOf(application)) {
      const key = `${kind.apiVersion}/${kind.kind}`;
      if (this.children.has(key)) continue;
      const informer = new Informer(this.options.cluster, { ...kind, labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}` }, {
        clock: this.options.clock,
        onEvent: (event) => this.onChildEvent(event),
        relistEveryMs: this.options.resyncMs ?? 10 * 60_000,
        onError: (error, phase) => this.apiError(error, `${key} ${phase}`),
        indexBy: ownerOf,
      });
      this.children.set(key, { informer, kind });
      void informer.start();
      this.logger.debug({ kind: key }, 'watching child kind');
    }
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
    const ref: ObjectRef = { ...APPLICATION_QUERY, namespace, name };
    const started = this.options.clock.now();
    const cached = this.applications.get(namespace, name);
    if (cached !== undefined) {
      this.scopes = await resolveScopes(cached as unknown as Application, this.scopes, this.options.cluster);
      await this.childrenSynced(cached as unknown as Application);
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
      planOptions: { ...(this.options.readiness ? { readiness: this.options.readiness } : {}), ...(this.options.tenancy ? { tenancy: this.options.tenancy } : {}) },
      readApplication: async (r) => E.right(O.fromNullable(this.applications.get(r.namespace, r.name))),
      readLive: (application, scopes) => (this.options.watchChildren === false
        ? readLive(application, scopes, this.options.cluster, { perNamespace: true, ...(this.options.tenancy ? { tenancy: this.options.tenancy } : {}) })
        : this.readLive(application, scopes)),
      guard: (application, plan) => this.guardHotLoop(key, application, plan),
      onWritten: (object) => this.cacheWrite(object),
      onDeleted: (deleted) => this.children.get(`${deleted.apiVersion}/${deleted.kind}`)?.informer.forget(deleted.namespace, deleted.name),
      translate: this.translate,
      ...(this.options.hooks === undefined ? {} : { hooks: this.options.hooks }),
      ...(this.options.childClusterFor === undefined ? {} : { childClusterFor: this.childClustersFor(key, this.options.childClusterFor) }),
    }, this.queue.attempts(key) + 1);
    this.finish(key, result, started);
  }

  private async childrenSynced(application: Application): Promise<void> {
    this.watchKindsOf(application);
    await Promise.all(kindsOf(application).map((kind) => this.children.get(`${kind.apiVersion}/${kind.kind}`)?.informer.synced));
  }

  /** Live objects from the caches; desired objects missing there (absent, or not ours) are read directly. */
  private async readLive(application: Application, scopes: ScopeTable): Promise<E.Either<ClusterError, ReadonlyArray<Resource>>> {
    const owner = ownerOfApplication(application);
    const mark = `${owner.namespace}/${owner.name}`;
    const found = new Map<string, Resource>();
    const keyOf = (o: Resource): string => `${o.apiVersion}|${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name}`;
    // Every watched kind, not only those the Application names now: a child of a kind since removed
    // from the spec (and never recorded in status, say after a failed status write) must still be pruned.
    for (const child of this.children.values()) {
      for (const object of child.informer.byIndex(mark)) found.set(keyOf(object), object);
    }
    const manifest = Array.isArray(application.spec?.manifest) ? application.spec.manifest : [];
    const readable = readableFor(application, this.options.tenancy);
    for (const resource of manifest) {
      if (scopeOf(scopes, resource) === undefined) continue;
      const ref = identityOf(resource, scopes, owner.namespace);
      if (!readable(ref)) continue;
      const cachedObject = this.children.get(`${ref.apiVersion}/${ref.kind}`)?.informer.get(ref.namespace, ref.name);
      if (cachedObject !== undefined) { found.set(keyOf(cachedObject), cachedObject); continue; }
      const got = await this.options.cluster.get(ref)();
      if (E.isLeft(got)) { if (got.left._tag === 'UnknownKind') continue; return got; }
      if (O.isSome(got.right)) found.set(keyOf(got.right.value), got.right.value);
    }
    return E.right([...found.values()]);
  }

  /** Read-your-own-writes: answers of our writes go into the caches before the next reconcile. */
  private cacheWrite(object: Resource): void {
    if (object.apiVersion === APPLICATION_API_VERSION && object.kind === APPLICATION_KIND) { this.applications.apply(object); return; }
    this.children.get(`${object.apiVersion}/${object.kind}`)?.informer.apply(object);
  }

  /** Refuses to send the same patch again when another actor keeps undoing it (SPEC section 5). */
  private guardHotLoop(key: string, application: Application, plan: Plan): Plan {
    const now = this.options.clock.now();
    const policy = this.options.hotLoop ?? defaultHotLoopPolicy;
    const history = this.history.get(key) ?? [];
    const contested = contestedPaths(history, plan, now, policy);
    if (contested.length === 0) {
      this.history.set(key, recordPatches(history, plan, now, policy));
      return plan;
    }
    this.logger.warn({ key, contested }, 'hot loop: another actor keeps reverting observed fields');
    return {
      actions: [],
      summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
      status: {
        ...plan.status,
        conditions: conditionsFor({
          verdict: { _tag: 'Stalled', reason: 'HotLoop', message: `another actor keeps changing ${contested.join(', ')}; stop it or stop observing these fields` },
          previous: application.status?.conditions, now: new Date(now).toISOString(), generation: application.metadata.generation,
        }),
      },
      outcome: { _tag: 'RequeueAfter', ms: policy.windowMs, reason: 'HotLoop' },
    };
  }

  private finish(key: string, result: ReconcileResult, started: number): void {
    const seconds = (this.options.clock.now() - started) / 1000;
    const label = result._tag === 'Failed' ? (result.terminal ? 'terminal' : 'error') : result._tag === 'Done' && result.requeueAfterMs !== undefined ? 'requeue' : 'success';
    this.options.metrics?.reconciles.inc({ result: label });
    this.options.metrics?.reconcileDuration.observe({ result: label }, seconds);
    for (const done of (result._tag === 'Gone' ? [] : result.execution?.done ?? [])) this.options.metrics?.actions.inc({ type: done.action.type });
    if (result._tag === 'Failed') {
      this.apiError(result.error, `reconcile ${key}`);
      if (result.terminal) this.queue.forget(key);
      else this.queue.addRateLimited(key, result.retryAfterMs ?? 0);
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

  // --- sharding seam: everything the controller knows about shards is below ---

  private owns(key: string): boolean { return this.options.shard?.owns(key) ?? true; }

  /** The cluster a reconcile of `key` writes through: with shards, every write re-checks ownership. */
  private clusterFor(key: string): Cluster {
    const shard = this.options.shard;
    return shard === undefined ? this.options.cluster : fencedByOwnership(this.options.cluster, () => shard.owns(key), key);
  }

  /** Impersonating clients pass the same ownership fence as the operator's own writes. */
  private childClustersFor(key: string, childClusterFor: NonNullable<ReconcileDeps['childClusterFor']>): NonNullable<ReconcileDeps['childClusterFor']> {
    const shard = this.options.shard;
    return shard === undefined ? childClusterFor : wrapImpersonated(childClusterFor, (cluster) => fencedByOwnership(cluster, () => shard.owns(key), key));
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
