/**
 * One world of `checkController` for a controller module run in process, unchanged: the kit
 * imports a fresh instance of its entry point with `KUBECONFIG` pointing at the served memory
 * cluster, its timers and dates on the run's manual clock (virtual-time.ts), and its requests
 * released one at a time by a seeded scheduler (request-scheduler.ts). Time moves only when the
 * controller is idle: the run is a discrete-event simulation, fast and replayable.
 * Guide: docs/testing.md, "In process".
 */
import { createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import { ManualClock, flushMicrotasks } from '../../adapters/memory/clock/manual-clock.js';
import { counted, tally, type ConvergenceContext } from './check-convergence.js';
import type { ControllerCheckOptions, ControllerModule } from './controller-check-options.js';
import { drive } from './drive.js';
import { controllerInstances, type Instances, type Loading } from './in-process-instances.js';
import { promiseCluster } from './promise-cluster.js';
import { scheduleRequests, type AnsweredWrite, type RequestScheduler } from './request-scheduler.js';
import { controllerKills, faultList, type ControllerKills } from './controller-kills.js';
import { faultWatcher, fingerprint, note, seconds, timeline, timelineText, type Timeline } from './run-timeline.js';
import { catchInProcessEffects, type InProcessCrash, type InProcessEffects } from './in-process-effects.js';
import { virtualTime, type VirtualTime } from './virtual-time.js';
import { defined } from '../../core/json/defined.js';

/** What one in-process run needs while it lasts. */
type Run<World> = {
  readonly options: ControllerCheckOptions<World>;
  readonly spec: ControllerModule;
  readonly context: ConvergenceContext<World>;
  readonly scheduler: RequestScheduler;
  readonly timeline: Timeline;
  /** The controller's crash and output (in-process-effects.ts). */
  readonly effects: InProcessEffects;
  /** The module's instances: the one running, restarts after crashes (in-process-instances.ts). */
  readonly instances: Instances;
  /** The kit's kills of the controller (`killAfterWrites`). */
  readonly kills: ControllerKills;
  readonly watchFaults: () => void;
  steps: number;
  lastStepAt: number;
};

const realSleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

const turn = (): Promise<void> => new Promise((done) => setImmediate(done));

/**
 * Waits until the controller is idle: `idleTurns` turns of the event loop in a row (each one
 * runs the I/O that is ready: an answer read, a request written) without a request arriving or
 * being answered, and at least `idleMs` of real time since the last one. Counting turns rather
 * than time keeps this true on a loaded machine: a busy controller holds the loop, so no turn passes.
 */
const waitIdle = async <World>(run: Run<World>): Promise<void> => {
  const [idleMs, idleTurns] = [run.spec.idleMs ?? 2, run.spec.idleTurns ?? 40];
  for (;;) {
    const mark = run.scheduler.activity();
    for (let count = 0; count < idleTurns && run.scheduler.activity() === mark; count++) await turn();
    const quietFor = performance.now() - Math.max(run.scheduler.lastActivityAt(), run.lastStepAt);
    if (run.scheduler.activity() === mark && quietFor >= idleMs) return;
    if (quietFor < idleMs) await realSleep(Math.max(1, idleMs - quietFor));
  }
};

/** Starts the crashed controller's next instance, then waits until it sent a request or loaded and went idle. */
const restart = async <World>(run: Run<World>): Promise<void> => {
  note(
    run.timeline,
    `the controller restarted (instance ${run.instances.started() + 1}, a fresh import of its module)`,
  );
  await started(run, await run.instances.start());
};

/** Moves the clock to the next timer or restart due by `until`, firing it; false when none is. */
const nextEvent = async <World>(run: Run<World>, until: number): Promise<boolean> => {
  const clock = run.context.clock;
  const [timer, restartAt] = [clock.nextTimerAt(), run.instances.restartAt()];
  if (restartAt !== undefined && restartAt <= until && (timer === undefined || restartAt <= timer)) {
    await clock.advance(Math.max(0, restartAt - clock.now()));
    await restart(run);
    return true;
  }
  if (timer === undefined || timer > until) return false;
  await clock.advance(timer - clock.now());
  return true;
};

/** One step once the controller is idle: release a held request, or fire the next timer (or restart) due by `until`. */
const step = async <World>(run: Run<World>, until: number): Promise<boolean> => {
  await waitIdle(run);
  const clock = run.context.clock;
  const moved = run.scheduler.releaseNext() || (await nextEvent(run, until));
  if (moved && ++run.steps > (run.spec.maxSteps ?? 20_000))
    throw new Error(
      `hot loop: more than ${run.spec.maxSteps ?? 20_000} steps (requests and timers) by ${seconds(clock.now() - run.timeline.began)}`,
    );
  run.lastStepAt = performance.now();
  run.watchFaults();
  return moved;
};

/** Runs the controller until the clock reads `until` (timers due by then fire, held requests go). */
const runUntil = async <World>(run: Run<World>, until: number): Promise<void> => {
  while (await step(run, until));
  const clock = run.context.clock;
  if (until > clock.now()) await clock.advance(until - clock.now());
};

/** The harness's events while faults are on, in clock order: perturbations and API-server restarts. */
const agenda = <World>(run: Run<World>): ReadonlyArray<{ readonly at: number; readonly act: () => Promise<void> }> => {
  const { options, context, timeline: line } = run;
  const faultyMs = options.faultyMs ?? 10_000;
  const every = options.perturbEveryMs ?? 1_000;
  const perturb = options.perturb;
  const perturbations =
    perturb === undefined
      ? []
      : Array.from({ length: Math.floor((faultyMs - 1) / every) }, (_, index) => ({
          at: (index + 1) * every,
          act: () => perturb(context, index),
        }));
  const restarts = (options.apiServerRestartsAt ?? []).map((at) => ({
    at,
    act: () => {
      context.cluster.restart();
      note(line, 'API-server restart (connections dropped, watch cache starts over)');
      return Promise.resolve();
    },
  }));
  return [...perturbations, ...restarts].sort((a, b) => a.at - b.at);
};

/**
 * Lets the controller run while the harness's `task` (a perturbation, which may wait on injected
 * latency) finishes; what the task throws is ignored (faults are on: it may fail).
 */
const alongside = async <World>(run: Run<World>, task: Promise<void>): Promise<void> => {
  const state = { done: false };
  void task.catch(() => undefined).finally(() => (state.done = true));
  await flushMicrotasks();
  while (!state.done) if (!(await step(run, Number.POSITIVE_INFINITY))) await realSleep(1);
  run.lastStepAt = performance.now();
};

/** Faults on for `faultyMs` of the run's clock, with the harness's events on time; then faults off. */
const faultyPhase = async <World>(run: Run<World>): Promise<void> => {
  const began = run.timeline.began;
  run.context.cluster.setFaults(run.options.faults ?? {});
  for (const event of agenda(run)) {
    await runUntil(run, began + event.at);
    await alongside(run, event.act());
  }
  await runUntil(run, began + (run.options.faultyMs ?? 10_000));
  run.context.cluster.setFaults({});
  note(run.timeline, 'faults stopped');
};

/**
 * Quiet, on the run's clock: over a whole settle period (every timer due within it fired) no
 * write was sent and no object changed, and no request is held or unanswered at its end.
 */
const untilQuiet = async <World>(run: Run<World>): Promise<string | undefined> => {
  const { clock, cluster } = run.context;
  const settleMs = run.options.settleMs ?? 10_000;
  const deadline = clock.now() + (run.options.quietWithinMs ?? 120_000);
  const writesBefore = run.scheduler.writes().length;
  for (;;) {
    const [before, writes] = [fingerprint(cluster), run.scheduler.writes().length];
    await runUntil(run, clock.now() + settleMs);
    await waitIdle(run);
    // a controller waiting out its restart backoff is not quiet: its next instance has work to do
    const busy = run.scheduler.held() + run.scheduler.running() + (run.instances.restartAt() === undefined ? 0 : 1);
    if (busy === 0 && fingerprint(cluster) === before && run.scheduler.writes().length === writes) return undefined;
    if (clock.now() >= deadline) {
      const written = run.scheduler.writes().slice(writesBefore);
      return (
        `never quiet: still writing ${seconds(run.options.quietWithinMs ?? 120_000)} (the run's clock) after faults stopped` +
        (written.length === 0 ? '' : `; it wrote meanwhile: ${tally(counted(written.slice(-20)))}`)
      );
    }
  }
};

const errorText = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);

