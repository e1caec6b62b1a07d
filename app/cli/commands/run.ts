/** `kreconcile run`: the operator, against a cluster or the embedded in-memory one (`--memory`). */
import { Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import { sequenceT } from 'fp-ts/lib/Apply.js';
import * as E from 'fp-ts/lib/Either.js';
import { pino } from 'pino';
import prettyModule from 'pino-pretty';
import type { KubernetesCluster, KubernetesClusterOptions } from '../../../adapters/kubernetes/index.js';
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import { systemClock } from '../../../adapters/memory/index.js';
import {
  DEFAULT_KNOWN_MANAGERS,
  isServiceAccountName,
  showClusterError,
  type Application,
  type Cluster,
  type Resource,
} from '../../../core/index.js';
import { LEADER_LEASE_NAME } from '../../manifests/rbac.js';
import { childClusters, type ServiceAccountPolicy } from '../../access/child-access.js';
import { registerFlowControlMetrics } from '../../runtime/flow-metrics.js';
import { DEFAULT_PROGRESS_STATUS_AFTER_MS } from '../../runtime/controller.js';
import { createMetrics } from '../../runtime/metrics.js';
import { startOperator, type Operator, type OperatorOptions } from '../../runtime/operator.js';
import { MAX_SHARDS, shardingFromFlags } from '../../runtime/sharding/sharding.js';
import type { Logger } from '../../logging/logger.js';
import { converged, type ReconcileResult } from '../../reconcile/reconcile-application.js';
import { errnoCode, usageError } from '../cli-error.js';
import { positiveNumber, wholeNumber } from '../numeric-flags.js';
import {
  collect,
  contextOption,
  filenameOption,
  recursiveOption,
  kubeconfigOption,
  namespaceOption,
  reportErrors,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import { kubeconfigProblem } from '../live/kubeconfig.js';
import { checkCluster } from '../live/startup-check.js';
import { readFieldManagers, readPolicy } from '../policy/read-policy.js';
import { guardSchemaErrors, readGuard } from '../guard/read-guard.js';
import { builtinCatalog } from '../input/schema-catalog.js';
import { parseAllowlist } from '../../tosca/address-policy.js';
import { applyDrift, parseDrift, type Drift } from '../operate/drift.js';
import { startEmbeddedCluster } from '../operate/embedded-cluster.js';
import { listenFailure, parseListen, probeListen, type ListenAddress } from '../operate/listen.js';
import { progressLines } from '../operate/progress.js';
import { convergenceTracker } from '../planning/verify-converges.js';
import { COLOURS, styleFor } from '../style.js';

type Options = {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly namespace: string;
  readonly memory?: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly inCluster?: boolean;
  readonly workers: string;
  readonly qps?: string;
  readonly burst?: string;
  readonly maxInFlight?: string;
  readonly resync: string;
  readonly relist?: string;
  readonly watchNamespace?: string;
  readonly leaderElect?: boolean;
  readonly leaderElectionNamespace: string;
  readonly listen?: string;
  readonly logLevel: string;
  readonly drift: ReadonlyArray<string>;
  readonly exitWhenConverged?: boolean;
  readonly timeout: string;
  readonly shutdownDeadline: string;
  readonly readiness: 'kstatus' | 'existence';
  readonly progressStatusAfter: string;
  readonly callbackUrl?: string;
  readonly callbackListen?: string;
  readonly callbackTlsCert?: string;
  readonly callbackTlsKey?: string;
  readonly shutdownGrace: string;
  readonly toscaFileRoot: ReadonlyArray<string>;
  readonly policy?: string;
  readonly fieldManagers?: string;
  readonly guard?: string;
  readonly toscaAllowHost: ReadonlyArray<string>;
  readonly toscaAllowHttp?: boolean;
  readonly shards?: string;
  readonly shard?: string;
  readonly sharding?: string;
  readonly defaultServiceAccount?: string;
  readonly requireServiceAccount?: boolean;
  readonly watchChildren?: boolean;
};

const EXAMPLES = `
Examples:
  # the embedded default: an in-memory API server, an example Application, and a drift corrected
  kreconcile run --memory -f examples/webapp/app.yaml --drift 'Deployment/web spec.replicas=5' --exit-when-converged
  # a real cluster (current kubeconfig context), two instances with leader election
  kreconcile run --leader-elect --listen :8080
  # inside a pod: in-cluster config is the default when KUBERNETES_SERVICE_HOST is set
  kreconcile run --leader-elect --leader-election-namespace kreconcile-system
  # replicas sharing 12 shards of the Applications through Leases (docs/runtime.md, Sharding)
  kreconcile run --shards 12 --sharding lease --leader-election-namespace kreconcile-system

Progress goes to stdout (one line per reconcile that acted); logs go to stderr (JSON, or
readable on a terminal). SIGTERM/SIGINT stop taking work, finish in-flight reconciles within
--shutdown-deadline and release the leader lease. A replica that loses the lease exits at
once with code 1 (its writes are fenced from that moment) and is restarted clean; see docs/runtime.md.

${EXIT_CODES_HELP}
`;

const seconds = (text: string, flag: string): E.Either<string, number> => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) return E.left(`${flag} ${text}: expected a duration such as 500ms, 30s, 5m or 1h`);
  const factor = match[2] === 'ms' ? 1 : match[2] === 'm' ? 60_000 : match[2] === 'h' ? 3_600_000 : 1_000;
  return E.right(Number(match[1]) * factor);
};

