/**
 * The operator process: controller + optional leader election + /healthz, /readyz, /metrics.
 * `app/cli` builds it from flags; embedders call `startOperator` directly.
 */
import { createServer, type Server } from 'node:http';
import type {
  Clock,
  Cluster,
  HotLoopPolicy,
  PerpetualDiffPolicy,
  PlanOptions,
  ScopeTable,
  TenancyPolicy,
} from '../../core/internal.js';
import {
  createCallbackHandler,
  defaultListenerLimits,
  listenerOptions,
  startCallbackServer,
  type CallbackHandler,
  type CallbackServer,
} from '../hooks/callback-server.js';
import type { HookRuntime } from '../hooks/runtime.js';
import { HookTokens } from '../hooks/tokens.js';
import type { ReconcileResult } from '../reconcile/reconcile-application.js';
import { createToscaTranslator, type TranslatorOptions } from '../tosca/translator.js';
import {
  approvalsRefusedBecause,
  checkAdmissionPolicies,
  garbageCollectionAtRisk,
  type AdmissionPolicyNames,
  type AdmissionPolicyReport,
} from './admission-policies.js';
import { Controller, type ControllerOptions } from './controller.js';
import { wrapImpersonated } from '../access/child-access.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createSharding, type Sharding, type ShardingOptions } from './sharding/sharding.js';
import { LeadershipTerms, type TermFence } from './terms.js';
import { defined } from '../../core/json/defined.js';

export type OperatorOptions = Pick<
  ControllerOptions,
  | 'childClusterFor'
  | 'watchChildren'
  | 'primary'
  | 'guard'
  | 'childCacheWaitMs'
  | 'progressStatusAfterMs'
  | 'eventCluster'
> & {
  readonly cluster: Cluster;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly scopes?: ScopeTable;
  readonly workers?: number;
  readonly resyncMs?: number;
  /** Full relists of every informer this often (default 6 × `resyncMs`; 0 = never). */
  readonly relistMs?: number;
  readonly namespace?: string;
  readonly readiness?: 'kstatus' | 'existence';
  /** Passed to every plan (requeue delays, …). */
  readonly planOptions?: PlanOptions;
  /**
   * Where `spec.readiness` rules run: worker threads within bounds (default), or `false`
   * (ControllerOptions.ruleIsolation).
   */
  readonly ruleIsolation?: ControllerOptions['ruleIsolation'];
  readonly hotLoop?: HotLoopPolicy;
  /**
   * Writes the API server does not keep before the object is no longer written (docs/decisions/0022-perpetual-diff.md).
   */
  readonly perpetualDiff?: PerpetualDiffPolicy;
  /** The admin's tenancy policy (`--policy`): where Applications may write (default: own namespace only). */
  readonly tenancy?: TenancyPolicy;
  readonly leaderElection?: {
    readonly namespace: string;
    readonly name: string;
    readonly identity: string;
    readonly leaseDurationMs?: number;
    readonly renewDeadlineMs?: number;
    readonly retryPeriodMs?: number;
    readonly fenceMarginMs?: number;
  };
  /** Serve /healthz, /readyz and /metrics here (port 0 picks a free one). */
  readonly listen?: { readonly host: string; readonly port: number };
  readonly onReconciled?: (key: string, result: ReconcileResult) => void;
  /**
   * Leadership was lost (not released): the CLI exits so a fresh process starts clean; without it, a fresh Controller
   * starts when leadership is regained.
   */
  readonly onLostLeadership?: () => void;
  /** Monotonic ms for lease validity (default `clock.now`; the CLI passes `performance.now`). */
  readonly monotonic?: () => number;
  /** How long in-flight reconciles may finish after leadership is lost (default 5 s; then abandoned). */
  readonly stopDeadlineMs?: number;
  /** How long the Applications' first list may take (default 2 min). */
  readonly cacheSyncTimeoutMs?: number;
  /**
   * Hook callbacks (docs/behaviour.md §6); without it Applications with hooks get no tokens and no callbacks are
   * served.
   */
  readonly hooks?: {
    /** Base URL workloads call back (the operator Service, e.g. `http://kreconcile.kreconcile-system.svc:8080`). */
    readonly callbackUrl: string;
    /** How long children wait for a workload's shutdown callback (default 5 min). */
    readonly shutdownGraceMs?: number;
    /** Serve the callbacks on their own listener (default: on `listen`, beside /healthz). */
    readonly listen?: { readonly host: string; readonly port: number };
    /** TLS (PEM) for that listener. */
    readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  };
  /** TOSCA/CSAR fetching limits and `file:` roots (docs/behaviour.md §7). */
  readonly tosca?: TranslatorOptions;
  /**
   * Run one shard (static) or a share of the shards (Leases) instead of every Application; excludes `leaderElection`.
   */
  readonly sharding?: ShardingOptions;
  /**
   * The names the admission policies were installed under (default as `kreconcile rbac` prints
   * them), checked at start: without the approvals one no approval is accepted (app/runtime/admission-policies.ts).
   * `false`: not checked, for a cluster that enforces no RBAC or admission at all (the in-memory one),
   * where whoever may edit an Application may approve anyway.
   */
  readonly admissionPolicies?: AdmissionPolicyNames | false;
};

