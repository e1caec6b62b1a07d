/**
 * Runs a controller's unchanged entry point as a child process, as a Deployment runs its
 * container: `KUBECONFIG` points at a kubeconfig the kit wrote (mode 0600, in a private temp
 * directory), an exit or a crash is followed by a restart after a doubling backoff (the
 * kubelet's CrashLoopBackOff, scaled down), bounded restarts, and the output kept (bounded) for
 * the report. Guide: docs/testing.md §1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The controller to run: any executable (`[process.execPath, 'dist/main.js']`, `['go', 'run', '.']`). */
export type ControllerCommand = {
  readonly command: readonly [string, ...string[]];
  /**
   * The process's whole environment besides `KUBECONFIG` (the kit's, always). Default: none, so
   * nothing of the developer's shell (their own KUBECONFIG, cloud credentials) reaches the
   * controller; pass `{ ...process.env, … }` to inherit PATH, HOME and the rest.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Restarts after its own exits before the kit gives up, as a crash-looping pod stays down (default 5). */
  readonly maxRestarts?: number;
  /** Backoff before the first restart, doubling up to `maxBackoffMs` (defaults 100 ms and 1 s). */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Bytes of stdout and stderr kept, the newest (default 64 KiB). */
  readonly logBytes?: number;
};

/** One exit of the process: `at` is ms since the run began; `byKit`: the kit killed it (a fault, not a finding). */
export type ControllerExit = {
  readonly at: number;
  readonly code: number | null;
  readonly signal: string | null;
  readonly byKit: boolean;
};

export type SupervisedController = {
  /** Every exit so far, oldest first (the kit's own stop is not one; its kills are, marked `byKit`). */
  exits(): ReadonlyArray<ControllerExit>;
  /** The process is up (not between an exit and its restart, not given up). */
  running(): boolean;
  /** When the current process started (`performance.now()`; undefined while it is down). */
  startedAt(): number | undefined;
  /** The restarts ran out: the controller stays down. */
  gaveUp(): boolean;
  /** The newest output lines, `stdout| …` / `stderr| …`. */
  logTail(lines: number): ReadonlyArray<string>;
  /**
   * Kills the running process with SIGKILL, a fault of the kit's: its exit is marked `byKit`, it is
   * restarted after its backoff and does not count towards `maxRestarts`. Resolves once it exited (its
   * exit is recorded when its output closes): true, or false when no process runs or the kit is killing it already.
   */
  kill(): Promise<boolean>;
  /** Stops the process (SIGTERM, then SIGKILL after 2 s) and removes the kubeconfig. */
  stop(): Promise<void>;
};

const exitText = (exit: ControllerExit): string =>
  `${exit.byKit ? 'was killed by the kit (SIGKILL, a fault)' : exit.code === null ? `killed by ${exit.signal ?? 'a signal'}` : `exited with code ${exit.code}`} at ${(exit.at / 1000).toFixed(2)} s`;

/** The lines a report carries about the process: exits, restarts, the last output. */
export const controllerReport = (controller: SupervisedController, lines = 20): string => {
  const exits = controller.exits();
  const restarts = exits.length - (controller.gaveUp() ? 1 : 0);
  const history =
    exits.length === 0
      ? 'the controller process never exited'
      : `the controller ${exits.map(exitText).join(', then ')}; restarted ${restarts} time${restarts === 1 ? '' : 's'}` +
        (controller.gaveUp() ? ', then stayed down (restarts ran out: CrashLoopBackOff)' : '');
  const tail = controller.logTail(lines);
  return tail.length === 0
    ? `${history}\nits output: (none)`
    : `${history}\nits last ${tail.length} output lines:\n  ${tail.join('\n  ')}`;
};

/** A controller's output, bounded: what it wrote last, as lines tagged with their stream. */
export interface BoundedLog {
  readonly write: (stream: 'stdout' | 'stderr', chunk: string) => void;
  /** The last `count` lines, a line not yet ended included. */
  readonly tail: (count: number) => ReadonlyArray<string>;
}