/**
 * The longest `--progress-status-after`: while it runs a new Application shows no status at all, so a
 * longer one would hide a stuck rollout from `kubectl get` for longer than any controller's lag explains.
 */
const MAX_PROGRESS_STATUS_AFTER_MS = 60_000;

/** `--progress-status-after`: a duration from 0 (the progress status is written at once) to a minute. */
const progressStatusAfter = (text: string): E.Either<string, number> =>
  E.chain((ms: number) =>
    ms <= MAX_PROGRESS_STATUS_AFTER_MS
      ? E.right(ms)
      : E.left(
          `--progress-status-after ${text}: at most 1m (a new Application shows no status while its first one is held); 0 writes it at once`,
        ),
  )(seconds(text, '--progress-status-after'));

type Listeners = { readonly listen?: ListenAddress; readonly callbackListen?: ListenAddress };

/** The listener flags, parsed; then bound once each, so a busy port fails before anything starts. */
const listeners = async (options: Options): Promise<E.Either<string, Listeners>> => {
  const flags = [
    ['--listen', options.listen],
    ['--callback-listen', options.callbackListen],
  ] as const;
  const parsed: Record<string, ListenAddress> = {};
  for (const [flag, text] of flags) {
    if (text === undefined) continue;
    const address = parseListen(flag, text);
    if (E.isLeft(address)) return address;
    const free = await probeListen(flag, text, address.right);
    if (E.isLeft(free)) return free;
    parsed[flag] = address.right;
  }
  return E.right({
    ...(parsed['--listen'] === undefined ? {} : { listen: parsed['--listen'] }),
    ...(parsed['--callback-listen'] === undefined ? {} : { callbackListen: parsed['--callback-listen'] }),
  });
};

/**
 * Hook callbacks: the URL workloads call (default: the operator Service in `POD_NAMESPACE`, or
 * kreconcile-system), and where they are served (`--callback-listen`, optionally with TLS; default
 * on `--listen`). Tokens need no flag: the operator generates them (node:crypto) and keeps them in
 * each Application's hook Secret.
 */
