/**
 * One reconcile of one primary key as the runtime runs it: the scopes and child watches its kinds
 * need, `reconcileApplication` reading the primary from the store and live objects through the one
 * live reader (from the watch caches, or per namespace when children are not watched), with the
 * hot-loop guard and read-your-own-writes; then what it did is recorded (metrics, Events, the
 * hot-loop history, the log). What comes next for the key is the reconcile loop's business.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  guardPlan,
  liveVersionsOf,
  showClusterError,
  type Application,
  type Clock,
  type Cluster,
  type ClusterError,
  type LiveVersions,
  type GuardPolicy,
  type Plan,
  type PlanOptions,
  type Memo,
} from '../../core/index.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { wrapImpersonated } from '../access/child-access.js';
import { readLiveCachesFirst, type LiveReadOptions } from '../reconcile/live-reader.js';
import type { IsolatedRules } from '../isolation/isolated-rules.js';
import { reconcileApplication, type ReconcileDeps, type ReconcileResult } from '../reconcile/reconcile-application.js';
import type { Translator } from '../tosca/translator.js';
import type { ChildWatches } from './child-watches.js';
import { EventCorrelator, droppedReason, mayAnnounce, recordEvents } from './events.js';
import type { HotLoopHistory } from './hot-loop-history.js';
import type { PerpetualDiffHistory } from './perpetual-diff-history.js';
import type { KnownScopes } from './known-scopes.js';
import type { Logger } from '../logging/logger.js';
import { countWrittenActions, type Metrics } from './metrics.js';
import type { PrimaryStore } from './primary-store.js';
import { NOT_OWNED, type StepOutcome } from './reconcile-loop.js';

/** How the step reaches the cluster (the writer part): reads, and writes behind every fence. */
export type StepAccess = {
  /** Reads: live objects, discovery. */
  readonly cluster: Cluster;
  /** Where Events are written (default `cluster`): on a real server its low-priority view, so they never hold a reconcile back. */
  readonly eventCluster?: Cluster;
  /** `cluster` as a reconcile of `key` writes through it: every write fence applied (abandoned reconciles, shard ownership). */
  readonly writesFor: (cluster: Cluster, key: string) => Cluster;
  /** Whether this replica owns `key` now (sharding). */
  readonly owns: (key: string) => boolean;
  /** Whose rights each primary's children are read and written with (impersonation); default the operator's. */
  readonly childClusterFor?: ReconcileDeps['childClusterFor'];
};

/** What the step observes (the observation parts): the caches and the scope table. */
export type StepObservation = {
  readonly store: PrimaryStore;
  readonly children: ChildWatches;
  readonly scopes: KnownScopes;
  /**
   * Starts watching the child kinds a primary names (on demand), and then live objects are read
   * from the child watches' caches; without it, from the API server, per namespace.
   */
  readonly watchChildrenOf?: (application: Application) => void;
  /**
   * When the caches of the kinds a primary names are not worth reading yet (syncing, within a
   * bound): resolves once they are, and the reconcile is deferred until then (see ChildWatches.readable).
   */
  readonly childCachesReadable?: (application: Application) => Promise<void> | undefined;
  /** The child watches are per namespace (a namespaced operator): a kind read directly is listed per namespace too. */
  readonly childrenPerNamespace?: boolean;
};

/** What every plan is made and judged by (the policy parts). */
export type StepPolicy = {
  /** Every plan's options (readiness and the tenancy policy merged in; live reads honour the same tenancy). */
  readonly planOptions: PlanOptions;
  /** The guard policy every plan is judged by before it runs (`--guard`; see core/guard/guard-plan.ts). */
  readonly guard?: GuardPolicy;
  /** Why every approval is refused (app/runtime/admission-policies.ts), when it is. */
  readonly approvalsRefused?: string;
  readonly hotLoops: HotLoopHistory;
  /** Patches the API server keeps not keeping (no-op writes): stopped after a bound. */
  readonly perpetualDiffs: PerpetualDiffHistory;
  readonly translate: Translator;
  readonly hooks?: HookRuntime;
  /** Where `spec.readiness` rules are evaluated, isolated and bounded (ReconcileDeps.isolatedRules). */
  readonly isolatedRules?: IsolatedRules;
  /** How long a new Application's first progress status is held (ReconcileDeps.progressStatusAfterMs). */
  readonly progressStatusAfterMs: number;
};

