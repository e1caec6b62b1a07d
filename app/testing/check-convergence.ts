/**
 * `checkConvergence`: a property runner operator authors point at their own reconcile function.
 * For every generated world it builds a seeded in-memory cluster, lets the controller run
 * under faults, stops the faults, runs until quiet and checks the world is converged.
 */
import fc from 'fast-check';
import { createMemoryCluster, type FaultProfile, type MemoryCluster } from '../../adapters/memory/index.js';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import type { Cluster } from '../../core/index.js';
import { drive } from './drive.js';

export type ConvergenceContext<World> = {
  readonly cluster: MemoryCluster;
  readonly clock: ManualClock;
  readonly world: World;
};

export type ConvergenceOptions<World> = {
  /** What to generate: the initial state and whatever the checks need to know. */
  readonly world: fc.Arbitrary<World>;
  /** Creates the initial objects (through the cluster, like a user would). */
  readonly setup: (context: ConvergenceContext<World>) => Promise<void>;
  /** One pass of the controller under test (it may fail: errors are part of the game); a pass that sends no write is quiet. */
  readonly reconcile: (cluster: Cluster, clock: ManualClock) => Promise<void>;
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
  readonly numRuns?: number;
  readonly seed?: number;
};

const WRITES = ['create', 'update', 'patch', 'delete', 'updateStatus', 'patchStatus'] as const;

/**
 * The cluster as the controller sees it, counting write calls: a pass that sends no write is
 * quiet. Counting calls (not resourceVersions) also catches writes the server absorbs as no-ops.
 */
const counting = (cluster: MemoryCluster): { readonly cluster: Cluster; readonly writes: () => number } => {
  let writes = 0;
  const proxy = new Proxy(cluster, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if ((WRITES as ReadonlyArray<string | symbol>).includes(property)) return (...args: unknown[]) => { writes++; return (value as (...a: unknown[]) => unknown).apply(target, args); };
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { cluster: proxy, writes: () => writes };
};

/**
 * Runs the property; throws fast-check's report (with seed and replay path) on failure.
 * Guarantees: every run is reproducible from its seed (cluster faults are seeded from the run).
 */
export const checkConvergence = async <World>(options: ConvergenceOptions<World>): Promise<void> => {
  const property = fc.asyncProperty(options.world, fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (world, clusterSeed) => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: clusterSeed, workloads: options.workloads ?? true });
    const context: ConvergenceContext<World> = { cluster, clock, world };
    const observed = counting(cluster);
    await drive(clock, options.setup(context));
    cluster.setFaults(options.faults ?? {});
    for (let pass = 0; pass < (options.faultyPasses ?? 5); pass++) {
      if (options.perturb) await swallow(drive(clock, options.perturb(context, pass)));
      await swallow(drive(clock, options.reconcile(observed.cluster, clock)));
      await clock.advance(options.passIntervalMs ?? 1_000);
    }
    cluster.setFaults({});
    await runUntilQuiet(context, observed, options);
    const verdict = await options.converged(context);
    if (verdict !== true) throw new Error(`not converged: ${verdict}`);
  });
  await fc.assert(property, { numRuns: options.numRuns ?? 50, ...(options.seed === undefined ? {} : { seed: options.seed }) });
};

const runUntilQuiet = async <World>(context: ConvergenceContext<World>, observed: { readonly cluster: Cluster; readonly writes: () => number }, options: ConvergenceOptions<World>): Promise<void> => {
  const limit = options.maxQuietPasses ?? 20;
  for (let pass = 0; pass < limit; pass++) {
    const before = observed.writes();
    await swallow(drive(context.clock, options.reconcile(observed.cluster, context.clock)));
    await context.clock.advance(options.passIntervalMs ?? 1_000);
    await context.cluster.settle();
    if (observed.writes() === before) return;
  }
  throw new Error(`still writing after ${limit} passes without faults: the controller does not converge (hot loop?)`);
};

const swallow = async (pass: Promise<void>): Promise<void> => { try { await pass; } catch { /* a failing pass is retried by the next one */ } };