export type Operator = {
  /** The controller of the current (or last) leadership term; a new one starts each time leadership is gained. */
  readonly controller: Controller;
  readonly metrics: Metrics;
  /** Where the HTTP endpoints listen, when enabled. */
  readonly address?: { readonly host: string; readonly port: number };
  /** Where the hook callbacks are served on their own listener, when one is configured. */
  readonly callbackAddress?: { readonly host: string; readonly port: number };
  /** What the start-up check found of the admission policies (`undefined`: installed, bound and current). */
  readonly admission: AdmissionPolicyReport;
  isLeader(): boolean;
  /**
   * Graceful stop: no new work, in-flight reconciles finish within `deadlineMs`, lease released (left to expire when
   * some had to be abandoned).
   */
  stop(deadlineMs?: number): Promise<boolean>;
};

/**
 * Starts the operator.
 * Guarantees (with leader election): a Controller runs only while this process leads, and its
 * writes pass a fence that refuses them as soon as the lease cannot be proven valid; losing the
 * lease stops that Controller at once (in-flight reconciles get `stopDeadlineMs`, then are
 * abandoned — their writes are refused by the fence anyway); gaining it again starts a fresh one.
 */
export const startOperator = async (options: OperatorOptions): Promise<Operator> => {
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics ?? createMetrics();
  const hooks = hookRuntimeOf(options);
  const admission = await checkedAdmissionPolicies(options, logger);
  const sharding =
    options.sharding === undefined
      ? undefined
      : createSharding(options.sharding, { cluster: options.cluster, clock: options.clock, logger });
  const parts: OperatorParts = { options, logger, metrics, hooks, admission, sharding };
  const terms = leadershipTermsOf(parts, controllerFactory(parts));
  // Callbacks are served before reconciles start: the first Secrets name this endpoint.
  const listeners = await startListeners(parts, terms, callbacksOf(parts, terms));
  sharding?.start();
  await terms.start();
  return operatorOf(parts, terms, listeners);
};

/** What the operator's parts are built from: the options, and what start-up made of them. */
type OperatorParts = {
  readonly options: OperatorOptions;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly hooks: HookRuntime | undefined;
  readonly admission: AdmissionPolicyReport;
  readonly sharding: Sharding | undefined;
};

/** The hooks' runtime side (callback URL, the in-memory tokens, grace period), when hooks are configured. */
const hookRuntimeOf = (options: OperatorOptions): HookRuntime | undefined =>
  options.hooks === undefined
    ? undefined
    : {
        callbackUrl: options.hooks.callbackUrl,
        tokens: new HookTokens(),
        ...defined({ shutdownGraceMs: options.hooks.shutdownGraceMs }),
      };