const hookOptions = async (
  context: CommandContext,
  options: Options,
  shutdownGraceMs: number,
  callbackListen: ListenAddress | undefined,
): Promise<E.Either<string, NonNullable<Parameters<typeof startOperator>[0]['hooks']>>> => {
  const tlsFiles = [options.callbackTlsCert, options.callbackTlsKey].filter((file) => file !== undefined);
  if (tlsFiles.length === 1) return E.left('--callback-tls-cert and --callback-tls-key go together');
  if (tlsFiles.length === 2 && options.callbackListen === undefined)
    return E.left("--callback-tls-cert/--callback-tls-key need --callback-listen (the callbacks' own listener)");
  const callbackUrl =
    options.callbackUrl ?? `http://kreconcile.${context.io.env.POD_NAMESPACE ?? 'kreconcile-system'}.svc:8080`;
  try {
    const parsed = new URL(callbackUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return E.left(`--callback-url ${callbackUrl}: use an http or https URL`);
  } catch {
    return E.left(`--callback-url ${callbackUrl}: not a valid URL`);
  }
  let tls: { cert: string; key: string } | undefined;
  if (options.callbackTlsCert !== undefined && options.callbackTlsKey !== undefined) {
    try {
      tls = {
        cert: await context.io.readFile(options.callbackTlsCert),
        key: await context.io.readFile(options.callbackTlsKey),
      };
    } catch (error) {
      return E.left(`cannot read the callback TLS certificate or key: ${errnoCode(error) ?? String(error)}`);
    }
  }
  return E.right({
    callbackUrl,
    shutdownGraceMs,
    ...(callbackListen === undefined ? {} : { listen: callbackListen }),
    ...(tls === undefined ? {} : { tls }),
  });
};

/**
 * Logs go to stderr in one format, chosen by what stderr is (not stdout, which carries the progress
 * text): readable lines on a terminal, JSON lines otherwise (a file, a pipe, a log collector).
 */
export const makeLogger = (context: CommandContext, level: string): Logger => {
  const sink = { write: (line: string) => context.io.stderr.write(line) };
  const onTerminal = context.io.stderrIsTTY === true;
  const base = pino(
    { level, base: { component: 'kreconcile' } },
    onTerminal ? pinoPretty(sink, styleFor({ ...context.io, isTTY: true }) === COLOURS) : sink,
  );
  return {
    debug: (fields, message) => base.debug(fields, message),
    info: (fields, message) => base.info(fields, message),
    warn: (fields, message) => base.warn(fields, message),
    error: (fields, message) => base.error(fields, message),
  };
};

// pino-pretty as a synchronous stream (no worker thread), so lines interleave with progress output.
const pinoPretty = (sink: { write: (line: string) => void }, colorize: boolean) => {
  const prettyFactory = prettyModule.prettyFactory({
    colorize,
    translateTime: 'HH:MM:ss',
    ignore: 'pid,hostname,component',
  });
  return { write: (line: string) => sink.write(prettyFactory(JSON.parse(line))) };
};

/**
 * `--qps`, `--burst`, `--max-in-flight`: client flow control towards a real API server (the
 * adapter's defaults when absent; docs/runtime.md, Flow control). Only real clusters have one.
 */
const flowControlFlags = (
  options: Options,
): E.Either<string, { qps?: number; burst?: number; maxInFlight?: number }> => {
  const flags = [
    ['--qps', 'qps', options.qps, /^\d+(\.\d+)?$/, 'a number of requests per second above 0, e.g. 50'],
    ['--burst', 'burst', options.burst, /^\d+$/, 'a whole number of requests ≥ 1, e.g. 100'],
    ['--max-in-flight', 'maxInFlight', options.maxInFlight, /^\d+$/, 'a whole number of requests ≥ 1, e.g. 32'],
  ] as const;
  const given = flags.filter(([, , text]) => text !== undefined);
  if (given.length > 0 && options.memory === true)
    return E.left(`${given.map(([flag]) => flag).join(', ')}: limit requests to a real API server; drop with --memory`);
  const settings: { qps?: number; burst?: number; maxInFlight?: number } = {};
  for (const [flag, key, text, shape, expected] of given) {
    const value = Number(text);
    if (text === undefined || !shape.test(text.trim()) || !(value > 0))
      return E.left(`${flag} ${text}: expected ${expected}`);
    settings[key] = value;
  }
  return E.right(settings);
};

/** The cluster of the kubeconfig (or the pod), checked with one read before anything starts. */
const connect = async (
  options: Options,
  context: CommandContext,
  clusterOptions: KubernetesClusterOptions,
): Promise<E.Either<string, KubernetesCluster>> => {
  const inCluster =
    options.inCluster === true ||
    (options.kubeconfig === undefined &&
      options.context === undefined &&
      context.io.env.KUBERNETES_SERVICE_HOST !== undefined);
  const target = {
    ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
    ...(options.context === undefined ? {} : { context: options.context }),
  };
  const missing = inCluster ? undefined : kubeconfigProblem(target, context.io.env, existsSync);
  if (missing !== undefined) return E.left(missing);
  let cluster: KubernetesCluster;
  try {
    const adapter = await import('../../../adapters/kubernetes/index.js');
    cluster = adapter.createKubernetesCluster(inCluster ? { inCluster: true } : target, clusterOptions);
  } catch (error) {
    return E.left(error instanceof Error ? error.message : String(error));
  }
  const checked = await checkCluster(cluster, options.watchNamespace ?? 'default');
  return E.isLeft(checked) ? checked : E.right(cluster);
};

/**
 * Impersonation (`spec.serviceAccountName`, `--default-service-account`, `--require-service-account`):
 * whose rights children are written with, and whether the operator watches children itself. When
 * every Application is impersonated the operator's RBAC holds no child rights, so it cannot watch them.
 */
const servicePolicy = (options: Options): E.Either<string, ServiceAccountPolicy> => {
  if (options.defaultServiceAccount !== undefined && !isServiceAccountName(options.defaultServiceAccount)) {
    return E.left(
      `--default-service-account ${options.defaultServiceAccount}: not a ServiceAccount name (lower-case letters, digits, "-" and ".")`,
    );
  }
  const policy: ServiceAccountPolicy = {
    ...(options.defaultServiceAccount === undefined ? {} : { defaultServiceAccount: options.defaultServiceAccount }),
    ...(options.requireServiceAccount === true ? { require: true } : {}),
  };
  // The in-memory cluster has no RBAC to enforce: refuse rather than pretend.
  return options.memory === true && (policy.defaultServiceAccount !== undefined || policy.require === true)
    ? E.left(
        '--default-service-account and --require-service-account need a real cluster (the in-memory one has no RBAC)',
      )
    : E.right(policy);
};

const identityOptions = (
  options: Options,
  policy: ServiceAccountPolicy,
  cluster: KubernetesCluster | undefined,
): Pick<OperatorOptions, 'childClusterFor' | 'watchChildren'> => {
  if (cluster === undefined) return {};
  const mandatory = policy.defaultServiceAccount !== undefined || policy.require === true;
  return {
    childClusterFor: childClusters(policy, cluster.impersonate),
    watchChildren: options.watchChildren ?? !mandatory,
  };
};

const execute = async (context: CommandContext, options: Options): Promise<void> => {
  const { io } = context;
  const fail = (message: string): void => {
    reportErrors(io, [usageError(message)]);
    context.exit(EXIT_ERROR);
  };
  const durations = sequenceT(E.Apply)(
    seconds(options.resync, '--resync'),
    seconds(options.timeout, '--timeout'),
    seconds(options.shutdownDeadline, '--shutdown-deadline'),
    seconds(options.shutdownGrace, '--shutdown-grace'),
  );
  if (E.isLeft(durations)) return fail(durations.left);
  const [resyncMs, timeoutMs, deadlineMs, shutdownGraceMs] = durations.right;
  const relist = options.relist === undefined ? E.right(undefined) : seconds(options.relist, '--relist');
  if (E.isLeft(relist)) return fail(relist.left);
  const progressStatusAfterMs = progressStatusAfter(options.progressStatusAfter);
  if (E.isLeft(progressStatusAfterMs)) return fail(progressStatusAfterMs.left);
  const allowed = parseAllowlist(options.toscaAllowHost);
  if ('error' in allowed) return fail(`--tosca-allow-host ${allowed.error}`);
  const identity = io.env.POD_NAME ?? `kreconcile-${Math.random().toString(16).slice(2, 10)}`;
  const sharding = shardingFromFlags(options, { namespace: options.leaderElectionNamespace, identity });
  if (E.isLeft(sharding)) return fail(sharding.left);
  const drifts = E.sequenceArray(options.drift.map(parseDrift));
  if (E.isLeft(drifts)) return fail(drifts.left);
  const policy = servicePolicy(options);
  if (E.isLeft(policy)) return fail(policy.left);
  const flow = flowControlFlags(options);
  if (E.isLeft(flow)) return fail(flow.left);
  const metrics = createMetrics();
  const flowMetrics = registerFlowControlMetrics(metrics.registry);
  if (!options.memory && options.filename.length > 0)
    return fail(
      '-f loads Applications into the embedded cluster: use it with --memory (apply them to a real cluster with kubectl)',
    );
  if (!options.memory && (drifts.right.length > 0 || options.exitWhenConverged))
    return fail('--drift and --exit-when-converged are demonstrations for --memory');
  const tenancy = options.policy === undefined ? E.right(undefined) : await readPolicy(io, options.policy);
  if (E.isLeft(tenancy)) {
    reportErrors(io, tenancy.left);
    return context.exit(EXIT_ERROR);
  }
  const managers =
    options.fieldManagers === undefined ? E.right(undefined) : await readFieldManagers(io, options.fieldManagers);
  if (E.isLeft(managers)) {
    reportErrors(io, managers.left);
    return context.exit(EXIT_ERROR);
  }
  const guard = options.guard === undefined ? E.right(undefined) : await readGuard(io, options.guard);
  if (E.isLeft(guard)) {
    reportErrors(io, guard.left);
    return context.exit(EXIT_ERROR);
  }
  // Guards fail closed (issue 36): a rule with a misspelt built-in kind or path never starts the operator.
  const unguarded = guard.right === undefined ? [] : guardSchemaErrors(guard.right, builtinCatalog(io), { open: true });
  if (unguarded.length > 0) {
    reportErrors(io, unguarded);
    return context.exit(EXIT_ERROR);
  }
  const bound = await listeners(options);
  if (E.isLeft(bound)) return fail(bound.left);
  const hooks = await hookOptions(context, options, shutdownGraceMs, bound.right.callbackListen);
  if (E.isLeft(hooks)) return fail(hooks.left);
  let cluster: Cluster;
  let memory: MemoryCluster | undefined;
  let kubernetes: KubernetesCluster | undefined;
  let loaded: ReadonlyArray<string> = [];
  if (options.memory) {
    if (options.filename.length === 0) return fail('--memory needs Applications: kreconcile run --memory -f app.yaml');
    const inputs = await readManifestInputs(io, options);
    if (E.isLeft(inputs)) {
      reportErrors(io, inputs.left);
      return context.exit(EXIT_ERROR);
    }
    const started = await startEmbeddedCluster({
      crds: inputs.right.crds,
      applications: inputs.right.applications.map((a) => a.application),
    });
    if (E.isLeft(started)) return fail(started.left);
    memory = started.right;
    cluster = memory;
    loaded = inputs.right.applications.map(({ application }) => applicationKey(application));
    io.stdout.write(`embedded in-memory API server started with ${inputs.right.applications.length} Application(s)\n`);
  } else {
    const connected = await connect(options, context, {
      flowControl: { ...flow.right, onWait: flowMetrics.observeWait },
    });
    if (E.isLeft(connected)) return fail(connected.left);
    cluster = connected.right;
    kubernetes = connected.right;
    flowMetrics.readFrom(kubernetes.flowControl.stats);
  }
  const impersonation = identityOptions(
    options,
    { ...policy.right, ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }) },
    kubernetes,
  );
  const style = styleFor(io);
  const logger = makeLogger(context, options.logLevel);
  // Every Application loaded from every -f file must be Ready, not only those reconciled so far.
  const tracker = convergenceOf(loaded);
  let settled: (() => void) | undefined;
  // With --memory, a perpetual diff or an oscillation is reported as `plan --verify-converges` reports it.
  const nonConvergence = memory === undefined ? undefined : convergenceTracker();
  const onReconciled = (key: string, result: ReconcileResult): void => {
    for (const line of progressLines(key, result, style, new Date(systemClock.now()).toISOString().slice(11, 19)))
      io.stdout.write(`${line}\n`);
    for (const line of nonConvergence?.(key, result) ?? []) io.stderr.write(`warning: ${line}\n`);
    tracker.record(key, result);
    if (tracker.allReady()) settled?.();
  };
  let lostLeadership: (() => void) | undefined;
  const lost = new Promise<'lost'>((resolve) => {
    lostLeadership = () => resolve('lost');
  });
  let operator: Operator;
  try {
    operator = await startOperator({
      cluster,
      // Events at low priority: sent with what the reconciles leave of --qps, dropped when too many wait.
      ...(kubernetes === undefined ? {} : { eventCluster: kubernetes.lowPriority }),
      clock: systemClock,
      random: Math.random,
      logger,
      metrics,
      onReconciled,
      workers: Number(options.workers),
      resyncMs,
      readiness: options.readiness,
      progressStatusAfterMs: progressStatusAfterMs.right,
      ...(relist.right === undefined ? {} : { relistMs: relist.right }),
      ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
      ...(managers.right === undefined
        ? {}
        : { planOptions: { fieldManagers: [...DEFAULT_KNOWN_MANAGERS, ...managers.right] } }),
      ...(guard.right === undefined ? {} : { guard: guard.right.policy }),
      // The in-memory cluster enforces no RBAC and no admission policy: there is nothing to check.
      ...(kubernetes === undefined ? { admissionPolicies: false as const } : {}),
      ...(options.watchNamespace ? { namespace: options.watchNamespace } : {}),
      ...(bound.right.listen === undefined ? {} : { listen: bound.right.listen }),
      ...(options.leaderElect
        ? { leaderElection: { namespace: options.leaderElectionNamespace, name: LEADER_LEASE_NAME, identity } }
        : {}),
      ...(sharding.right === undefined
        ? {}
        : {
            sharding:
              sharding.right.mode === 'lease'
                ? { ...sharding.right, monotonic: () => performance.now() }
                : sharding.right,
          }),
      // Like controller-runtime: a process that lost the lease exits (code 1) and is restarted clean.
      onLostLeadership: () => {
        logger.error({}, 'lost leadership: exiting');
        context.exit(EXIT_ERROR);
        lostLeadership?.();
      },
      monotonic: () => performance.now(),
      stopDeadlineMs: deadlineMs,
      hooks: hooks.right,
      tosca: {
        fileRoots: options.toscaFileRoot,
        allowHosts: options.toscaAllowHost,
        allowHttp: options.toscaAllowHttp === true,
        logger,
      },
      ...impersonation,
    });
  } catch (error) {
    // Another process took the probed port in the meantime (nothing has started: the operator binds first).
    if (!isListenError(error)) throw error;
    const callbacks = bound.right.callbackListen !== undefined && error.port === bound.right.callbackListen.port;
    return fail(
      callbacks
        ? listenFailure('--callback-listen', options.callbackListen ?? '', error)
        : listenFailure('--listen', options.listen ?? '', error),
    );
  }
  if (operator.callbackAddress)
    io.stdout.write(
      `serving hook callbacks on ${operator.callbackAddress.host}:${operator.callbackAddress.port}${hooks.right.tls ? ' (TLS)' : ''}\n`,
    );
  else if (!options.listen) logger.info({}, 'hook callbacks are not served: give --listen or --callback-listen');
  if (operator.address)
    io.stdout.write(`serving /healthz /readyz /metrics on ${operator.address.host}:${operator.address.port}\n`);
  if (options.exitWhenConverged && memory !== undefined)
    return demonstrate(
      context,
      operator,
      memory,
      drifts.right,
      timeoutMs,
      deadlineMs,
      (resolve, initial) => {
        settled = resolve;
        // Convergence may have happened while the operator was still starting its listeners.
        if (initial && tracker.allReady()) resolve();
      },
      tracker.notReady,
    );
  const signalled = new Promise<'signal'>((resolve) => {
    io.onSignal?.((signal) => {
      io.stdout.write(`${signal}: shutting down\n`);
      resolve('signal');
    });
  });
  const why = await Promise.race([signalled, lost]);
  // After a lost lease the Controller is already stopping (its writes are fenced): wait at most the deadline.
  const finished = await operator.stop(deadlineMs);
  if (why === 'lost') {
    io.stdout.write('lost leadership: exited\n');
    return;
  }
  io.stdout.write(finished ? 'stopped\n' : `stopped with reconciles still running after ${deadlineMs} ms\n`);
};