/** Where what a reconcile did is told: metrics, Events, the log, the API error report, the observer. */
export type StepRecorder = {
  readonly logger: Logger;
  readonly metrics?: Metrics;
  /** Record Kubernetes Events for actions and failures. */
  readonly events: boolean;
  readonly reportApiError: (error: ClusterError, where: string) => void;
  readonly onReconciled?: (key: string, result: ReconcileResult) => void;
};

export type ReconcileStepOptions = {
  readonly access: StepAccess;
  readonly observed: StepObservation;
  readonly policy: StepPolicy;
  readonly recorder: StepRecorder;
  readonly clock: Clock;
  /** [0, 1): backoff jitter and Event names. */
  readonly random: () => number;
  /** The controller's memo (see ReconcileDeps.memo). */
  readonly memo: Memo;
};

/** The reconcile dependencies that are the same for every key: built once per step, not per reconcile. */
type SharedDeps = Pick<
  ReconcileDeps,
  | 'now'
  | 'random'
  | 'planOptions'
  | 'memo'
  | 'onWritten'
  | 'onDeleted'
  | 'translate'
  | 'hooks'
  | 'decode'
  | 'progressStatusAfterMs'
  | 'isolatedRules'
>;

export class ReconcileStep {
  /** Reconciles started, total and per key (tests and benchmarks read these; a key's count goes with its primary). */
  private total = 0;
  private readonly counts = new Map<string, number>();
  /**
   * Keys whose create was refused with AlreadyExists: a name their manifest wants is taken by an
   * object the caches do not hold (not ours, or not seen yet), so their desired objects are read
   * from the API server until the Application is gone, never assumed absent.
   */
  private readonly readDirectly = new Set<string>();
  /**
   * Per key in flight, the live versions its plan's patches were planned against and the Application's
   * generation (for the hot-loop and perpetual-diff histories).
   */
  private readonly plannedAgainst = new Map<string, Planned>();
  private readonly shared: SharedDeps;
  /** The Events written so far: one seen again is counted on the existing one (bounded; see EventCorrelator). */
  private readonly events = new EventCorrelator();
  /** How live objects are read, with and without optimistic creates (the same for every key: built once). */
  private readonly liveReads: { readonly optimistic: LiveReadOptions; readonly confirmed: LiveReadOptions };

  constructor(private readonly options: ReconcileStepOptions) {
    this.shared = sharedDeps(options);
    this.liveReads = liveReadOptions(options);
  }

  get count(): number {
    return this.total;
  }

  /** Reconciles started per key, for keys whose primary is still there. */
  get countByKey(): ReadonlyMap<string, number> {
    return this.counts;
  }

  /**
   * The key's primary is gone (its store said so): what the step kept for it goes too. A reconcile
   * that finds it gone forgets it as well, so nothing here holds more keys than the store and the queue.
   */
  forget(key: string): void {
    this.counts.delete(key);
    this.readDirectly.delete(key);
  }

  /** Reconciles `key` once; `NotOwned` (nothing done) when its shard was lost while preparing. */
  async run(key: string, attempt: number): Promise<StepOutcome> {
    const { store, scopes, watchChildrenOf, childCachesReadable } = this.options.observed;
    const started = this.options.clock.now();
    const cached = store.application(key);
    if (cached !== undefined) {
      // Discovery only for kinds not known yet: a primary naming known kinds (every one at a resync) is not awaited.
      if (!scopes.knowsEveryKindOf(cached)) await scopes.learnKindsOf(cached, this.options.access.cluster);
      // Watches start here. Until a kind's cache is synced its objects are read directly.
      watchChildrenOf?.(cached);
    }
    // Ownership can be lost while waiting above: check again right before acting.
    if (!this.options.access.owns(key)) return NOT_OWNED;
    // A cache about to sync saves this reconcile its direct reads: it waits, bounded, without holding a worker.
    const syncing = cached === undefined ? undefined : childCachesReadable?.(cached);
    if (syncing !== undefined) return { _tag: 'Deferred', until: syncing };
    this.total++;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.plannedAgainst.delete(key); // nothing left by a reconcile that crashed
    const result = await reconcileApplication(store.refOf(key), this.depsFor(key), attempt);
    // What the plan's patches were planned against (set by the guard only for a plan with patches).
    const planned = this.plannedAgainst.get(key);
    this.plannedAgainst.delete(key);
    const done = doneOf(result);
    this.options.policy.hotLoops.record(key, done, planned?.versions ?? NO_VERSIONS);
    this.options.policy.perpetualDiffs.record(key, done, planned?.versions ?? NO_VERSIONS, planned?.generation);
    this.record(key, result, started);
    return result;
  }