/** The newest `limit` bytes of output, as lines tagged with their stream. */
export const boundedLog = (limit: number): BoundedLog => {
  const lines: string[] = [];
  const partial = { stdout: '', stderr: '' };
  let bytes = 0;
  const push = (line: string): void => {
    lines.push(line);
    bytes += line.length;
    while (bytes > limit && lines.length > 1) bytes -= lines.shift()?.length ?? 0;
  };
  return {
    write: (stream: 'stdout' | 'stderr', chunk: string): void => {
      const parts = (partial[stream] + chunk).split('\n');
      partial[stream] = (parts.pop() ?? '').slice(-limit);
      parts.forEach((part) => push(`${stream}| ${part.slice(-limit)}`));
    },
    tail: (count: number): ReadonlyArray<string> => {
      const pending = (['stdout', 'stderr'] as const)
        .filter((s) => partial[s] !== '')
        .map((s) => `${s}| ${partial[s]}`);
      return [...lines, ...pending].slice(-count);
    },
  };
};

/** Writes the kubeconfig where only this user can read it; returns its path and the directory to remove. */
export const writeKubeconfig = async (kubeconfig: string): Promise<{ readonly path: string; readonly dir: string }> => {
  const dir = await mkdtemp(join(tmpdir(), 'kreconcile-kit-'));
  const path = join(dir, 'kubeconfig');
  await writeFile(path, kubeconfig, { mode: 0o600 });
  return { path, dir };
};

const terminate = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });

/** Spawns `spec` with `KUBECONFIG` at `kubeconfigPath`, its output into `log`. */
const spawnController = (spec: ControllerCommand, kubeconfigPath: string, log: BoundedLog): ChildProcess => {
  const [executable, ...args] = spec.command;
  const child = spawn(executable, args, {
    cwd: spec.cwd,
    env: { ...spec.env, KUBECONFIG: kubeconfigPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => log.write('stdout', chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => log.write('stderr', chunk));
  child.on('error', (error) => log.write('stderr', `[kit] could not start ${executable}: ${error.message}\n`));
  return child;
};

/** The restarts after the controller's own exits ran out (the kit's kills do not count: they are faults). */
const ranOut = (spec: ControllerCommand, exits: ReadonlyArray<ControllerExit>): boolean =>
  exits.filter((exit) => !exit.byKit).length > (spec.maxRestarts ?? 5);

/** What the supervisor keeps: the running process, and the one the kit killed, whose exit is a fault. */
type Supervision = {
  child?: ChildProcess;
  killed?: ChildProcess;
  startedAt?: number;
  stopped: boolean;
  restartTimer?: NodeJS.Timeout;
};

/** SIGKILLs the running process, its exit marked as the kit's; resolves once it exited. */
const killChild = (state: Supervision): Promise<boolean> =>
  new Promise((resolve) => {
    const child = state.child;
    if (child === undefined || state.stopped || state.killed === child) return resolve(false);
    state.killed = child;
    // 'exit', not 'close': a grandchild holding its output open (`go run`) must not hold the write's answer forever
    child.once('exit', () => resolve(true));
    child.kill('SIGKILL');
  });

/** Starts `spec` against the endpoint of `kubeconfig` and keeps it running until `stop()`. */
export const superviseController = async (
  spec: ControllerCommand,
  kubeconfig: string,
): Promise<SupervisedController> => {
  const file = await writeKubeconfig(kubeconfig);
  const began = performance.now();
  const log = boundedLog(spec.logBytes ?? 64 * 1024);
  const exits: ControllerExit[] = [];
  const state: Supervision = { stopped: false };
  const start = (): void => {
    const child = spawnController(spec, file.path, log);
    state.child = child;
    state.startedAt = performance.now();
    child.on('close', (code, signal) => onExit(child, code, signal));
  };
  const onExit = (child: ChildProcess, code: number | null, signal: string | null): void => {
    state.child = undefined;
    state.startedAt = undefined;
    if (state.stopped) return;
    exits.push({ at: performance.now() - began, code, signal, byKit: state.killed === child });
    if (ranOut(spec, exits)) return;
    // the kit's kills double the backoff too, as the kubelet's does after an OOM kill
    const backoff = Math.min((spec.backoffMs ?? 100) * 2 ** (exits.length - 1), spec.maxBackoffMs ?? 1_000);
    state.restartTimer = setTimeout(start, backoff);
  };
  start();
  return {
    exits: () => [...exits],
    running: () => state.child !== undefined,
    startedAt: () => state.startedAt,
    gaveUp: () => ranOut(spec, exits),
    logTail: log.tail,
    kill: () => killChild(state),
    stop: async () => {
      state.stopped = true;
      clearTimeout(state.restartTimer);
      if (state.child !== undefined) await terminate(state.child);
      await rm(file.dir, { recursive: true, force: true });
    },
  };
};