/** The key the operator reconciles an Application under (`namespace/name`), as the embedded cluster stores it. */
/** A Node `listen` failure (EADDRINUSE, EACCES): its `syscall` is 'listen' and its `port` the one asked for. */
const isListenError = (error: unknown): error is Error & { readonly syscall: 'listen'; readonly port?: number } =>
  error instanceof Error && 'syscall' in error && error.syscall === 'listen';

const applicationKey = (application: Application): string =>
  `${application.metadata.namespace ?? 'default'}/${application.metadata.name}`;

/** Why a reconcile left its Application not Ready, in a few words. */
const notReadyReason = (result: ReconcileResult): string => {
  if (result._tag === 'Gone') return 'deleted';
  if (result._tag === 'Failed') return `failed: ${showClusterError(result.error)}`;
  const stalled = result.status.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
  if (stalled !== undefined) return `Stalled (${stalled.reason}): ${stalled.message}`;
  const ready = result.status.conditions?.find((c) => c.type === 'Ready');
  return `Reconciling${ready?.reason === undefined ? '' : ` (${ready.reason})`}${ready?.message ? `: ${ready.message}` : ''}`;
};

/**
 * Convergence of a set of Applications: the last result of each, by key. Converged only when
 * every expected Application's last reconcile left it Ready (an Application never reconciled is not).
 */
