/**
 * `checkController`: the convergence property for a controller run as it is written — its
 * unchanged entry point as a child process (any language) against the kit's memory cluster
 * served over HTTP. For every generated world: setup, the controller under faults for a while
 * (in real time: a process runs on its own clock), faults off, wait until the world is truly
 * quiet, then the invariant. Crashes, restarts and the controller's output go into the report.
 * Guide: docs/testing.md §1.
 */
import { randomUUID } from 'node:crypto';
import { serveMemoryCluster } from '../../adapters/memory/http/index.js';
import type { MemoryCluster } from '../../adapters/memory/index.js';
import type { ManualClock } from '../../adapters/memory/clock/manual-clock.js';
import { trackActivity, type Activity, type WriteHook } from './activity.js';
import { counted, tally, checkWorlds, type ConvergenceContext } from './check-convergence.js';
import {
  controllerReport,
  superviseController,
  type ControllerCommand,
  type SupervisedController,
} from './controller-process.js';
import { runInProcess, setUpWorld } from './check-in-process.js';
import type { ControllerCheckOptions } from './controller-check-options.js';
import { controllerKills, faultList, type ControllerKills } from './controller-kills.js';
import {
  faultWatcher,
  fingerprint,
  note,
  seconds,
  timeline as newTimeline,
  timelineText,
  type Timeline,
} from './run-timeline.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Moves the kit's manual clock with real time (latency, watch timeouts, bookmarks fire on time),
 * sleeping 10 ms between steps; `each` runs after every step.
 */
const pumpClock = (clock: ManualClock, each: () => void): (() => void) => {
  let last = performance.now();
  let stopped = false;
  const tick = async (): Promise<void> => {
    while (!stopped) {
      await sleep(10);
      const now = performance.now();
      await clock.advance(now - last);
      last = now;
      each();
    }
  };
  void tick();
  return () => {
    stopped = true;
  };
};

/** Why the world is not quiet yet, or undefined when it is (see docs/testing.md §1, "quiet"). */
const notQuiet = (
  activity: Activity,
  controller: SupervisedController,
  changedAt: number,
  settleMs: number,
): string | undefined => {
  const now = performance.now();
  const startedAt = controller.startedAt();
  if (!controller.running() || startedAt === undefined) return 'the controller is down (restarting)';
  if (activity.inFlight() > 0) return `${activity.inFlight()} requests in flight`;
  if (activity.lastRequestAt() < startedAt) return 'the controller has sent no request since it (re)started';
  if (now - startedAt < settleMs) return 'the controller started less than the settle period ago';
  if (now - activity.lastWriteAt() < settleMs) return 'a write arrived within the settle period';
  // a read is often the first half of a write still to come (read, decide, write)
  if (now - activity.lastRequestAt() < settleMs) return 'a request arrived within the settle period';
  if (now - changedAt < settleMs) return 'an object changed within the settle period';
  return undefined;
};

/** Waits (sleeping, not spinning) until quiet; the reason it is not, past `quietWithinMs`. */
const waitUntilQuiet = async (
  cluster: MemoryCluster,
  activity: Activity,
  controller: SupervisedController,
  options: Pick<ControllerCheckOptions<unknown>, 'settleMs' | 'quietWithinMs'>,
): Promise<string | undefined> => {
  const settleMs = options.settleMs ?? 1_000;
  const deadline = performance.now() + (options.quietWithinMs ?? 20_000);
  let seen = fingerprint(cluster);
  let changedAt = performance.now();
  const writesBefore = activity.writes().length;
  for (;;) {
    await sleep(Math.max(10, settleMs / 5));
    await cluster.settle();
    if (controller.gaveUp()) return 'the controller stays down: its restarts ran out';
    const now = fingerprint(cluster);
    if (now !== seen) [seen, changedAt] = [now, performance.now()];
    const reason = notQuiet(activity, controller, changedAt, settleMs);
    if (reason === undefined) return undefined;
    if (performance.now() > deadline) {
      const written = activity.writes().slice(writesBefore);
      return (
        `not quiet ${seconds(options.quietWithinMs ?? 20_000)} after faults stopped (${reason})` +
        (written.length === 0 ? '' : `; it wrote meanwhile: ${tally(counted(written.slice(-20)))}`)
      );
    }
  }
};

/** The controller under faults for `faultyMs`, perturbed every `perturbEveryMs`, API-server restarts on schedule. */
const faultyPhase = async <World>(
  options: ControllerCheckOptions<World>,
  context: ConvergenceContext<World>,
  timeline: Timeline,
): Promise<void> => {
  const faultyMs = options.faultyMs ?? 1_500;
  const restarts = [...(options.apiServerRestartsAt ?? [])].sort((a, b) => a - b);
  const from = performance.now();
  context.cluster.setFaults(options.faults ?? {});
  for (let step = 0, elapsed = 0; elapsed < faultyMs; step++) {
    const next = Math.min(faultyMs, elapsed + (options.perturbEveryMs ?? 300), restarts[0] ?? Infinity);
    await sleep(next - elapsed);
    elapsed = performance.now() - from;
    if (restarts[0] !== undefined && restarts[0] <= elapsed) {
      restarts.shift();
      context.cluster.restart();
      note(timeline, 'API-server restart (connections dropped, watch cache starts over)');
    } else if (options.perturb !== undefined && elapsed < faultyMs)
      await options.perturb(context, step).catch(() => undefined);
  }
  context.cluster.setFaults({});
  note(timeline, 'faults stopped');
};