  /** The reconcile dependencies of `key`: the shared ones with the key's own reads, fences and guard. */
  private depsFor(key: string): ReconcileDeps {
    const { store, scopes } = this.options.observed;
    const { cluster: reads, writesFor, childClusterFor } = this.options.access;
    const { hotLoops, perpetualDiffs } = this.options.policy;
    const shared = this.shared;
    const liveReads = this.readDirectly.has(key) ? this.liveReads.confirmed : this.liveReads.optimistic;
    // Every field written out, absent ones as `undefined` (as optional fields read): one object shape for
    // every reconcile, which its many reads of `deps` stay fast on (a spread of the shared fields was not).
    return {
      now: shared.now,
      random: shared.random,
      planOptions: shared.planOptions,
      memo: shared.memo,
      onWritten: shared.onWritten,
      onDeleted: shared.onDeleted,
      translate: shared.translate,
      hooks: shared.hooks,
      decode: shared.decode,
      progressStatusAfterMs: shared.progressStatusAfterMs,
      isolatedRules: shared.isolatedRules,
      cluster: writesFor(reads, key),
      scopes: scopes.current,
      readApplication: () => E.right(O.fromNullable(store.object(key))),
      // Answered without a promise when the caches hold everything (a resync); else read through the server.
      readLive: (application, scopes) => readLiveCachesFirst(application, scopes, reads, liveReads),
      readInventory: (ref) => {
        // The inventory is labelled as ours: a synced ConfigMap cache holds it, and a miss there is an absence.
        const cached = liveReads.optimisticCreates === true ? liveReads.cache?.kind(ref) : undefined;
        return cached === undefined ? reads.get(ref)() : E.right(O.fromNullable(cached.get(ref.namespace, ref.name)));
      },
      guard: (application, unguarded, live) => {
        const plan = this.guardPolicy(key, application, unguarded);
        // Only patches are recorded and guarded against hot loops: a plan without one needs no versions.
        if (!plan.actions.some((action) => action.type === 'patch')) return plan;
        const versions = liveVersionsOf(live);
        this.plannedAgainst.set(key, { versions, generation: application.metadata.generation });
        return hotLoops.guard(key, application, perpetualDiffs.guard(key, application, plan), versions);
      },
      // Impersonating clients pass the same fences as the operator's own writes.
      childClusterFor:
        childClusterFor === undefined ? undefined : wrapImpersonated(childClusterFor, (child) => writesFor(child, key)),
      statusPatch: (status) => store.primary.statusPatch(store.object(key)?.status, status),
    };
  }

  /** `plan`, or the `Stalled GuardDenied` plan that writes nothing when the guard policy denies it. */
  private guardPolicy(key: string, application: Application, plan: Plan): Plan {
    const { guard, approvalsRefused } = this.options.policy;
    if (guard === undefined) return plan;
    const guarded = guardPlan({
      policy: guard,
      application,
      plan,
      ...(approvalsRefused === undefined ? {} : { approvalsRefused }),
      now: new Date(this.options.clock.now()).toISOString(),
    });
    if (guarded.plan !== plan)
      this.options.recorder.logger.info(
        { key, digest: guarded.verdict.digest, rules: [...new Set(guarded.verdict.violations.map((v) => v.rule))] },
        'guard policy denied the plan',
      );
    return guarded.plan;
  }

  private record(key: string, result: ReconcileResult, started: number): void {
    const { metrics, logger, events, reportApiError, onReconciled } = this.options.recorder;
    const seconds = (this.options.clock.now() - started) / 1000;
    const label = resultLabel(result);
    metrics?.reconciles.inc({ result: label });
    metrics?.reconcileDuration.observe({ result: label }, seconds);
    if (metrics !== undefined) countWrittenActions(metrics, doneOf(result));
    if (result._tag === 'Done' && result.statusWritten) {
      const drift = result.status.drift?.length ?? 0;
      if (drift > 0) metrics?.driftReported.inc(drift);
      const stalled = result.status.conditions?.find((condition) => condition.type === 'Stalled');
      if (stalled?.status === 'True' && stalled.reason === 'GuardDenied') metrics?.guardDenials.inc();
    }
    if (result._tag === 'Gone') this.forget(key);
    if (result._tag === 'Failed') {
      if (result.error._tag === 'AlreadyExists') this.readDirectly.add(key);
      reportApiError(result.error, `reconcile ${key}`);
      const failedOn = result.execution?.failure?.action;
      if (result.error._tag === 'UnknownKind' && failedOn !== undefined)
        this.options.observed.scopes.forget(failedOn.ref);
    }
    if (events && result._tag !== 'Gone' && mayAnnounce(result)) this.recordEvents(key, result);
    logger.debug({ key, result: label, seconds }, 'reconciled');
    onReconciled?.(key, result);
  }