const convergenceOf = (expected: ReadonlyArray<string>) => {
  const last = new Map<string, ReconcileResult>();
  const isReady = (key: string): boolean => {
    const result = last.get(key);
    return result !== undefined && converged(result);
  };
  return {
    record: (key: string, result: ReconcileResult): void => {
      last.set(key, result);
    },
    allReady: (): boolean => expected.length > 0 && expected.every(isReady),
    notReady: (): ReadonlyArray<string> =>
      expected.flatMap((key) => {
        if (isReady(key)) return [];
        const result = last.get(key);
        return [`${key} is not Ready (${result === undefined ? 'never reconciled' : notReadyReason(result)})`];
      }),
  };
};

/** The README's main job: converge, apply the drifts, converge again, exit 0 (1 on timeout). */
const demonstrate = async (
  context: CommandContext,
  operator: Operator,
  cluster: MemoryCluster,
  drifts: ReadonlyArray<Drift>,
  timeoutMs: number,
  deadlineMs: number,
  onSettled: (resolve: () => void, initial: boolean) => void,
  notReady: () => ReadonlyArray<string>,
): Promise<void> => {
  const { io } = context;
  const converge = (what: string): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      onSettled(() => {
        clearTimeout(timer);
        resolve(true);
      }, what === 'initial');
    });
  if (!(await converge('initial')))
    return finish(context, operator, deadlineMs, `not converged within ${timeoutMs} ms: ${notReady().join('; ')}`);
  io.stdout.write('converged: every Application is Ready\n');
  for (const drift of drifts) {
    const applied = await applyDrift(cluster, cluster.objects(), drift);
    if (E.isLeft(applied)) return finish(context, operator, deadlineMs, applied.left);
    io.stdout.write(
      `drift: another actor set ${drift.path.join('.')}=${JSON.stringify(drift.value)} on ${drift.kind}/${drift.name}\n`,
    );
  }
  if (drifts.length > 0) {
    if (!(await converge('after drift')))
      return finish(
        context,
        operator,
        deadlineMs,
        `drift not corrected within ${timeoutMs} ms: ${notReady().join('; ')}`,
      );
    io.stdout.write('drift corrected: every Application is Ready again\n');
  }
  return finish(context, operator, deadlineMs);
};

