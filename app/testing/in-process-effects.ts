/**
 * What an in-process controller does to the process it shares with the test runner, caught while
 * its run lasts: an unhandled promise rejection or an uncaught exception (either ends a Node
 * process with exit code 1) and `process.exit(code)` are the controller's crash, not the test
 * runner's failure; its console output is its log, kept (bounded) for the report rather than
 * printed. The process's own listeners, `process.exit` and the console are put back on release.
 * Bound: any unhandled rejection while the run lasts counts as the controller's (the kit's own
 * promises are all handled). Guide: docs/testing.md, "In process".
 */
import { format } from 'node:util';
import { boundedLog } from './controller-process.js';

/**
 * What the kit needs of the process an in-process controller shares with the test runner: its
 * environment (`KUBECONFIG` is set there while the run lasts), its crash listeners and `exit`.
 */
export type ControllerHost = Pick<NodeJS.Process, 'env' | 'exit' | 'on' | 'off' | 'listeners' | 'removeAllListeners'>;

/** How an in-process controller crashed: `at` on the run's clock, the exit code its process would have had. */
export type InProcessCrash = {
  readonly at: number;
  readonly how: string;
  readonly code: number;
  readonly error: unknown;
};

export type InProcessEffects = {
  /** The first crash, if any. */
  crash(): InProcessCrash | undefined;
  /** Every crash, oldest first: one per instance at most (what a crashed instance does later is its crash's effect). */
  crashes(): ReadonlyArray<InProcessCrash>;
  /** A new instance of the controller runs: its crash is recorded and reported again. */
  restarted(): void;
  /** The kit killed the running instance (a fault): what it does until the next one starts is no crash. */
  killed(): void;
  /** Records a crash found elsewhere (a virtual timer's callback threw). */
  crashed(how: string, error: unknown, code?: number): void;
  /** The newest output lines, `stdout| …` / `stderr| …`. */
  logTail(lines: number): ReadonlyArray<string>;
  /** Puts back the process's listeners, `process.exit` and the console. Idempotent. */
  release(): void;
};

/**
 * Thrown into the controller by its `process.exit` call: the code after it must not run, as in a process that exited.
 */
class ControllerExited extends Error {}

const CONSOLE = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr' } as const;

/** Routes what the controller prints with `console` to `write`; everyone else's goes through. Returns the undo. */
const captureConsole = (
  inRun: () => boolean,
  write: (stream: 'stdout' | 'stderr', chunk: string) => void,
): (() => void) => {
  const saved: Array<[string, unknown]> = Object.entries(CONSOLE).map(([name, stream]) => {
    const real: unknown = Reflect.get(console, name);
    Reflect.set(console, name, (...args: unknown[]): void => {
      if (inRun()) write(stream, `${format(...args)}\n`);
      else if (typeof real === 'function') Reflect.apply(real, console, args);
    });
    return [name, real];
  });
  return () => saved.forEach(([name, real]) => Reflect.set(console, name, real));
};

/** The crashes of the controller's instances, one per instance: `onCrash` is told of each. */
const crashRecord = (now: () => number, onCrash: (crash: InProcessCrash) => void) => {
  const state: { crashes: InProcessCrash[]; down: boolean } = { crashes: [], down: false };
  return {
    crashed: (how: string, error: unknown, code = 1): void => {
      if (state.down || error instanceof ControllerExited) return;
      const crash = { at: now(), how, code, error };
      state.crashes.push(crash);
      state.down = true;
      onCrash(crash);
    },
    crash: (): InProcessCrash | undefined => state.crashes[0],
    crashes: (): ReadonlyArray<InProcessCrash> => [...state.crashes],
    restarted: (): void => {
      state.down = false;
    },
    killed: (): void => {
      state.down = true;
    },
  };
};

/**
 * Catches the controller's effects on `host` until `release()`. `inRun` tells whether the caller runs in
 * the controller's async context (console and `process.exit` of anyone else go through), `now`
 * is the run's clock, `onCrash` is told of each instance's crash.
 */
export const catchInProcessEffects = (
  host: ControllerHost,
  inRun: () => boolean,
  now: () => number,
  onCrash: (crash: InProcessCrash) => void,
): InProcessEffects => {
  const log = boundedLog(64 * 1024);
  const state = { released: false };
  const { crashed, ...crashes } = crashRecord(now, onCrash);
  const saved = {
    rejection: host.listeners('unhandledRejection'),
    exception: host.listeners('uncaughtException'),
    exit: host.exit,
  };
  const onRejection = (reason: unknown): void => crashed('an unhandled promise rejection', reason);
  const onException = (error: unknown): void => crashed('an uncaught exception', error);
  host.removeAllListeners('unhandledRejection').on('unhandledRejection', onRejection);
  host.removeAllListeners('uncaughtException').on('uncaughtException', onException);
  host.exit = (code?: number | string | null): never => {
    if (!inRun()) return saved.exit.call(host, code);
    const exitCode = Number(code ?? 0);
    crashed(`process.exit(${String(code ?? '')})`, `exit code ${exitCode}`, Number.isInteger(exitCode) ? exitCode : 1);
    throw new ControllerExited(`the controller called process.exit(${String(code ?? '')})`);
  };
  const restoreConsole = captureConsole(inRun, log.write);
  return {
    ...crashes,
    crashed,
    logTail: log.tail,
    release: () => {
      if (state.released) return;
      state.released = true;
      host.off('unhandledRejection', onRejection).off('uncaughtException', onException);
      saved.rejection.forEach((listener) => host.on('unhandledRejection', listener));
      saved.exception.forEach((listener) => host.on('uncaughtException', listener));
      host.exit = saved.exit;
      restoreConsole();
    },
  };
};