/** The first crash as a verdict: when (the run's clock), how, the exit code its process would have had. */
const crashText = <World>(run: Run<World>): string | undefined => {
  const crash = run.effects.crash();
  return crash === undefined
    ? undefined
    : `the controller crashed at ${seconds(crash.at - run.timeline.began)} (the run's clock): ${crash.how}, ` +
        `its process would exit with code ${crash.code} and restart (a controller runs until stopped): ${errorText(crash.error)}`;
};

const crashLine = (crash: InProcessCrash, began: number): string =>
  `${crash.how} (exit code ${crash.code}) at ${seconds(crash.at - began)}`;

/** The crashes, kills and restarts of the run, as the process runner reports a process's exits. */
const restartsText = <World>(run: Run<World>): string => {
  const crashes = run.effects.crashes();
  const killed = run.kills.text();
  const crashed =
    crashes.length === 0
      ? 'the controller never crashed (no unhandled rejection, uncaught exception or process.exit)'
      : `the controller crashed: ${crashes.map((crash) => crashLine(crash, run.timeline.began)).join(', then ')}`;
  if (crashes.length === 0 && killed === undefined) return crashed;
  const restarts = run.instances.started() - 1;
  return (
    `${crashed}; ${killed === undefined ? '' : `kit faults: ${killed}; `}` +
    `restarted ${restarts} time${restarts === 1 ? '' : 's'}` +
    (run.instances.gaveUp() ? ', then stayed down (restarts ran out: CrashLoopBackOff)' : '')
  );
};