/**
 * The options the operator hands each term's Controller (the rest are the operator's own): its shortcuts folded into
 * the Controller's grouped values, `readiness` and `tenancy` winning over the plan options' fields.
 */
const controllerOptionsOf = (options: OperatorOptions): Omit<ControllerOptions, 'hooks'> => {
  const {
    hooks: _hookOptions,
    tosca: _toscaOptions,
    leaderElection: _election,
    monotonic: _monotonic,
    stopDeadlineMs: _deadline,
    sharding: _shardingOptions,
    admissionPolicies: _admissionPolicies,
    readiness,
    tenancy,
    hotLoop,
    perpetualDiff,
    ...controllerOptions
  } = options;
  return {
    ...controllerOptions,
    planOptions: { ...options.planOptions, ...(readiness ? { readiness } : {}), ...(tenancy ? { tenancy } : {}) },
    bookkeeping: {
      ...defined({ hotLoop, perpetualDiff }),
    },
  };
};

/** A fresh Controller per leadership term, its writes (children's and Events' too) behind the term's fence. */
const controllerFactory = ({
  options,
  logger,
  metrics,
  hooks,
  admission,
  sharding,
}: OperatorParts): ((fence: TermFence | undefined) => Controller) => {
  const shared = controllerOptionsOf(options);
  const translate = createToscaTranslator({ now: () => options.clock.now(), ...options.tosca });
  const approvals =
    admission.approvals === undefined ? {} : { approvalsRefused: approvalsRefusedBecause(admission.approvals) };
  return (fence) => {
    // Children written as a tenant's ServiceAccount pass the same leader fence as the operator's own writes.
    const childClusterFor =
      options.childClusterFor === undefined || fence === undefined
        ? options.childClusterFor
        : wrapImpersonated(options.childClusterFor, fence);
    return new Controller({
      ...shared,
      ...approvals,
      cluster: fence === undefined ? options.cluster : fence(options.cluster),
      // Events pass the leader fence too (their own view: a real server's low-priority lane).
      ...(options.eventCluster === undefined
        ? {}
        : { eventCluster: fence === undefined ? options.eventCluster : fence(options.eventCluster) }),
      logger,
      metrics,
      translate,
      ...defined({ hooks }),
      ...(sharding === undefined ? {} : { shard: sharding.ownership }),
      ...defined({ childClusterFor }),
    });
  };
};

const leadershipTermsOf = (
  { options, logger, metrics }: OperatorParts,
  controllerFor: (fence: TermFence | undefined) => Controller,
): LeadershipTerms =>
  new LeadershipTerms({
    controllerFor,
    ...(options.leaderElection === undefined
      ? {}
      : {
          election: {
            ...options.leaderElection,
            cluster: options.cluster,
            clock: options.clock,
            logger,
            ...defined({ monotonic: options.monotonic }),
          },
        }),
    metrics,
    logger,
    stopDeadlineMs: options.stopDeadlineMs ?? 5_000,
    ...defined({ onLostLeadership: options.onLostLeadership }),
  });

/** The hook callbacks' handler, when hooks are configured: an accepted callback queues its Application. */
const callbacksOf = ({ options, logger, hooks }: OperatorParts, terms: LeadershipTerms): CallbackHandler | undefined =>
  hooks === undefined
    ? undefined
    : createCallbackHandler({
        // Callers are checked against the in-memory tokens first; others reach the API server only within a shared
        // budget.
        // Any replica serves callbacks (the Service balances over all): not behind the leader's write fence.
        cluster: options.cluster,
        now: () => options.clock.now(),
        logger,
        tokens: hooks.tokens,
        // Hook Secrets are read as the Application's children are (its ServiceAccount under impersonation).
        ...defined({ childClusterFor: options.childClusterFor, shutdownGraceMs: hooks.shutdownGraceMs }),
        onAccepted: (key) => terms.controller.enqueue(key),
      });

