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
  type JsonValue,
  type LiveVersions,
  type GuardPolicy,
  type Plan,
  type PlanOptions,
  type TenancyPolicy,
  type Memo,
} from '../../core/index.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { wrapImpersonated } from '../reconcile/child-access.js';
import { readLive } from '../reconcile/live-reader.js';
import { reconcileApplication, type ReconcileDeps, type ReconcileResult } from '../reconcile/reconcile-application.js';
import type { Translator } from '../tosca/translator.js';
import type { ChildWatches } from './child-watches.js';
import { recordEvents } from './events.js';
import type { HotLoopHistory } from './hot-loop-history.js';
import type { KnownScopes } from './known-scopes.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { PrimaryStore } from './primary-store.js';
import { NOT_OWNED, type StepOutcome } from './reconcile-loop.js';

export type ReconcileStepOptions = {
  /** Reads: live objects, discovery. */
  readonly cluster: Cluster;
  /** `cluster` as a reconcile of `key` writes through it: every write fence applied (abandoned reconciles, shard ownership). */
  readonly writesFor: (cluster: Cluster, key: string) => Cluster;
  /** Whether this replica owns `key` now (sharding). */
  readonly owns: (key: string) => boolean;
  readonly store: PrimaryStore;
  readonly children: ChildWatches;
  readonly scopes: KnownScopes;
  /** The controller's memo (see ReconcileDeps.memo). */
  readonly memo: Memo;
  readonly hotLoops: HotLoopHistory;
  /** Starts watching the child kinds a primary names (on demand, never waited for). */
  readonly watchChildrenOf: (application: Application) => void;
  /** True: live objects are read from the child watches' caches; false: from the API server, per namespace. */
  readonly watchChildren: boolean;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly reportApiError: (error: ClusterError, where: string) => void;
  /** Every plan's options (readiness and tenancy merged in). */
  readonly planOptions: PlanOptions;
  readonly tenancy?: TenancyPolicy;
  /** The guard policy every plan is judged by before it runs (`--guard`; see core/guard/guard-plan.ts). */
  readonly guard?: GuardPolicy;
  /** Record Kubernetes Events for actions and failures. */
  readonly events: boolean;
  readonly translate: Translator;
  readonly hooks?: HookRuntime;
  readonly childClusterFor?: ReconcileDeps['childClusterFor'];
  readonly onReconciled?: (key: string, result: ReconcileResult) => void;
};

export class ReconcileStep {
  /** Reconciles started, total and per key (tests and benchmarks read these). */
  count = 0;
  readonly countByKey = new Map<string, number>();
  /**
   * Keys whose create was refused with AlreadyExists: a name their manifest wants is taken by an
   * object the caches do not hold (not ours, or not seen yet), so their desired objects are read
   * from the API server until the Application is gone, never assumed absent.
   */
  private readonly readDirectly = new Set<string>();

  constructor(private readonly options: ReconcileStepOptions) {}

  /** Reconciles `key` once; `NotOwned` (nothing done) when its shard was lost while preparing. */
  async run(key: string, attempt: number): Promise<StepOutcome> {
    const { store, scopes } = this.options;
    const started = this.options.clock.now();
    const cached = store.application(key);
    if (cached !== undefined) {
      await scopes.learnKindsOf(cached, this.options.cluster);
      // Watches start here, never waited for: until a kind's cache is synced its objects are read directly.
      this.options.watchChildrenOf(cached);
    }
    // Ownership can be lost while waiting above: check again right before acting.
    if (!this.options.owns(key)) return NOT_OWNED;
    this.count++;
    this.countByKey.set(key, (this.countByKey.get(key) ?? 0) + 1);
    let plannedAgainst: LiveVersions = new Map();
    const result = await reconcileApplication(
      store.refOf(key),
      this.depsFor(key, (versions) => {
        plannedAgainst = versions;
      }),
      attempt,
    );
    this.options.hotLoops.record(key, doneOf(result), plannedAgainst);
    this.record(key, result, started);
    return result;
  }