const logText = (lines: ReadonlyArray<string>): string =>
  lines.length === 0 ? 'its output: (none)' : `its last ${lines.length} output lines:\n  ${lines.join('\n  ')}`;

/** The lines a failed in-process run's error carries after its verdict. */
const report = <World>(run: Run<World>): string => {
  const trace = run.scheduler.trace();
  return [
    faultList(run.context.cluster, run.kills),
    timelineText(run.timeline, "the run's clock"),
    `requests (${trace.length}, in the order the kit released them; the last 20): ${trace.slice(-20).join('; ')}`,
    restartsText(run),
    logText(run.effects.logTail(20)),
  ].join('\n');
};

/**
 * Waits (sleeping, in real time) until the module has sent its first request, or has loaded and
 * stayed idle: the clock must not move while the module is still loading (its first request
 * would then meet a later world on some runs than on others).
 */
const started = async <World>(run: Run<World>, loading: Loading): Promise<string | undefined> => {
  const withinMs = run.options.startupWithinMs ?? 30_000;
  const deadline = performance.now() + withinMs;
  while (run.scheduler.held() === 0 && !loading.settled) {
    if (performance.now() > deadline)
      return `the controller's module neither loaded nor sent a request within ${seconds(withinMs)}`;
    await realSleep(5);
  }
  await waitIdle(run);
  return undefined;
};

/**
 * The run after setup: the module loaded, faults, quiet (crashed instances restarted meanwhile),
 * then the verdict: a crash unless crashes are tolerated, else the invariant.
 */
const judge = async <World>(run: Run<World>, loading: Loading): Promise<true | string> => {
  const silent = await started(run, loading);
  if (silent !== undefined) return crashText(run) ?? silent;
  await faultyPhase(run);
  const unquiet = await untilQuiet(run);
  const crash = run.options.tolerateExits === true ? undefined : crashText(run);
  if (crash !== undefined) return crash;
  if (run.instances.gaveUp()) return `the controller stays down: its restarts ran out (${crashText(run) ?? ''})`;
  return unquiet ?? run.options.converged(run.context);
};

/**
 * A fresh cluster on the kit's manual clock, set up by the harness for `world` (its own fault stream, no faults
 * meanwhile); the process runner's too.
 */
