/** What `checkController` takes (check-controller.ts): the world, the controller, faults and time bounds. */
import type { FaultProfile } from '../../adapters/memory/index.js';
import type { ServeOptions } from '../../adapters/memory/http/index.js';
import type { ConvergenceOptions } from './check-convergence.js';
import type { ControllerCommand } from './controller-process.js';
import type { ControllerHost } from './in-process-effects.js';

/** A controller's entry point to import in process (a path, or a file URL). */
export type ControllerModule = {
  readonly module: string;
  /**
   * The process the module runs in (pass `process`): while the run lasts, the kit sets
   * `KUBECONFIG` in its environment, pointing at the run's endpoint, and catches its unhandled
   * rejections, uncaught exceptions and `process.exit` calls as the controller's crash; everything
   * is put back on every exit path.
   */
  readonly process: ControllerHost;
  /** The environment the module reads, if not `process.env`. */
  readonly environment?: Record<string, string | undefined>;
  /**
   * When the controller counts as waiting, so the kit releases a held request or moves the
   * clock: `idleTurns` turns of the event loop in a row (default 40) without a request arriving
   * or being answered, and `idleMs` of real time (default 2 ms). A controller whose work between
   * an answer and its next request spans more turns (a file read, a worker thread) can make a
   * replay diverge; raise `idleTurns` then.
   */
  readonly idleMs?: number;
  readonly idleTurns?: number;
  /** Steps (released requests and timers fired) a run may take before it counts as a hot loop (default 20 000). */
  readonly maxSteps?: number;
  /**
   * Restarts after crashes before the kit gives up, as a crash-looping pod stays down (default 5):
   * each restart imports a fresh instance of the module.
   */
  readonly maxRestarts?: number;
  /** Backoff before the first restart, doubling up to `maxBackoffMs`, on the run's clock (defaults 100 ms and 1 s). */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
};

/** One in-process run as `onRun` sees it. */
export type InProcessRun = {
  readonly seed: number;
  readonly trace: ReadonlyArray<string>;
  /** The most requests the controller had waiting at once (above 1: it sends them concurrently). */
  readonly mostHeld: number;
  /** Times the kit started the controller again: after a crash, an exit or one of its own kills. */
  readonly restarts: number;
  /** Times the kit killed the controller (`killAfterWrites`). */
  readonly kills: number;
};

export type ControllerCheckOptions<World> = Pick<
  ConvergenceOptions<World>,
  | 'world'
  | 'setup'
  | 'converged'
  | 'perturb'
  | 'workloads'
  | 'pods'
  | 'numRuns'
  | 'seed'
  | 'path'
  | 'verbose'
  | 'shrinkBudget'
> & {
  /**
   * The controller's entry point, run unchanged with `KUBECONFIG` set to the kit's endpoint: a
   * command (a child process, in real time) or a module (imported in process, on the run's
   * manual clock, its requests scheduled by the kit: replays reproduce).
   */
  readonly controller: ControllerCommand | ControllerModule;
  /** Faults while the controller runs at first (default: none). */
  readonly faults?: FaultProfile;
  /**
   * Time the controller runs under faults: real time from its first request for a command
   * (default 1500 ms), the run's clock for a module (default 10 s).
   */
  readonly faultyMs?: number;
  /** Time between two `perturb` steps while faults are on (default 300 ms real, or 1 s on the run's clock). */
  readonly perturbEveryMs?: number;
  /**
   * API-server restarts while faults are on, at these real times (ms after the controller's
   * first request): open connections drop, resuming from an older resourceVersion is 410 Gone.
   */
  readonly apiServerRestartsAt?: ReadonlyArray<number>;
  /**
   * Kills of the controller itself, as an OOM kill or a node's `kill -9` ends a container mid-write: when the
   * controller's Nth write (1-based, counted over the run across restarts, faults on or off) has been handled by
   * the server (applied, or answered with an error a fault or a conflict called for), the kit kills the controller
   * before the answer reaches it. A process gets SIGKILL; a module's instance is dropped as after a crash (no answer
   * or event reaches it, its timers stop). Either restarts after its backoff, as a pod's container does. A kill is a
   * fault, not a finding (whatever `tolerateExits` says): it counts in the restarts, not towards `maxRestarts`, and
   * the report's timeline and fault list name it. A write answered after its sender was killed kills nothing (a
   * process's writes in flight at once all arrive before its kill; in process, held writes of a killed instance are
   * dropped, never counted).
   */
  readonly killAfterWrites?: ReadonlyArray<number>;
  /**
   * Time without a write or a change that counts as quiet. A command: real time (default 1 s),
   * which must exceed the controller's think time between a read and the write it decides on.
   * A module: the run's clock (default 10 s; every timer due within it fires, so it must exceed
   * the controller's longest debounce or backoff, not its resync period).
   */
  readonly settleMs?: number;
  /**
   * Time allowed to become quiet once faults stop (default 20 s real, or 120 s on the run's clock); past it, the run
   * fails.
   */
  readonly quietWithinMs?: number;
  /** Real time the controller has to send its first request (default 30 s: loading a client can take seconds). */
  readonly startupWithinMs?: number;
  /**
   * A controller exit (a process) or crash (a module) is a finding by default (controllers run
   * forever); `true` lets it restart silently: the run is judged on the world it leaves.
   */
  readonly tolerateExits?: boolean;
  /**
   * Told of each run, passed or failed: its cluster seed, and every request with its answer. In
   * process: in the order the kit released them (what a replay with the same seed and path
   * reproduces). A process: sorted, as their order is real time's (a replay reproduces this
   * sorted trace when the controller's requests do not depend on the order of their answers);
   * `mostHeld` is then the most requests in flight at once and `restarts` its exits.
   */
  readonly onRun?: (run: InProcessRun) => void;
  /** Options of the served endpoint. */
  readonly serve?: Omit<ServeOptions, 'port' | 'kubeconfigPath'>;
};