  private depsFor(key: string, plannedAgainst: (versions: LiveVersions) => void): ReconcileDeps {
    const { store, children, hotLoops, tenancy, childClusterFor, hooks } = this.options;
    const reads = this.options.cluster;
    const tenancyOption = tenancy === undefined ? {} : { tenancy };
    return {
      cluster: this.options.writesFor(reads, key),
      scopes: this.options.scopes.current,
      now: () => new Date(this.options.clock.now()).toISOString(),
      random: this.options.random,
      planOptions: this.options.planOptions,
      memo: this.options.memo,
      readApplication: async () => E.right(O.fromNullable(store.object(key))),
      readLive: (application, scopes) =>
        readLive(
          application,
          scopes,
          reads,
          this.options.watchChildren
            ? {
                cache: children.liveCache(),
                optimisticCreates: !this.readDirectly.has(key),
                memo: this.options.memo,
                ...tenancyOption,
              }
            : { perNamespace: true, memo: this.options.memo, ...tenancyOption },
        ),
      guard: (application, unguarded, live) => {
        const plan = this.guardPolicy(key, application, unguarded);
        // Only patches are recorded and guarded against hot loops: a plan without one needs no versions.
        if (!plan.actions.some((action) => action.type === 'patch')) return plan;
        const versions = liveVersionsOf(live);
        plannedAgainst(versions);
        return hotLoops.guard(key, application, plan, versions);
      },
      // Read-your-own-writes: answers of our writes go into the caches before the next reconcile.
      onWritten: (object) => (store.holds(object) ? store.apply(object) : children.apply(object)),
      onDeleted: (deleted) => children.forget(deleted),
      translate: this.options.translate,
      ...(hooks === undefined ? {} : { hooks }),
      // Impersonating clients pass the same fences as the operator's own writes.
      ...(childClusterFor === undefined
        ? {}
        : { childClusterFor: wrapImpersonated(childClusterFor, (child) => this.options.writesFor(child, key)) }),
      decode: store.primary.decode,
      statusPatch: (status) => store.primary.statusPatch(store.object(key)?.status, status),
    };
  }

  /** `plan`, or the `Stalled GuardDenied` plan that writes nothing when the guard policy denies it. */
  private guardPolicy(key: string, application: Application, plan: Plan): Plan {
    const { guard } = this.options;
    if (guard === undefined) return plan;
    const guarded = guardPlan({
      policy: guard,
      application,
      plan,
      now: new Date(this.options.clock.now()).toISOString(),
    });
    if (guarded.plan !== plan)
      this.options.logger.info(
        { key, digest: guarded.verdict.digest, rules: [...new Set(guarded.verdict.violations.map((v) => v.rule))] },
        'guard policy denied the plan',
      );
    return guarded.plan;
  }

  private record(key: string, result: ReconcileResult, started: number): void {
    const { metrics } = this.options;
    const seconds = (this.options.clock.now() - started) / 1000;
    const label = resultLabel(result);
    metrics?.reconciles.inc({ result: label });
    metrics?.reconcileDuration.observe({ result: label }, seconds);
    for (const done of doneOf(result)) metrics?.actions.inc({ type: done.action.type });
    if (result._tag === 'Done' && result.statusWritten) {
      const drift = result.status.drift?.length ?? 0;
      if (drift > 0) metrics?.driftReported.inc(drift);
      const stalled = result.status.conditions?.find((condition) => condition.type === 'Stalled');
      if (stalled?.status === 'True' && stalled.reason === 'GuardDenied') metrics?.guardDenials.inc();
    }
    if (result._tag === 'Gone') this.readDirectly.delete(key);
    if (result._tag === 'Failed') {
      if (result.error._tag === 'AlreadyExists') this.readDirectly.add(key);
      this.options.reportApiError(result.error, `reconcile ${key}`);
      const failedOn = result.execution?.failure?.action;
      if (result.error._tag === 'UnknownKind' && failedOn !== undefined) this.options.scopes.forget(failedOn.ref);
    }
    if (this.options.events && result._tag !== 'Gone') void this.recordEvents(key, result);
    this.options.logger.debug({ key, result: label, seconds }, 'reconciled');
    this.options.onReconciled?.(key, result);
  }

  private async recordEvents(key: string, result: Exclude<ReconcileResult, { _tag: 'Gone' }>): Promise<void> {
    const primary = this.options.store.object(key);
    if (primary === undefined) return;
    const failures = await recordEvents(
      this.options.writesFor(this.options.cluster, key),
      primary,
      result,
      this.options.clock.now(),
      this.options.random,
    );
    for (const failure of failures)
      this.options.logger.debug({ key, error: showClusterError(failure) }, 'could not record event');
  }
}

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