const finish = async (
  context: CommandContext,
  operator: Operator,
  deadlineMs: number,
  failure?: string,
): Promise<void> => {
  await operator.stop(deadlineMs);
  if (failure !== undefined) {
    reportErrors(context.io, [usageError(failure)]);
    context.exit(EXIT_ERROR);
    return;
  }
  context.exit(EXIT_OK);
};

export const runCommand: CliCommand = {
  name: 'run',
  create: (context) =>
    new Command('run')
      .summary('run the operator (against a cluster, or the embedded in-memory one)')
      .description(
        'Runs the Application controller: watches Applications and their children, reconciles them (plan, then execute), writes status and Events; with leader election, health probes and Prometheus metrics.',
      )
      .addOption(new Option('--memory', 'use the embedded in-memory API server, loaded with the -f files'))
      .addOption(filenameOption('Application and CRD file(s) to load into the embedded cluster'))
      .addOption(recursiveOption())
      .addOption(namespaceOption())
      .addOption(kubeconfigOption())
      .addOption(contextOption())
      .addOption(new Option('--in-cluster', 'use the pod service account (default inside a pod)'))
      .addOption(
        new Option('--workers <n>', 'concurrent reconciles of different Applications')
          .default('2')
          .argParser(wholeNumber(1)),
      )
      .addOption(
        new Option('--qps <n>', 'API requests per second, all clients together (default: 50)').argParser(
          positiveNumber,
        ),
      )
      .addOption(
        new Option(
          '--burst <n>',
          'API requests allowed at once above --qps after a quiet period (default: 100)',
        ).argParser(wholeNumber(1)),
      )
      .addOption(
        new Option(
          '--max-in-flight <n>',
          'API requests awaiting an answer at once, watches excluded (default: 32)',
        ).argParser(wholeNumber(1)),
      )
      .addOption(new Option('--resync <duration>', 'reconcile every Application at least this often').default('10m'))
      .addOption(
        new Option(
          '--relist <duration>',
          'list Applications and watched children in full this often (heals watch events a proxy lost; 0 = never)',
        ).default(undefined, '6 × --resync'),
      )
      .addOption(new Option('--watch-namespace <namespace>', "only this namespace's Applications (default: all)"))
      .addOption(
        new Option('--leader-elect', 'elect a leader with a coordination.k8s.io Lease; only the leader reconciles'),
      )
      .addOption(
        new Option('--leader-election-namespace <namespace>', 'namespace of the leader Lease').default('default'),
      )
      .addOption(
        new Option(
          '--shards <n>',
          'split the Applications into n shards by a hash of namespace/name (with --shard or --sharding lease)',
        ).argParser(wholeNumber(1, MAX_SHARDS)),
      )
      .addOption(
        new Option(
          '--shard <i>',
          'with --shards: run only shard i (0 ≤ i < n), one process per shard, no Leases',
        ).argParser(wholeNumber(0, MAX_SHARDS - 1)),
      )
      .addOption(
        new Option(
          '--sharding <mode>',
          'with --shards: lease = replicas share the shards through Leases in --leader-election-namespace (takeover, rebalancing)',
        ).choices(['lease']),
      )
      .addOption(new Option('--listen <[host]:port>', 'serve /healthz, /readyz and /metrics'))
      .addOption(
        new Option(
          '--readiness <rule>',
          'when children count as ready: kstatus (rolled out, complete, bound, …) or existence',
        )
          .choices(['kstatus', 'existence'])
          .default('kstatus'),
      )
      .addOption(
        new Option(
          '--progress-status-after <duration>',
          "hold a new Application's first status while it only waits for its children to become ready, up to this long after they were created (0 = write it at once)",
        ).default(`${DEFAULT_PROGRESS_STATUS_AFTER_MS / 1_000}s`),
      )
      .addOption(
        new Option('--log-level <level>', 'debug, info, warn or error')
          .choices(['debug', 'info', 'warn', 'error'])
          .default('info'),
      )
      .addOption(
        new Option(
          '--drift <"Kind/name path=value">',
          'with --memory: once converged, another actor sets path=value (repeatable)',
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(
        new Option(
          '--exit-when-converged',
          'with --memory: exit 0 once every Application is Ready (after the drifts are corrected)',
        ),
      )
      .addOption(
        new Option('--timeout <duration>', 'with --exit-when-converged: give up after this long').default('60s'),
      )
      .addOption(
        new Option('--shutdown-deadline <duration>', 'how long in-flight reconciles may finish on SIGTERM').default(
          '30s',
        ),
      )
      .addOption(
        new Option('--callback-url <url>', 'base URL workloads call back for the complete/shutdown hooks').default(
          undefined,
          'http://kreconcile.$POD_NAMESPACE.svc:8080',
        ),
      )
      .addOption(
        new Option(
          '--callback-listen <[host]:port>',
          'serve hook callbacks on their own listener (default: on --listen)',
        ),
      )
      .addOption(
        new Option(
          '--callback-tls-cert <file>',
          'with --callback-listen: serve callbacks over TLS with this PEM certificate',
        ),
      )
      .addOption(new Option('--callback-tls-key <file>', 'with --callback-listen: the PEM key of --callback-tls-cert'))
      .addOption(
        new Option(
          '--shutdown-grace <duration>',
          'how long children of a deleted Application wait for its shutdown callback',
        ).default('5m'),
      )
      .addOption(
        new Option(
          '--policy <file>',
          'tenancy policy (YAML/JSON, admin-owned): which namespaces and cluster-scoped kinds Applications of each namespace may write, and where spec.adopt may adopt; default: own namespace only (docs/security.md)',
        ),
      )
      .addOption(
        new Option(
          '--field-managers <file>',
          'field managers whose fields are left to them (not patched back), added to the known ones: an HPA on replicas, cert-manager on caBundle (docs/field-owners.md)',
        ),
      )
      .addOption(
        new Option(
          '--guard <file>',
          'guard policy (YAML rules over plan actions, as kreconcile plan --guard): a plan it denies writes nothing and its Application is Stalled GuardDenied until the spec changes or an admin annotates it kreconcile.io/approve=<plan digest>',
        ),
      )
      .addOption(
        new Option(
          '--default-service-account <name>',
          "act as this ServiceAccount of each Application's namespace when spec.serviceAccountName is empty (impersonation)",
        ),
      )
      .addOption(
        new Option(
          '--require-service-account',
          "never act with the operator's own rights: Applications with no ServiceAccount (and no default) are Stalled (ServiceAccountRequired)",
        ),
      )
      .addOption(
        new Option(
          '--watch-children',
          'watch child kinds cluster-wide as the operator (default: unless every Application is impersonated)',
        ),
      )
      .addOption(
        new Option(
          '--no-watch-children',
          'do not watch children: read them per reconcile, correct drift at each --resync',
        ),
      )
      .addOption(
        new Option(
          '--tosca-file-root <dir>',
          'allow file: URLs in spec.tosca/spec.csar below this directory (repeatable)',
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(
        new Option(
          '--tosca-allow-host <host|CIDR>',
          'fetch spec.tosca/spec.csar from this host or network although it is loopback, private, link-local or metadata (repeatable)',
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(
        new Option('--tosca-allow-http', 'fetch plain http:// URLs in spec.tosca/spec.csar (default: https only)'),
      )
      .addHelpText('after', EXAMPLES)
      .action(async (options: Options) => execute(context, options)),
};
