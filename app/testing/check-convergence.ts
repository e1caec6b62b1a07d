/**
 * `checkConvergence`: a property runner operator authors point at their own reconcile function.
 * For every generated world it builds a seeded in-memory cluster, lets the controller run
 * under faults, stops the faults, runs until quiet and checks the world is converged. With
 * `overHttp` the cluster is also served as a Kubernetes API endpoint on loopback, so a
 * controller written with any client (client-node, kubectl) runs under the same faults and clock.
 */
import fc from 'fast-check';
import { serveMemoryCluster, type ServeOptions } from '../../adapters/memory/http/index.js';
import { createMemoryCluster, type FaultProfile, type MemoryCluster } from '../../adapters/memory/index.js';
import { ManualClock } from '../../adapters/memory/clock/manual-clock.js';
import { isJsonObject, type Cluster } from '../../core/internal.js';
import { jsonText } from '../../core/json/text.js';
import { drive } from './drive.js';
import { propertyLog, type ShrinkBudget } from './shrink-budget.js';
import { promiseCluster, type PromiseCluster } from './promise-cluster.js';
import { defined } from '../../core/json/defined.js';

/** The cluster's HTTP endpoint of one run (`overHttp`): give `kubeconfig` to your client. */
export type HttpEndpoint = { readonly url: string; readonly kubeconfig: string };

export type ConvergenceContext<World> = {
  readonly cluster: MemoryCluster;
  /** The same cluster with Promises (`await api.create(obj)`), rejecting with ClusterCallError. */
  readonly api: PromiseCluster;
  readonly clock: ManualClock;
  readonly world: World;
  /** Present with `overHttp`. */
  readonly endpoint?: HttpEndpoint;
};

/** What one controller pass gets besides the cluster and the clock. */
export type PassContext = {
  /** The same cluster with Promises; its writes count as the controller's. */
  readonly api: PromiseCluster;
  /** Present with `overHttp`: the endpoint whose requests count as the controller's. */
  readonly endpoint?: HttpEndpoint;
};

/** A failed property: `seed` and `path` replay it (`checkConvergence({ ...options, seed, path })`). */
export class ConvergenceFailure extends Error {
  override readonly name = 'ConvergenceFailure';
  constructor(
    message: string,
    readonly seed: number,
    readonly path: string,
    readonly counterexample: unknown,
    options: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}

export type ConvergenceOptions<World> = {
  /** What to generate: the initial state and whatever the checks need to know. */
  readonly world: fc.Arbitrary<World>;
  /** Creates the initial objects (through the cluster, like a user would). */
  readonly setup: (context: ConvergenceContext<World>) => Promise<void>;
  /**
   * One pass of the controller under test (it may fail: errors are part of the game); a pass
   * that sends no write — through `cluster`, `pass.api` or `pass.endpoint` — is quiet.
   */
  readonly reconcile: (cluster: Cluster, clock: ManualClock, pass: PassContext) => Promise<void>;
  /** Another actor's interference, applied between passes while faults are on. */
  readonly perturb?: (context: ConvergenceContext<World>, step: number) => Promise<void>;
  /** The invariant once quiet: `true`, or a message saying what is wrong. */
  readonly converged: (context: ConvergenceContext<World>) => Promise<true | string>;
  /** Faults while the controller runs at first (default: none). */
  readonly faults?: FaultProfile;
  /** Passes with faults on before they stop (default 5). */
  readonly faultyPasses?: number;
  /** Passes allowed to become quiet once faults stop (default 20). */
  readonly maxQuietPasses?: number;
  /** Clock time between passes (default 1 s): lets backoffs and requeues come due. */
  readonly passIntervalMs?: number;
  /** Simulate workload controllers in the cluster (rollouts complete at once; default true). */
  readonly workloads?: boolean;
  /**
   * With `workloads`, their Pods too: Running and Ready, or crash-looping under `faults.pods`
   * (default: on with `workloads`; `false` for a world with workloads but no Pods or ReplicaSets).
   */
  readonly pods?: boolean;
  /**
   * Serve each run's cluster over HTTP on loopback (`true`, or the endpoint's options): the
   * controller gets `pass.endpoint.kubeconfig`; faults reach it as HTTP answers (409, 429, 500…).
   */
  readonly overHttp?: boolean | Omit<ServeOptions, 'port' | 'kubeconfigPath'>;
  readonly numRuns?: number;
  /** Replay: the `seed` and `path` of a reported failure (see {@link ConvergenceFailure}). */
  readonly seed?: number;
  readonly path?: string;
  /** Report every failing step while shrinking (`true`), or a fast-check verbosity level. */
  readonly verbose?: boolean | fc.VerbosityLevel;
  /** Bounds on shrinking once a run failed (default 120 s and 200 runs); the report says if they ended it. */
  readonly shrinkBudget?: ShrinkBudget;
};

const WRITES = ['create', 'update', 'patch', 'delete', 'updateStatus', 'patchStatus'] as const;

/** `patch apps/v1 Deployment shop/web`: a write call as a report names it (its object or ref is the first argument). */
export const describeWrite = (verb: string, target: unknown): string => {
  const object = isJsonObject(target) ? target : {};
  const metadata = isJsonObject(object.metadata) ? object.metadata : object;
  const name = [metadata.namespace, metadata.name].filter((part) => typeof part === 'string').join('/');
  return `${verb} ${jsonText(object.apiVersion ?? '?')} ${jsonText(object.kind ?? '?')} ${name}`;
};

/**
 * The cluster as the controller sees it, counting write calls: a pass that sends no write is
 * quiet. Counting calls (not resourceVersions) also catches writes the server absorbs as no-ops.
 * Each write is also named (verb and object), so a hot loop's report says what keeps being written.
 */
const counting = (
  cluster: MemoryCluster,
): {
  readonly cluster: MemoryCluster;
  readonly writes: () => number;
  readonly writtenSince: (count: number) => ReadonlyArray<string>;
} => {
  const written: string[] = [];
  const proxy = new Proxy(cluster, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (WRITES.some((write) => write === property))
        return (...args: unknown[]): unknown => {
          written.push(describeWrite(String(property), args[0]));
          const answer: unknown = Reflect.apply(value, target, args);
          return answer;
        };
      const bound: unknown = value.bind(target);
      return bound;
    },
  });
  return { cluster: proxy, writes: () => written.length, writtenSince: (count) => written.slice(count) };
};