type Listeners = { readonly server: Server | undefined; readonly callbackServer: CallbackServer | undefined };

/**
 * The callbacks' own listener when one is configured, then /healthz, /readyz and /metrics (with the
 * callbacks beside them otherwise): bound before any reconcile starts (/readyz answers 503 until
 * then), so a busy port fails the start with nothing running.
 */
const startListeners = async (
  { options, metrics }: OperatorParts,
  terms: LeadershipTerms,
  callbacks: CallbackHandler | undefined,
): Promise<Listeners> => {
  const ownListener = callbacks === undefined ? undefined : options.hooks?.listen;
  const callbackServer: CallbackServer | undefined =
    ownListener === undefined || callbacks === undefined
      ? undefined
      : await startCallbackServer({
          listen: ownListener,
          handler: callbacks,
          ...defined({ tls: options.hooks?.tls }),
        });
  const server =
    options.listen === undefined
      ? undefined
      : await serve(
          options.listen,
          metrics,
          () => terms.ready,
          callbackServer === undefined ? callbacks : undefined,
        ).catch(async (error: unknown) => {
          await callbackServer?.close();
          throw error;
        });
  return { server, callbackServer };
};

/** The running operator: its current Controller, addresses, and the graceful stop. */
const operatorOf = (
  { options, metrics, admission, sharding }: OperatorParts,
  terms: LeadershipTerms,
  { server, callbackServer }: Listeners,
): Operator => {
  const address = server === undefined ? undefined : addressOf(server, options.listen?.host ?? '127.0.0.1');
  return {
    get controller() {
      return terms.controller;
    },
    metrics,
    admission,
    ...defined({ address }),
    ...(callbackServer === undefined ? {} : { callbackAddress: callbackServer.address }),
    isLeader: () => terms.isLeader,
    stop: async (deadlineMs = 30_000) => {
      const finished = await terms.stop(deadlineMs);
      // Reconciles abandoned at the deadline may have writes on their way: releasing now would let a
      // standby write beside them; the Leases expire instead (the fence margin covers their transit).
      await sharding?.stop({ release: finished });
      await terms.resign(finished);
      await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
      await callbackServer?.close();
      return finished;
    },
  };
};

/** The admission policies' check, each problem logged as an error saying what is at risk. */
const checkedAdmissionPolicies = async (options: OperatorOptions, logger: Logger): Promise<AdmissionPolicyReport> => {
  if (options.admissionPolicies === false) return { approvals: undefined, garbageCollection: undefined };
  const report = await checkAdmissionPolicies(
    options.cluster,
    options.admissionPolicies ?? {},
    options.guard !== undefined,
  );
  if (report.approvals !== undefined) logger.error({}, approvalsRefusedBecause(report.approvals));
  if (report.garbageCollection !== undefined) logger.error({}, garbageCollectionAtRisk(report.garbageCollection));
  return report;
};

const serve = (
  listen: { host: string; port: number },
  metrics: Metrics,
  isReady: () => boolean,
  callbacks?: CallbackHandler,
): Promise<Server> =>
  new Promise((resolve, reject) => {
    const limits = defaultListenerLimits;
    const server = createServer(listenerOptions(limits), (request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (callbacks?.(request, response) === true) return;
      if (path === '/healthz') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      if (path === '/readyz') {
        const ok = isReady();
        response.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'not ready');
        return;
      }
      if (path === '/metrics') {
        void metrics.registry
          .metrics()
          .then((text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text));
        return;
      }
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    server.maxConnections = limits.maxConnections;
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve(server));
  });

const addressOf = (server: Server, host: string): { host: string; port: number } => {
  const address = server.address();
  return { host, port: typeof address === 'object' && address !== null ? address.port : 0 };
};
