/**
 * A child process of the test control plane: output captured to a log file, a stop that
 * escalates from SIGTERM to SIGKILL, and a kill on exit so no etcd outlives a crashed run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export type ExitStatus = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

export type ManagedProcess = {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Settles when the process has exited, for whatever reason. */
  readonly exited: Promise<ExitStatus>;
  isRunning(): boolean;
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process is gone. Idempotent. */
  stop(timeoutMs?: number): Promise<ExitStatus>;
};

// Processes still running; killed synchronously if the parent exits without stopping them.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
const installExitHook = (): void => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
};

/** The last `lines` lines of a log file ('' when it cannot be read). */
export const tail = (path: string, lines = 40): string => {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
};

/** Starts `binary args…`, appending stdout and stderr to `logPath`. */
export const startProcess = (
  name: string,
  binary: string,
  args: ReadonlyArray<string>,
  logPath: string,
): ManagedProcess => {
  installExitHook();
  const fd = openSync(logPath, 'a');
  const child = spawn(binary, [...args], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  live.add(child);
  let running = true;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      live.delete(child);
      resolve({ code, signal });
    });
    child.once('error', () => {
      running = false;
      live.delete(child);
      resolve({ code: null, signal: null });
    });
  });
  const stop = async (timeoutMs = 20_000): Promise<ExitStatus> => {
    if (!running) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  return { name, pid: child.pid ?? -1, logPath, exited, isRunning: () => running, stop };
};