/** `patch apps/v1 Deployment shop/web ×2, create v1 ConfigMap shop/a`: repeated entries counted. */
export const tally = (entries: Iterable<readonly [string, number]>): string =>
  [...entries].map(([what, count]) => (count === 1 ? what : `${what} ×${count}`)).join(', ');

export const counted = (items: ReadonlyArray<string>): ReadonlyMap<string, number> =>
  items.reduce((counts, item) => counts.set(item, (counts.get(item) ?? 0) + 1), new Map<string, number>());

/** What a failed run leaves to report besides its verdict: the controller's last error, the faults it met. */
type RunLog = {
  lastError?: { readonly pass: number; readonly error: unknown };
  passes: number;
};

const errorText = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);

/** The lines a failed run's error carries after its verdict. */
const runReport = (cluster: MemoryCluster, log: RunLog): string => {
  const faults = cluster.injectedFaults();
  return [
    `faults injected: ${faults.size === 0 ? 'none' : tally(faults)}`,
    log.lastError === undefined
      ? 'the controller threw no error'
      : `the controller's last error (pass ${log.lastError.pass} of ${log.passes}): ${errorText(log.lastError.error)}`,
  ].join('\n');
};

/** The HTTP endpoint of one run over the counting view, so requests count as the controller's writes. */
const serveRun = async (
  cluster: MemoryCluster,
  overHttp: ConvergenceOptions<unknown>['overHttp'],
): Promise<{ readonly endpoint?: HttpEndpoint; close(): Promise<void> }> => {
  if (overHttp === undefined || overHttp === false) return { close: () => Promise.resolve() };
  const served = await serveMemoryCluster(cluster, overHttp === true ? {} : overHttp);
  return { endpoint: { url: served.url, kubeconfig: served.kubeconfig }, close: () => served.close() };
};

const verbosity = (verbose: ConvergenceOptions<unknown>['verbose']): fc.VerbosityLevel =>
  verbose === true
    ? fc.VerbosityLevel.VeryVerbose
    : verbose === false || verbose === undefined
      ? fc.VerbosityLevel.None
      : verbose;

/** One generated world: setup, passes under faults, passes until quiet, then the invariant. */
const runOnce = async <World>(options: ConvergenceOptions<World>, world: World, clusterSeed: number): Promise<void> => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({
    clock,
    seed: clusterSeed,
    workloads: options.workloads ?? true,
    ...defined({ pods: options.pods }),
  });
  const observed = counting(cluster);
  const served = await serveRun(observed.cluster, options.overHttp);
  const log: RunLog = { passes: 0 };
  /** One controller pass; what it throws is kept for the report (the next pass retries). */
  const controllerPass = async (pass: PassContext): Promise<void> => {
    log.passes++;
    try {
      await drive(clock, options.reconcile(observed.cluster, clock, pass));
    } catch (error) {
      log.lastError = { pass: log.passes, error };
    }
  };
  try {
    const endpoint = served.endpoint ? { endpoint: served.endpoint } : {};
    const context: ConvergenceContext<World> = { cluster, api: promiseCluster(cluster), clock, world, ...endpoint };
    const pass: PassContext = { api: promiseCluster(observed.cluster), ...endpoint };
    await drive(clock, options.setup(context));
    cluster.setFaults(options.faults ?? {});
    for (let step = 0; step < (options.faultyPasses ?? 5); step++) {
      if (options.perturb) await swallow(drive(clock, options.perturb(context, step)));
      await controllerPass(pass);
      await clock.advance(options.passIntervalMs ?? 1_000);
    }
    cluster.setFaults({});
    const hotLoop = await runUntilQuiet(context, observed, () => controllerPass(pass), options);
    if (hotLoop !== undefined) throw new Error(`${hotLoop}\n${runReport(cluster, log)}`);
    const verdict = await options.converged(context);
    if (verdict !== true) throw new Error(`not converged: ${verdict}\n${runReport(cluster, log)}`);
  } finally {
    await served.close();
  }
};