/** The lines a failed run's error carries after its verdict. */
const report = (
  cluster: MemoryCluster,
  controller: SupervisedController,
  timeline: Timeline,
  kills: ControllerKills,
): string => {
  return [faultList(cluster, kills), timelineText(timeline, 'real time'), controllerReport(controller)].join('\n');
};

/** The first exit as a finding, unless exits are tolerated; the kit's kills are faults, never findings. */
const exitFinding = (controller: SupervisedController, tolerate: boolean | undefined): string | undefined => {
  const first = controller.exits().find((exit) => !exit.byKit);
  if (tolerate === true || first === undefined) return undefined;
  const how = first.code === null ? `was killed by ${first.signal ?? 'a signal'}` : `exited with code ${first.code}`;
  return `the controller ${how} at ${seconds(first.at)} (a controller runs until stopped: an exit is a crash)`;
};

/** Waits (sleeping) for the controller's first request; a finding when it sends none in time or stays down. */
const firstRequest = async (
  activity: Activity,
  controller: SupervisedController,
  withinMs: number,
): Promise<string | undefined> => {
  const deadline = performance.now() + withinMs;
  while (activity.lastRequestAt() === -Infinity) {
    if (controller.gaveUp()) return 'the controller stays down: its restarts ran out before it sent a request';
    if (performance.now() > deadline)
      return `the controller sent no request within ${seconds(withinMs)} of starting (wrong kubeconfig? it must read KUBECONFIG)`;
    await sleep(20);
  }
  return undefined;
};

/** The run after the world is set up: the controller up, faults, quiet, the invariant. */
const judge = async <World>(
  options: ControllerCheckOptions<World>,
  context: ConvergenceContext<World>,
  activity: Activity,
  controller: SupervisedController,
  timeline: Timeline,
): Promise<true | string> => {
  const silent = await firstRequest(activity, controller, options.startupWithinMs ?? 30_000);
  if (silent !== undefined) return silent;
  note(timeline, "the controller's first request");
  await faultyPhase(options, context, timeline);
  const unquiet = await waitUntilQuiet(context.cluster, activity, controller, options);
  if (unquiet !== undefined) return `never quiet: ${unquiet}`;
  return exitFinding(controller, options.tolerateExits) ?? (await options.converged(context));
};

/**
 * Kills the controller once each write `kills` names is answered, before the answer goes back; only
 * the process that sent the write (a write still in flight from a process killed already kills nothing).
 */
const killAfterWrites =
  (kills: ControllerKills, supervised: () => SupervisedController | undefined): WriteHook =>
  (index, label) => {
    const sender = supervised()?.startedAt();
    if (!kills.due(index) || sender === undefined) return undefined;
    return async () => {
      const controller = supervised();
      if (controller === undefined || controller.startedAt() !== sender) return;
      // false when write `index` came from a process the kit is killing already (two writes in flight at once)
      if (await controller.kill()) kills.record(index, label);
    };
  };

/** One generated world against a fresh cluster, endpoint and controller process. */
const runOnce = async <World>(
  options: ControllerCheckOptions<World>,
  command: ControllerCommand,
  world: World,
  seed: number,
): Promise<void> => {
  const context = await setUpWorld(options, world, seed);
  const { cluster, clock } = context;
  const timeline = newTimeline(() => performance.now());
  const kills = controllerKills(options.killAfterWrites, timeline, 'SIGKILL');
  const supervised: { controller?: SupervisedController } = {};
  // Each of the process's calls draws its faults by what it is, not by when it arrived (keyed); the harness has a
  // stream of its own, so its requests never shift the controller's faults.
  const activity = trackActivity(
    cluster.forClient('controller', { keyedFaults: true }),
    undefined,
    killAfterWrites(kills, () => supervised.controller),
  );
  const served = await serveMemoryCluster(activity.cluster, options.serve ?? {});
  const stopPump = pumpClock(clock, faultWatcher(cluster, timeline));
  // on from the process's first request, not from when the kit noticed it: a replay's first requests meet the same
  // faults
  cluster.setFaults(options.faults ?? {});
  const controller = await superviseController(command, served.kubeconfig).catch(async (error: unknown) => {
    stopPump();
    await served.close();
    throw error;
  });
  supervised.controller = controller;
  try {
    const verdict = await judge(options, context, activity, controller, timeline);
    if (verdict !== true) throw new Error(`${verdict}\n${report(cluster, controller, timeline, kills)}`);
  } finally {
    await controller.stop();
    stopPump();
    await served.close();
    // in the order the calls were answered, which is real time's: sorted, a replay's trace compares
    const trace = [...activity.trace()].sort();
    const restarts = controller.exits().length - (controller.gaveUp() ? 1 : 0);
    options.onRun?.({ seed, trace, mostHeld: activity.mostInFlight(), restarts, kills: kills.count() });
  }
};

/**
 * Runs the property against a controller process.
 * Guarantees: each run has its own cluster, endpoint, kubeconfig (0600, removed after) and
 * process; the cluster's faults are seeded from the run and each call's faults are decided by
 * what it is (verb, object, how many such calls came before it), but a process runs in real
 * time, so a replay reproduces the world and each call's faults, not necessarily the interleaving
 * (docs/testing.md, "Replays of a process").
 * Errors: rejects with a ConvergenceFailure (seed, path, counterexample, the run's error as `cause`).
 */
export const checkController = <World>(options: ControllerCheckOptions<World>): Promise<void> => {
  const spec = options.controller;
  return checkWorlds(options, 5, 'checkController', (world, seed) =>
    'module' in spec ? runInProcess(options, spec, world, seed, randomUUID()) : runOnce(options, spec, world, seed),
  );
};
