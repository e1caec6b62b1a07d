/**
 * `kreconcile run`'s flags decoded into the value the run starts from (issue 40: each command
 * parses its options by a pure function, then runs). Everything the flags alone decide is checked
 * here, before a file is read or a port is bound; the first problem is one line naming the flag.
 */
import { sequenceT } from 'fp-ts/lib/Apply.js';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { isServiceAccountName } from '../../../core/internal.js';
import type { ServiceAccountPolicy } from '../../access/child-access.js';
import { shardingFromFlags, type ShardingOptions } from '../../runtime/sharding/sharding.js';
import { parseAllowlist } from '../../tosca/address-policy.js';
import { parseDrift, type Drift } from '../operate/drift.js';
import { parseListen, type ListenAddress } from '../operate/listen.js';
import { defined } from '../../../core/json/defined.js';

/** The flags as commander hands them over (strings until decoded). */
export type RunFlags = {
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

/** The run's durations, in ms. */
export type RunDurations = {
  readonly resyncMs: number;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly shutdownGraceMs: number;
  readonly relistMs?: number;
  readonly progressStatusAfterMs: number;
};

/** `--qps`, `--burst`, `--max-in-flight` given (the adapter's defaults for the others). */
export type FlowControlFlags = { readonly qps?: number; readonly burst?: number; readonly maxInFlight?: number };

/** Where hook callbacks are called and served, before the TLS files are read. */
export type CallbackSettings = {
  readonly callbackUrl: string;
  readonly listen?: ListenAddress;
  readonly tlsFiles?: { readonly cert: string; readonly key: string };
};

/** What `kreconcile run` starts from: every value its flags decide, checked. */
export type RunSettings = {
  readonly durations: RunDurations;
  /** This process as the Lease holder: `<POD_NAME>_<random>`, else `kreconcile-<random>`. */
  readonly identity: string;
  readonly sharding: ShardingOptions | undefined;
  readonly drifts: ReadonlyArray<Drift>;
  readonly servicePolicy: ServiceAccountPolicy;
  readonly flowControl: FlowControlFlags;
  readonly listen?: ListenAddress;
  readonly callbacks: CallbackSettings;
  readonly workers: number;
};

/** What decoding reads besides the flags: the pod's environment and a random suffix for the identity. */
export type RunEnvironment = {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly randomSuffix: string;
};

export const seconds = (text: string, flag: string): E.Either<string, number> => {
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

const durationsOf = (flags: RunFlags): E.Either<string, RunDurations> =>
  pipe(
    sequenceT(E.Apply)(
      seconds(flags.resync, '--resync'),
      seconds(flags.timeout, '--timeout'),
      seconds(flags.shutdownDeadline, '--shutdown-deadline'),
      seconds(flags.shutdownGrace, '--shutdown-grace'),
    ),
    E.bindTo('durations'),
    E.bind('relist', () => (flags.relist === undefined ? E.right(undefined) : seconds(flags.relist, '--relist'))),
    E.bind('progress', () => progressStatusAfter(flags.progressStatusAfter)),
    E.map(({ durations: [resyncMs, timeoutMs, deadlineMs, shutdownGraceMs], relist, progress }) => ({
      resyncMs,
      timeoutMs,
      deadlineMs,
      shutdownGraceMs,
      ...defined({ relistMs: relist }),
      progressStatusAfterMs: progress,
    })),
  );

/**
 * `--qps`, `--burst`, `--max-in-flight`: client flow control towards a real API server (the
 * adapter's defaults when absent; docs/runtime.md, Flow control). Only real clusters have one.
 */
export const flowControlFlags = (flags: RunFlags): E.Either<string, FlowControlFlags> => {
  const given = (
    [
      ['--qps', 'qps', flags.qps, /^\d+(\.\d+)?$/, 'a number of requests per second above 0, e.g. 50'],
      ['--burst', 'burst', flags.burst, /^\d+$/, 'a whole number of requests ≥ 1, e.g. 100'],
      ['--max-in-flight', 'maxInFlight', flags.maxInFlight, /^\d+$/, 'a whole number of requests ≥ 1, e.g. 32'],
    ] as const
  ).filter(([, , text]) => text !== undefined);
  if (given.length > 0 && flags.memory === true)
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

/**
 * Impersonation (`spec.serviceAccountName`, `--default-service-account`, `--require-service-account`):
 * whose rights children are written with. The in-memory cluster has no RBAC to enforce: refuse rather than pretend.
 */
export const servicePolicy = (flags: RunFlags): E.Either<string, ServiceAccountPolicy> => {
  if (flags.defaultServiceAccount !== undefined && !isServiceAccountName(flags.defaultServiceAccount)) {
    return E.left(
      `--default-service-account ${flags.defaultServiceAccount}: not a ServiceAccount name (lower-case letters, digits, "-" and ".")`,
    );
  }
  const policy: ServiceAccountPolicy = {
    ...defined({ defaultServiceAccount: flags.defaultServiceAccount }),
    ...(flags.requireServiceAccount === true ? { require: true } : {}),
  };
  return flags.memory === true && (policy.defaultServiceAccount !== undefined || policy.require === true)
    ? E.left(
        '--default-service-account and --require-service-account need a real cluster (the in-memory one has no RBAC)',
      )
    : E.right(policy);
};

/** The flags that only make sense with `--memory` (or only without it). */
const memoryFlags = (flags: RunFlags, drifts: ReadonlyArray<Drift>): E.Either<string, void> => {
  if (flags.memory !== true && flags.filename.length > 0)
    return E.left(
      '-f loads Applications into the embedded cluster: use it with --memory (apply them to a real cluster with kubectl)',
    );
  if (flags.memory !== true && (drifts.length > 0 || flags.exitWhenConverged === true))
    return E.left('--drift and --exit-when-converged are demonstrations for --memory');
  return E.right(undefined);
};

/** An optional `[host]:port` flag. */
const optionalListen = (flag: string, text: string | undefined): E.Either<string, ListenAddress | undefined> =>
  text === undefined ? E.right(undefined) : parseListen(flag, text);

/**
 * Hook callbacks: the URL workloads call (default: the operator Service in `POD_NAMESPACE`, or
 * kreconcile-system), and where they are served (`--callback-listen`, optionally with TLS; default
 * on `--listen`). Tokens need no flag: the operator generates them and keeps them in each
 * Application's hook Secret.
 */
export const callbackSettings = (
  flags: RunFlags,
  env: RunEnvironment['env'],
  listen: ListenAddress | undefined,
): E.Either<string, CallbackSettings> => {
  const { callbackTlsCert: cert, callbackTlsKey: key } = flags;
  if ((cert === undefined) !== (key === undefined))
    return E.left('--callback-tls-cert and --callback-tls-key go together');
  if (cert !== undefined && flags.callbackListen === undefined)
    return E.left("--callback-tls-cert/--callback-tls-key need --callback-listen (the callbacks' own listener)");
  const callbackUrl = flags.callbackUrl ?? `http://kreconcile.${env.POD_NAMESPACE ?? 'kreconcile-system'}.svc:8080`;
  const protocol = E.tryCatch(
    () => new URL(callbackUrl).protocol,
    () => `--callback-url ${callbackUrl}: not a valid URL`,
  );
  if (E.isLeft(protocol)) return protocol;
  if (protocol.right !== 'http:' && protocol.right !== 'https:')
    return E.left(`--callback-url ${callbackUrl}: use an http or https URL`);
  return E.right({
    callbackUrl,
    ...defined({ listen }),
    ...(cert === undefined || key === undefined ? {} : { tlsFiles: { cert, key } }),
  });
};

/** The listeners: `--listen` and `--callback-listen` parsed, then the callbacks that may use the latter. */
const listenersOf = (
  flags: RunFlags,
  env: RunEnvironment['env'],
): E.Either<string, Pick<RunSettings, 'listen' | 'callbacks'>> =>
  pipe(
    E.Do,
    E.bind('listen', () => optionalListen('--listen', flags.listen)),
    E.bind('callbackListen', () => optionalListen('--callback-listen', flags.callbackListen)),
    E.bind('callbacks', ({ callbackListen }) => callbackSettings(flags, env, callbackListen)),
    E.flatMap(({ listen, callbacks }) =>
      flags.memory === true && flags.filename.length === 0
        ? E.left('--memory needs Applications: kreconcile run --memory -f app.yaml')
        : E.right({ ...defined({ listen }), callbacks }),
    ),
  );

/**
 * Decodes `kreconcile run`'s flags. Pure: reads no file and binds no port (the policy files and
 * the listeners' probes come after). Errors: the first problem, one line naming the flag.
 */
export const decodeRunFlags = (flags: RunFlags, environment: RunEnvironment): E.Either<string, RunSettings> => {
  // The pod's name and a suffix of this process, as client-go's `hostname_uuid`: a container restarted in the
  // same pod is a new holder, so it waits out its predecessor's lease while that one's last writes may still land.
  const pod = environment.env.POD_NAME;
  const identity = pod === undefined ? `kreconcile-${environment.randomSuffix}` : `${pod}_${environment.randomSuffix}`;
  return pipe(
    E.Do,
    E.bind('durations', () => durationsOf(flags)),
    E.tap(() => {
      const allowed = parseAllowlist(flags.toscaAllowHost);
      return 'error' in allowed ? E.left(`--tosca-allow-host ${allowed.error}`) : E.right(undefined);
    }),
    E.bind('sharding', () => shardingFromFlags(flags, { namespace: flags.leaderElectionNamespace, identity })),
    E.bind('drifts', () => E.sequenceArray(flags.drift.map(parseDrift))),
    E.bind('servicePolicy', () => servicePolicy(flags)),
    E.bind('flowControl', () => flowControlFlags(flags)),
    E.tap(({ drifts }) => memoryFlags(flags, drifts)),
    E.bind('listeners', () => listenersOf(flags, environment.env)),
    E.map(({ listeners, ...settings }) => ({ ...settings, ...listeners, identity, workers: Number(flags.workers) })),
  );
};
