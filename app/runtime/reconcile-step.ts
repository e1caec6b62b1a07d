/**
 * One reconcile of one primary key as the runtime runs it: the scopes and child watches its kinds
 * need, `reconcileApplication` reading the primary from the store and live objects through the one
 * live reader (from the watch caches, or per namespace when children are not watched), with the
 * guards over the key's book (bookkeeping.ts) and read-your-own-writes (the client it writes through
 * hands each answer to the caches, own-writes.ts); then what it did is told (metrics, Events, the log,
 * the observer). The key and its book come in as values, and the step answers a report (the result,
 * what it was planned against): what the report means for the key is `afterReconcile`'s business,
 * carried out by the applier (applier.ts). What the reconciles are given is built once per step; per
 * reconcile only the values of its key: the client behind the key's fences, its reads, its guard.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  guardPlan,
  type LiveVersions,
  liveVersionsOf,
  showClusterError,
  type Application,
  type Clock,
  type Cluster,
  type ClusterError,
  type GuardPolicy,
  type Plan,
  type PlanOptions,
  type Memo,
} from '../../core/internal.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { wrapImpersonated } from '../access/child-access.js';
import { readLiveCachesFirst, type LiveReadOptions } from '../reconcile/live-reader.js';
import type { IsolatedRules } from '../isolation/isolated-rules.js';
import {
  reconcileApplication,
  type ObjectSource,
  type ReconcileDeps,
  type ReconcileReads,
  type ReconcileResult,
} from '../reconcile/reconcile-application.js';
import type { Translator } from '../tosca/translator.js';
import type { ChildWatches } from './child-watches.js';
import { EventCorrelator, droppedReason, mayAnnounce, recordEvents } from './events.js';
import { EMPTY_BOOK, type BookkeepingPolicy, type KeyBook, type ReconcileReport } from './bookkeeping.js';
import { guardedAgainstHotLoop, guardedAgainstPerpetualDiff } from './history-guards.js';
import type { KnownScopes } from './known-scopes.js';
import type { Logger } from '../logging/logger.js';
import { countWrittenActions, type Metrics } from './metrics.js';
import { OwnWrites, type WriteAnswers } from './own-writes.js';
import { applicationKey, type PrimaryStore } from './primary-store.js';
import { NOT_OWNED, type Deferred, type NotOwned } from './reconcile-loop.js';
import { defined } from '../../core/json/defined.js';

/** How the step reaches the cluster (the writer part): reads, and writes behind every fence. */
export type StepAccess = {
  /** Reads: live objects, discovery. */
  readonly cluster: Cluster;
  /**
   * Where Events are written (default `cluster`): on a real server its low-priority view, so they never hold a
   * reconcile back.
   */
  readonly eventCluster?: Cluster;
  /**
   * `cluster` as a reconcile of `key` writes through it: every write fence applied (abandoned reconciles, shard
   * ownership).
   */
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
  /** The hot-loop and perpetual-diff policies the guards judge a key's history by. */
  readonly bookkeeping: BookkeepingPolicy;
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
  | 'translate'
  | 'hooks'
  | 'primary'
  | 'progressStatusAfterMs'
  | 'isolatedRules'
  | 'childClusterFor'
>;

/** A guard as a reconcile is given it (ReconcileDeps.guard). */
type Guard = NonNullable<ReconcileDeps['guard']>;

/** What a step answers: a report, or that it did nothing (the shard was lost, or it waits for a cache). */
export type StepReport = ReconcileReport | NotOwned | Deferred;

export class ReconcileStep {
  private readonly shared: SharedDeps;
  /** The Events written so far: one seen again is counted on the existing one (bounded; see EventCorrelator). */
  private readonly events = new EventCorrelator();
  /** Where reconciles read, with and without optimistic creates (the same for every key: built once). */
  private readonly reads: { readonly optimistic: ReconcileReads; readonly confirmed: ReconcileReads };
  /** Where every write's answer goes: the caches (read-your-own-writes). */
  private readonly answers: WriteAnswers;
  /** The guard of a key with nothing in its book yet. */
  private readonly unbookedGuard: Guard;

  constructor(private readonly options: ReconcileStepOptions) {
    this.answers = writeAnswersOf(options.observed);
    this.shared = sharedDeps(options, this.answers);
    this.reads = readsOf(options, liveReadOptions(options));
    this.unbookedGuard = this.guardOf(undefined);
  }

  /**
   * Reconciles `key` once, given what is kept for it; `NotOwned` (nothing done) when its shard was lost while
   * preparing.
   */
  async run(key: string, attempt: number, book: KeyBook | undefined): Promise<StepReport> {
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
    let result: ReconcileResult;
    try {
      result = await reconcileApplication(store.refOf(key), this.depsFor(key, book), attempt);
    } catch (defect) {
      this.options.recorder.logger.error({ key, err: String(defect) }, 'reconcile crashed (defect); backing off');
      return { _tag: 'Crashed', key, stored: store.object(key) !== undefined };
    }
    this.record(key, result, started);
    const at = this.options.clock.now();
    return { _tag: 'Reconciled', key, result, at, stored: store.object(key) !== undefined };
  }

  /**
   * The reconcile dependencies of `key`: the shared ones with the values of the key, its client behind every fence
   * (answers into the caches as they arrive), where it reads (its book says whether creates may be optimistic) and the
   * guard over its book.
   */
  private depsFor(key: string, book: KeyBook | undefined): ReconcileDeps {
    const { cluster: reads, writesFor } = this.options.access;
    const shared = this.shared;
    // Every field written out, absent ones as `undefined` (as optional fields read): one object shape for
    // every reconcile, which its many reads of `deps` stay fast on (a spread of the shared fields was not).
    return {
      now: shared.now,
      random: shared.random,
      planOptions: shared.planOptions,
      memo: shared.memo,
      translate: shared.translate,
      hooks: shared.hooks,
      primary: shared.primary,
      progressStatusAfterMs: shared.progressStatusAfterMs,
      isolatedRules: shared.isolatedRules,
      childClusterFor: shared.childClusterFor,
      cluster: new OwnWrites(writesFor(reads, key), this.answers),
      scopes: this.options.observed.scopes.current,
      reads: book?.readDirectly === true ? this.reads.confirmed : this.reads.optimistic,
      guard: book === undefined ? this.unbookedGuard : this.guardOf(book),
    };
  }

  /**
   * The guard of a key with `book`: the guard policy, then (only for a plan with patches, the only writes recorded and
   * guarded against hot loops) the key's histories. The key is the Application's own.
   */
  private guardOf(book: KeyBook | undefined): Guard {
    return (application, unguarded, live) => {
      const key = applicationKey(application.metadata);
      const plan = this.guardPolicy(key, application, unguarded);
      if (!plan.actions.some((action) => action.type === 'patch')) return { plan };
      const plannedAgainst = { versions: liveVersionsOf(live), generation: application.metadata.generation };
      return { plan: this.guardedByHistory(key, book, application, plan, plannedAgainst.versions), plannedAgainst };
    };
  }

  /** `plan` judged by the key's histories: patches the server keeps dropping, then patches someone keeps undoing. */
  private guardedByHistory(
    key: string,
    book: KeyBook | undefined,
    application: Application,
    plan: Plan,
    live: LiveVersions,
  ): Plan {
    const { patches, writes } = book ?? EMPTY_BOOK;
    const { hotLoop, perpetualDiff } = this.options.policy.bookkeeping;
    const guarding = { key, application, now: this.options.clock.now(), logger: this.options.recorder.logger };
    const kept = guardedAgainstPerpetualDiff(plan, writes, guarding, perpetualDiff);
    return guardedAgainstHotLoop(kept, patches, live, guarding, hotLoop);
  }

  /** `plan`, or the `Stalled GuardDenied` plan that writes nothing when the guard policy denies it. */
  private guardPolicy(key: string, application: Application, plan: Plan): Plan {
    const { guard, approvalsRefused } = this.options.policy;
    if (guard === undefined) return plan;
    const guarded = guardPlan({
      policy: guard,
      application,
      plan,
      ...defined({ approvalsRefused }),
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
    if (result._tag === 'Failed') reportApiError(result.error, `reconcile ${key}`);
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

/**
 * The dependencies every reconcile of this step shares: the clock read at each call, the primary kind, and the
 * impersonating clients behind the same fences as the operator's own writes, their answers into the same caches (the
 * key fenced is the Application's own).
 */
const sharedDeps = (
  { access, observed, policy, clock, random, memo }: ReconcileStepOptions,
  answers: WriteAnswers,
): SharedDeps => {
  const { childClusterFor, writesFor } = access;
  return {
    now: isoNow(clock),
    random,
    planOptions: policy.planOptions,
    memo,
    translate: policy.translate,
    ...defined({ hooks: policy.hooks }),
    primary: observed.store.primary,
    progressStatusAfterMs: policy.progressStatusAfterMs,
    ...defined({ isolatedRules: policy.isolatedRules }),
    ...(childClusterFor === undefined
      ? {}
      : {
          childClusterFor: wrapImpersonated(
            childClusterFor,
            (child, application) => new OwnWrites(writesFor(child, applicationKey(application.metadata)), answers),
          ),
        }),
  };
};

/**
 * Read-your-own-writes: each answer of a write goes into the caches as it arrives (own-writes.ts says why not later),
 * a primary's into the primary store, a child's into its kind's cache.
 */
const writeAnswersOf = ({ store, children }: StepObservation): WriteAnswers => ({
  written: (object) => (store.holds(object) ? store.apply(object) : children.apply(object)),
  deleted: (ref) => children.forget(ref),
});

/**
 * Where a step's reconciles read, for each way of reading live objects (`liveReadOptions`): the primary from the
 * store, by the reference reconciled (its queue key); live objects from the caches first; the inventory from the
 * ConfigMap cache when creates may be optimistic.
 */
const readsOf = (
  { observed, access }: ReconcileStepOptions,
  live: { readonly optimistic: LiveReadOptions; readonly confirmed: LiveReadOptions },
): { readonly optimistic: ReconcileReads; readonly confirmed: ReconcileReads } => {
  const { store } = observed;
  const reads = access.cluster;
  const application: ObjectSource = (ref) => E.right(O.fromNullable(store.object(applicationKey(ref))));
  const readsWith = (liveReads: LiveReadOptions): ReconcileReads => ({
    application,
    // Answered without a promise when the caches hold everything (a resync); else read through the server.
    live: (view, scopes) => readLiveCachesFirst(view, scopes, reads, liveReads),
    inventory: (ref) => {
      // The inventory is labelled as ours: a synced ConfigMap cache holds it, and a miss there is an absence.
      const cached = liveReads.optimisticCreates === true ? liveReads.cache?.kind(ref) : undefined;
      return cached === undefined ? reads.get(ref)() : E.right(O.fromNullable(cached.get(ref.namespace, ref.name)));
    },
  });
  return { optimistic: readsWith(live.optimistic), confirmed: readsWith(live.confirmed) };
};

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