export const setUpWorld = async <World>(
  options: ControllerCheckOptions<World>,
  world: World,
  seed: number,
): Promise<ConvergenceContext<World>> => {
  const clock = new ManualClock();
  const cluster: MemoryCluster = createMemoryCluster({
    clock,
    seed,
    workloads: options.workloads ?? true,
    ...defined({ pods: options.pods }),
  });
  const context: ConvergenceContext<World> = {
    cluster,
    api: promiseCluster(cluster.forClient('harness')),
    clock,
    world,
  };
  await drive(clock, options.setup(context));
  return context;
};

/**
 * The run's virtual time, the controller's crash catcher and its instances: a crashed process
 * hears nothing and its timers stop, so on a crash its instance goes dormant (the scheduler
 * answers it nothing more, its time halted) and the next one is scheduled.
 */
const catchCrashes = (
  spec: ControllerModule,
  options: Pick<ControllerCheckOptions<unknown>, 'serve'>,
  clock: ManualClock,
  scheduler: RequestScheduler,
  line: Timeline,
  instance: string,
): { time: VirtualTime; effects: InProcessEffects; instances: Instances; kill: () => void } => {
  const time = virtualTime(clock, (error) => effects.crashed('an uncaught exception in a timer callback', error));
  const instances = controllerInstances({
    spec,
    serve: options.serve,
    scheduler,
    time,
    effects: () => effects,
    run: instance,
  });
  const effects = catchInProcessEffects(
    spec.process,
    () => time.inRun(),
    line.now,
    (crash) => {
      scheduler.kill();
      time.halt();
      note(line, `the controller crashed (${crash.how}, exit code ${crash.code})`);
      instances.crashed(crash.at);
    },
  );
  // the kit's kill: the instance ends as on a crash, but it is a fault, not a crash
  const kill = (): void => {
    scheduler.kill();
    time.halt();
    effects.killed();
    instances.killed(clock.now());
  };
  return { time, effects, instances, kill };
};

/** Kills the instance that sent each write `kills` names once the server answered it, before the answer reaches it. */
const killAfterWrites =
  (kills: ControllerKills, kill: () => void): AnsweredWrite =>
  (index, label) => {
    if (!kills.due(index)) return;
    kills.record(index, label);
    kill();
  };

/**
 * One generated world against a fresh cluster and fresh instances of the module (`instance`
 * tells this run's instances apart from other runs': an ES module cannot be unloaded, so each
 * instance imports it anew).
 * Guarantees: the time globals and `KUBECONFIG` are restored on every exit path; afterwards the
 * controller's requests are never answered and its timers never fire (it cannot be stopped).
 */
export const runInProcess = async <World>(
  options: ControllerCheckOptions<World>,
  spec: ControllerModule,
  world: World,
  seed: number,
  instance: string,
): Promise<void> => {
  const context = await setUpWorld(options, world, seed);
  const line = timeline(() => context.clock.now());
  const kills = controllerKills(options.killAfterWrites, line, 'its instance dropped, as by SIGKILL');
  // the scheduler is told of answered writes before the instances it kills exist
  const killing: { kill?: () => void } = {};
  const scheduler = scheduleRequests(
    context.cluster.forClient('controller'),
    seed,
    killAfterWrites(kills, () => killing.kill?.()),
  );
  const { time, effects, instances, kill } = catchCrashes(spec, options, context.clock, scheduler, line, instance);
  killing.kill = kill;
  const run: Run<World> = {
    options,
    spec,
    context,
    scheduler,
    effects,
    instances,
    kills,
    steps: 0,
    lastStepAt: performance.now(),
    timeline: line,
    watchFaults: faultWatcher(context.cluster, line),
  };
  try {
    const verdict = await judge(run, await instances.start());
    if (verdict !== true) throw new Error(`${verdict}\n${report(run)}`);
  } finally {
    scheduler.freeze();
    options.onRun?.({
      seed,
      trace: scheduler.trace(),
      mostHeld: scheduler.mostHeld(),
      restarts: Math.max(0, instances.started() - 1),
      kills: kills.count(),
    });
    effects.release();
    time.restore();
    await instances.release();
  }
};
