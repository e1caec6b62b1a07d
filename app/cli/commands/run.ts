/** `kreconcile run`: the operator, against a cluster or the embedded in-memory one (`--memory`). */
import { Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { pino } from 'pino';
import prettyModule from 'pino-pretty';
import type { KubernetesCluster, KubernetesClusterOptions } from '../../../adapters/kubernetes/index.js';
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import { systemClock } from '../../../adapters/memory/index.js';
import { DEFAULT_KNOWN_MANAGERS, showClusterError, type Application, type Cluster } from '../../../core/internal.js';
import { LEADER_LEASE_NAME } from '../../manifests/rbac.js';
import { childClusters, type ServiceAccountPolicy } from '../../access/child-access.js';
import { registerFlowControlMetrics, type FlowControlMetrics } from '../../runtime/flow-metrics.js';
import { DEFAULT_PROGRESS_STATUS_AFTER_MS } from '../../runtime/controller.js';
import { createMetrics, type Metrics } from '../../runtime/metrics.js';
import { startOperator, type Operator, type OperatorOptions } from '../../runtime/operator.js';
import { MAX_SHARDS } from '../../runtime/sharding/sharding.js';
import type { Logger } from '../../logging/logger.js';
import { converged, type ReconcileResult } from '../../reconcile/reconcile-application.js';
import { errnoCode, usageError, type CliError } from '../cli-error.js';
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
import type { CliIo } from '../io.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import { kubeconfigProblem } from '../live/kubeconfig.js';
import { checkCluster } from '../live/startup-check.js';
import { readAdminFiles, type AdminFiles } from '../policy/admin-files.js';
import { guardSchemaErrors } from '../guard/read-guard.js';
import { builtinCatalog } from '../input/schema-catalog.js';
import { applyDrift, type Drift } from '../operate/drift.js';
import { startEmbeddedCluster } from '../operate/embedded-cluster.js';
import { listenFailure, probeListen } from '../operate/listen.js';
import { progressLines } from '../operate/progress.js';
import { convergenceTracker } from '../planning/verify-converges.js';
import { COLOURS, styleFor } from '../style.js';
import { decodeRunFlags, type RunFlags, type RunSettings } from './run-options.js';
import { defined } from '../../../core/json/defined.js';

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

type CliErrors = ReadonlyArray<CliError>;

/** Reports the errors and exits 1: nothing has started, or what started is stopped. */
const stop = (context: CommandContext, errors: CliErrors): void => {
  reportErrors(context.io, errors);
  context.exit(EXIT_ERROR);
};

/** A flag's problem (one line) as a usage error. */
const usage = (message: string): CliErrors => [usageError(message)];

/**
 * Reads the admin's files; guards fail closed (issue 36): a rule with a misspelt built-in kind or path never starts the
 * operator.
 */
const readCheckedAdminFiles = (io: CliIo, flags: RunFlags): TE.TaskEither<CliErrors, AdminFiles> =>
  pipe(
    readAdminFiles(io, flags),
    TE.tap(({ guard }) => {
      const unguarded = guard === undefined ? [] : guardSchemaErrors(guard, builtinCatalog(io), { open: true });
      return unguarded.length > 0 ? TE.left(unguarded) : TE.right(undefined);
    }),
  );

/** Binds each listener once, so a busy port fails before anything starts. */
const probeListeners = async (flags: RunFlags, settings: RunSettings): Promise<E.Either<CliErrors, void>> => {
  const listeners = [
    ['--listen', flags.listen, settings.listen],
    ['--callback-listen', flags.callbackListen, settings.callbacks.listen],
  ] as const;
  for (const [flag, text, address] of listeners) {
    if (text === undefined || address === undefined) continue;
    const free = await probeListen(flag, text, address);
    if (E.isLeft(free)) return E.left(usage(free.left));
  }
  return E.right(undefined);
};

type HookOptions = NonNullable<OperatorOptions['hooks']>;

/** The hook callbacks' options: the decoded settings with the TLS certificate and key read. */
const hookOptions = async (io: CliIo, settings: RunSettings): Promise<E.Either<CliErrors, HookOptions>> => {
  const { callbackUrl, listen, tlsFiles } = settings.callbacks;
  let tls: { cert: string; key: string } | undefined;
  if (tlsFiles !== undefined) {
    try {
      tls = { cert: await io.readFile(tlsFiles.cert), key: await io.readFile(tlsFiles.key) };
    } catch (error) {
      return E.left(usage(`cannot read the callback TLS certificate or key: ${errnoCode(error) ?? String(error)}`));
    }
  }
  return E.right({
    callbackUrl,
    shutdownGraceMs: settings.durations.shutdownGraceMs,
    ...defined({ listen, tls }),
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

/** The cluster of the kubeconfig (or the pod), checked with one read before anything starts. */
const connect = async (
  flags: RunFlags,
  context: CommandContext,
  clusterOptions: KubernetesClusterOptions,
): Promise<E.Either<string, KubernetesCluster>> => {
  const inCluster =
    flags.inCluster === true ||
    (flags.kubeconfig === undefined &&
      flags.context === undefined &&
      context.io.env.KUBERNETES_SERVICE_HOST !== undefined);
  const target = {
    ...defined({ kubeconfigPath: flags.kubeconfig, context: flags.context }),
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
  const checked = await checkCluster(cluster, flags.watchNamespace ?? 'default');
  return E.isLeft(checked) ? checked : E.right(cluster);
};

/** The cluster the operator runs against, and the Applications loaded into it (`--memory`). */
type RunTarget = {
  readonly cluster: Cluster;
  readonly memory?: MemoryCluster;
  readonly kubernetes?: KubernetesCluster;
  readonly loaded: ReadonlyArray<string>;
};

/** `--memory`: the embedded in-memory API server, loaded with the -f files. */
const embeddedTarget = async (io: CliIo, flags: RunFlags): Promise<E.Either<CliErrors, RunTarget>> => {
  const inputs = await readManifestInputs(io, flags);
  if (E.isLeft(inputs)) return inputs;
  const started = await startEmbeddedCluster({
    crds: inputs.right.crds,
    applications: inputs.right.applications.map((a) => a.application),
  });
  if (E.isLeft(started)) return E.left(usage(started.left));
  io.stdout.write(`embedded in-memory API server started with ${inputs.right.applications.length} Application(s)\n`);
  return E.right({
    cluster: started.right,
    memory: started.right,
    loaded: inputs.right.applications.map(({ application }) => applicationKey(application)),
  });
};

/** A real cluster, with client flow control measured by the operator's metrics. */
const liveTarget = async (
  context: CommandContext,
  flags: RunFlags,
  settings: RunSettings,
  flowMetrics: FlowControlMetrics,
): Promise<E.Either<CliErrors, RunTarget>> => {
  const connected = await connect(flags, context, {
    flowControl: { ...settings.flowControl, onWait: flowMetrics.observeWait },
  });
  if (E.isLeft(connected)) return E.left(usage(connected.left));
  flowMetrics.readFrom(connected.right.flowControl.stats);
  return E.right({ cluster: connected.right, kubernetes: connected.right, loaded: [] });
};

const identityOptions = (
  flags: RunFlags,
  policy: ServiceAccountPolicy,
  cluster: KubernetesCluster | undefined,
): Pick<OperatorOptions, 'childClusterFor' | 'watchChildren'> => {
  if (cluster === undefined) return {};
  const mandatory = policy.defaultServiceAccount !== undefined || policy.require === true;
  return {
    childClusterFor: childClusters(policy, cluster.impersonate),
    watchChildren: flags.watchChildren ?? !mandatory,
  };
};

/** Everything the operator starts with, read and checked. */
type PreparedRun = {
  readonly flags: RunFlags;
  readonly settings: RunSettings;
  readonly files: AdminFiles;
  readonly hooks: HookOptions;
  readonly target: RunTarget;
  readonly metrics: Metrics;
};

/** After the flags: the admin's files, the listeners' probes, the callbacks' TLS files, then the cluster. */
const prepare = (
  context: CommandContext,
  flags: RunFlags,
  settings: RunSettings,
): Promise<E.Either<CliErrors, PreparedRun>> => {
  const metrics = createMetrics();
  const flowMetrics = registerFlowControlMetrics(metrics.registry);
  return pipe(
    readCheckedAdminFiles(context.io, flags),
    TE.bindTo('files'),
    TE.tap(() => () => probeListeners(flags, settings)),
    TE.bind('hooks', () => () => hookOptions(context.io, settings)),
    TE.bind(
      'target',
      () => () =>
        flags.memory === true ? embeddedTarget(context.io, flags) : liveTarget(context, flags, settings, flowMetrics),
    ),
    TE.map((parts) => ({ ...parts, flags, settings, metrics })),
  )();
};

/** Where the operator reads and writes, and how its Events are sent. */
const clusterOptions = ({
  cluster,
  kubernetes,
}: RunTarget): Pick<OperatorOptions, 'cluster' | 'eventCluster' | 'admissionPolicies'> => ({
  cluster,
  // Events at low priority: sent with what the reconciles leave of --qps, dropped when too many wait.
  ...(kubernetes === undefined ? {} : { eventCluster: kubernetes.lowPriority }),
  // The in-memory cluster enforces no RBAC and no admission policy: there is nothing to check.
  ...(kubernetes === undefined ? { admissionPolicies: false as const } : {}),
});

/** How often and how much the operator reconciles, and what it serves. */
const scheduleOptions = (flags: RunFlags, settings: RunSettings) => ({
  workers: settings.workers,
  resyncMs: settings.durations.resyncMs,
  readiness: flags.readiness,
  progressStatusAfterMs: settings.durations.progressStatusAfterMs,
  ...defined({ relistMs: settings.durations.relistMs }),
  ...(flags.watchNamespace ? { namespace: flags.watchNamespace } : {}),
  ...defined({ listen: settings.listen }),
});

/** The admin's rules: tenancy, known field managers, the guard. */
const policyOptions = ({ tenancy, managers, guard }: AdminFiles) => ({
  ...defined({ tenancy }),
  ...(managers === undefined ? {} : { planOptions: { fieldManagers: [...DEFAULT_KNOWN_MANAGERS, ...managers] } }),
  ...(guard === undefined ? {} : { guard: guard.policy }),
});

/** Leader election or shards: which replica reconciles which Applications. */
const leadershipOptions = (flags: RunFlags, settings: RunSettings) => ({
  ...(flags.leaderElect
    ? {
        leaderElection: {
          namespace: flags.leaderElectionNamespace,
          name: LEADER_LEASE_NAME,
          identity: settings.identity,
        },
      }
    : {}),
  ...(settings.sharding === undefined
    ? {}
    : {
        sharding:
          settings.sharding.mode === 'lease'
            ? { ...settings.sharding, monotonic: () => performance.now() }
            : settings.sharding,
      }),
});

/** What the run itself hands the operator: its logger, where reconciles are reported, what a lost lease does. */
type RunHooks = Pick<OperatorOptions, 'logger' | 'onReconciled' | 'onLostLeadership'>;

const operatorOptions = (run: PreparedRun, hooks: RunHooks): OperatorOptions => {
  const { flags, settings, files, target } = run;
  return {
    ...clusterOptions(target),
    clock: systemClock,
    random: Math.random,
    metrics: run.metrics,
    ...hooks,
    ...scheduleOptions(flags, settings),
    ...policyOptions(files),
    ...leadershipOptions(flags, settings),
    monotonic: () => performance.now(),
    stopDeadlineMs: settings.durations.deadlineMs,
    hooks: run.hooks,
    tosca: {
      fileRoots: flags.toscaFileRoot,
      allowHosts: flags.toscaAllowHost,
      allowHttp: flags.toscaAllowHttp === true,
      logger: hooks.logger,
    },
    ...identityOptions(flags, { ...settings.servicePolicy, ...defined({ tenancy: files.tenancy }) }, target.kubernetes),
  };
};

/** Starts the operator; a port another process took since it was probed is a usage error (nothing has started). */
const startListening = async (run: PreparedRun, options: OperatorOptions): Promise<E.Either<CliErrors, Operator>> => {
  try {
    return E.right(await startOperator(options));
  } catch (error) {
    if (!isListenError(error)) throw error;
    const callbackListen = run.settings.callbacks.listen;
    return E.left(
      usage(
        callbackListen !== undefined && error.port === callbackListen.port
          ? listenFailure('--callback-listen', run.flags.callbackListen ?? '', error)
          : listenFailure('--listen', run.flags.listen ?? '', error),
      ),
    );
  }
};

/** Each reconcile's progress line, and convergence of the Applications loaded from -f. */
const reconcileProgress = (io: CliIo, target: RunTarget) => {
  const style = styleFor(io);
  // Every Application loaded from every -f file must be Ready, not only those reconciled so far.
  const tracker = convergenceOf(target.loaded);
  let settled: (() => void) | undefined;
  // With --memory, a perpetual diff or an oscillation is reported as `plan --verify-converges` reports it.
  const nonConvergence = target.memory === undefined ? undefined : convergenceTracker();
  return {
    onReconciled: (key: string, result: ReconcileResult): void => {
      for (const line of progressLines(key, result, style, new Date(systemClock.now()).toISOString().slice(11, 19)))
        io.stdout.write(`${line}\n`);
      for (const line of nonConvergence?.(key, result) ?? []) io.stderr.write(`warning: ${line}\n`);
      tracker.record(key, result);
      if (tracker.allReady()) settled?.();
    },
    onSettled: (resolve: () => void, initial: boolean): void => {
      settled = resolve;
      // Convergence may have happened while the operator was still starting its listeners.
      if (initial && tracker.allReady()) resolve();
    },
    notReady: tracker.notReady,
  };
};

/** Like controller-runtime: a process that lost the lease exits (code 1) and is restarted clean. */
const leadershipLoss = (context: CommandContext, logger: Logger) => {
  let lostLeadership: (() => void) | undefined;
  const lost = new Promise<'lost'>((resolve) => {
    lostLeadership = () => resolve('lost');
  });
  return {
    lost,
    onLostLeadership: (): void => {
      logger.error({}, 'lost leadership: exiting');
      context.exit(EXIT_ERROR);
      lostLeadership?.();
    },
  };
};

const announce = (context: CommandContext, run: PreparedRun, operator: Operator, logger: Logger): void => {
  const { io } = context;
  if (operator.callbackAddress)
    io.stdout.write(
      `serving hook callbacks on ${operator.callbackAddress.host}:${operator.callbackAddress.port}${run.hooks.tls ? ' (TLS)' : ''}\n`,
    );
  else if (!run.flags.listen) logger.info({}, 'hook callbacks are not served: give --listen or --callback-listen');
  if (operator.address)
    io.stdout.write(`serving /healthz /readyz /metrics on ${operator.address.host}:${operator.address.port}\n`);
};

/**
 * Runs until a signal or a lost lease; after a lost lease the Controller is already stopping (its writes are fenced).
 */
const untilStopped = async (
  context: CommandContext,
  operator: Operator,
  lost: Promise<'lost'>,
  deadlineMs: number,
): Promise<void> => {
  const { io } = context;
  const signalled = new Promise<'signal'>((resolve) => {
    io.onSignal?.((signal) => {
      io.stdout.write(`${signal}: shutting down\n`);
      resolve('signal');
    });
  });
  const why = await Promise.race([signalled, lost]);
  const finished = await operator.stop(deadlineMs);
  if (why === 'lost') {
    io.stdout.write('lost leadership: exited\n');
    return;
  }
  io.stdout.write(finished ? 'stopped\n' : `stopped with reconciles still running after ${deadlineMs} ms\n`);
};

/** Starts the operator on what was prepared, then runs the demonstration (`--exit-when-converged`) or until stopped. */
const operate = async (context: CommandContext, run: PreparedRun): Promise<void> => {
  const logger = makeLogger(context, run.flags.logLevel);
  const progress = reconcileProgress(context.io, run.target);
  const leadership = leadershipLoss(context, logger);
  const options = operatorOptions(run, {
    logger,
    onReconciled: progress.onReconciled,
    onLostLeadership: leadership.onLostLeadership,
  });
  const operator = await startListening(run, options);
  if (E.isLeft(operator)) return stop(context, operator.left);
  announce(context, run, operator.right, logger);
  const { timeoutMs, deadlineMs } = run.settings.durations;
  if (run.flags.exitWhenConverged === true && run.target.memory !== undefined)
    return demonstrate(
      context,
      operator.right,
      run.target.memory,
      run.settings.drifts,
      timeoutMs,
      deadlineMs,
      progress.onSettled,
      progress.notReady,
    );
  return untilStopped(context, operator.right, leadership.lost, deadlineMs);
};

/** Decodes the flags (run-options.ts), prepares what they name, then runs the operator. */
const execute = async (context: CommandContext, flags: RunFlags): Promise<void> => {
  const settings = decodeRunFlags(flags, {
    env: context.io.env,
    randomSuffix: Math.random().toString(16).slice(2, 10),
  });
  if (E.isLeft(settings)) return stop(context, usage(settings.left));
  const prepared = await prepare(context, flags, settings.right);
  if (E.isLeft(prepared)) return stop(context, prepared.left);
  return operate(context, prepared.right);
};

/** A Node `listen` failure (EADDRINUSE, EACCES): its `syscall` is 'listen' and its `port` the one asked for. */
const isListenError = (error: unknown): error is Error & { readonly syscall: 'listen'; readonly port?: number } =>
  error instanceof Error && 'syscall' in error && error.syscall === 'listen';

/** The key the operator reconciles an Application under (`namespace/name`), as the embedded cluster stores it. */
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
  // eslint-disable-next-line max-lines-per-function -- a declarative table: commander's option list, one entry per flag
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
      .action(async (flags: RunFlags) => execute(context, flags)),
};