/** What the two values of a counterexample are, for the report (fast-check prints them as `[[world],seed]`). */
const counterexampleLines = (counterexample: readonly [unknown, number] | null): string =>
  counterexample === null
    ? ''
    : `\ncounterexample: world = ${fc.stringify(counterexample[0])} (your world arbitrary's value)` +
      `\n                cluster seed = ${counterexample[1]} (seeds the in-memory cluster: which calls get faults, generated names and UIDs)`;

/** fast-check's report, the failing run's error and the line that replays it. */
const failureOf = <World>(
  details: fc.RunDetails<[World, number]>,
  runner: string,
  search: string,
): ConvergenceFailure => {
  const path = details.counterexamplePath ?? '';
  const cause = details.errorInstance instanceof Error ? `\ngot: ${details.errorInstance.message}` : '';
  const replay = `\nreplay: ${runner}({ ...options, seed: ${details.seed}, path: ${JSON.stringify(path)} })`;
  return new ConvergenceFailure(
    `${fc.defaultReportMessage(details) ?? 'property failed'}${counterexampleLines(details.counterexample)}${cause}\n${search}${replay}`,
    details.seed,
    path,
    details.counterexample,
    { cause: details.errorInstance },
  );
};

/**
 * Runs the property.
 * Guarantees: every run is reproducible from its seed and path (cluster faults are seeded from
 * the run; over HTTP as long as the controller sends its requests one after another).
 * Errors: rejects with a {@link ConvergenceFailure} carrying the seed, the replay path, the
 * counterexample and the run's error as `cause`.
 */
export const checkConvergence = <World>(options: ConvergenceOptions<World>): Promise<void> =>
  checkWorlds(options, 50, 'checkConvergence', (world, clusterSeed) => runOnce(options, world, clusterSeed));

/** The property over generated worlds and cluster seeds; a failure becomes a {@link ConvergenceFailure}. */
export const checkWorlds = async <World>(
  options: Pick<ConvergenceOptions<World>, 'world' | 'numRuns' | 'verbose' | 'seed' | 'path' | 'shrinkBudget'>,
  defaultRuns: number,
  runner: string,
  run: (world: World, clusterSeed: number) => Promise<void>,
): Promise<void> => {
  const log = propertyLog(options.shrinkBudget);
  const property = fc.asyncProperty(options.world, fc.integer({ min: 0, max: 2 ** 31 - 1 }), log.wrap(run));
  const details = await fc.check(property, {
    numRuns: options.numRuns ?? defaultRuns,
    verbose: verbosity(options.verbose),
    ...defined({ seed: options.seed, path: options.path }),
  });
  if (details.failed) throw failureOf(details, runner, log.summary());
};

/**
 * Passes without faults until one sends no write. Returns undefined once quiet, or what the last
 * pass still wrote (verb and object of each write) when it never gets quiet: a hot loop.
 */
const runUntilQuiet = async <World>(
  context: ConvergenceContext<World>,
  observed: { readonly writes: () => number; readonly writtenSince: (count: number) => ReadonlyArray<string> },
  controllerPass: () => Promise<void>,
  options: ConvergenceOptions<World>,
): Promise<string | undefined> => {
  const limit = options.maxQuietPasses ?? 20;
  let lastPass: ReadonlyArray<string> = [];
  for (let step = 0; step < limit; step++) {
    const before = observed.writes();
    await controllerPass();
    await context.clock.advance(options.passIntervalMs ?? 1_000);
    await context.cluster.settle();
    if (observed.writes() === before) return undefined;
    lastPass = observed.writtenSince(before);
  }
  return `still writing after ${limit} passes without faults: the controller does not converge (hot loop); its last pass wrote: ${tally(counted(lastPass))}`;
};

const swallow = async (pass: Promise<void>): Promise<void> => {
  try {
    await pass;
  } catch {
    /* a failing pass is retried by the next one */
  }
};