  /**
   * Fire and forget: the reconcile and the queue never wait for Events, and their failures are only
   * counted and logged. Not async, so the pending send holds the built Events, not `result`.
   */
  private recordEvents(key: string, result: Exclude<ReconcileResult, { _tag: 'Gone' }>): void {
    const primary = this.options.observed.store.object(key);
    if (primary === undefined) return;
    const { cluster, eventCluster, writesFor } = this.options.access;
    const { metrics, logger } = this.options.recorder;
    void recordEvents(
      writesFor(eventCluster ?? cluster, key),
      primary,
      result,
      this.options.clock.now(),
      this.options.random,
      this.events,
    ).then((failures) => {
      for (const failure of failures) {
        metrics?.eventsDropped.inc({ reason: droppedReason(failure) });
        logger.debug({ key, error: showClusterError(failure) }, 'could not record event');
      }
    });
  }
}

/** The dependencies every reconcile of this step shares (the clock read at each call, read-your-own-writes into the caches). */
const sharedDeps = ({ observed, policy, clock, random, memo }: ReconcileStepOptions): SharedDeps => ({
  now: isoNow(clock),
  random,
  planOptions: policy.planOptions,
  memo,
  // Read-your-own-writes: answers of our writes go into the caches before the next reconcile.
  onWritten: (object) =>
    observed.store.holds(object) ? observed.store.apply(object) : observed.children.apply(object),
  onDeleted: (deleted) => observed.children.forget(deleted),
  translate: policy.translate,
  ...(policy.hooks === undefined ? {} : { hooks: policy.hooks }),
  decode: observed.store.primary.decode,
  progressStatusAfterMs: policy.progressStatusAfterMs,
  ...(policy.isolatedRules === undefined ? {} : { isolatedRules: policy.isolatedRules }),
});

/**
 * The clock's time in RFC 3339, formatted once per millisecond: reconciles that follow each other
 * within one (a resync, several per millisecond) share the string instead of formatting it each.
 */
const isoNow = (clock: Clock): (() => string) => {
  let formattedAt = Number.NaN;
  let formatted = '';
  return () => {
    const now = clock.now();
    if (now !== formattedAt) {
      formatted = new Date(now).toISOString();
      formattedAt = now;
    }
    return formatted;
  };
};

/**
 * How a step's reconciles read live objects: from the child watches' caches (optimistic creates
 * unless a create of the key was refused, see `readDirectly`), or per namespace from the API server
 * when children are not watched; under the tenancy policy of every plan.
 */
const liveReadOptions = ({
  observed,
  policy,
  memo,
}: ReconcileStepOptions): { readonly optimistic: LiveReadOptions; readonly confirmed: LiveReadOptions } => {
  const tenancy = policy.planOptions.tenancy === undefined ? {} : { tenancy: policy.planOptions.tenancy };
  if (observed.watchChildrenOf === undefined) {
    const perNamespace: LiveReadOptions = { perNamespace: true, memo, ...tenancy };
    return { optimistic: perNamespace, confirmed: perNamespace };
  }
  const cache = observed.children.liveCache();
  const lists = observed.childrenPerNamespace === true ? { listPerNamespace: true } : {};
  return {
    optimistic: { cache, optimisticCreates: true, memo, ...lists, ...tenancy },
    confirmed: { cache, optimisticCreates: false, memo, ...lists, ...tenancy },
  };
};

/** What a plan with patches was made against: the live versions and the Application's generation. */
type Planned = { readonly versions: LiveVersions; readonly generation: number | undefined };

/** What a reconcile planned against when its plan has no patch (nothing recorded for the hot-loop guard). */
const NO_VERSIONS: LiveVersions = new Map();

/** The metrics label of a result: success, requeue, error or terminal. */
const resultLabel = (result: ReconcileResult): string =>
  result._tag === 'Failed'
    ? result.terminal
      ? 'terminal'
      : 'error'
    : result._tag === 'Done' && result.requeueAfterMs !== undefined
      ? 'requeue'
      : 'success';

const doneOf = (result: ReconcileResult) => (result._tag === 'Gone' ? [] : (result.execution?.done ?? []));
