/** etcd for a test control plane: loopback only, throwaway data dir, fsync off when supported. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startProcess, type ManagedProcess } from './managed-process.js';
import { pollUntil } from './poll.js';

const run = promisify(execFile);

export type EtcdOptions = {
  readonly binary: string;
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly logPath: string;
  readonly timeoutMs: number;
};

// envtest adds --unsafe-no-fsync only when `etcd --help` lists it (3.5+; Debian's 3.4 lacks it).
const supportsNoFsync = async (binary: string): Promise<boolean> => {
  try {
    const { stdout, stderr } = await run(binary, ['--help'], { maxBuffer: 4 * 1024 * 1024 });
    return `${stdout}${stderr}`.includes('unsafe-no-fsync');
  } catch (error) {
    const output = error as { stdout?: string; stderr?: string };
    return `${output.stdout ?? ''}${output.stderr ?? ''}`.includes('unsafe-no-fsync');
  }
};

export const etcdArgs = async (options: EtcdOptions): Promise<ReadonlyArray<string>> => {
  const client = `http://127.0.0.1:${options.clientPort}`;
  const peer = `http://127.0.0.1:${options.peerPort}`;
  return [
    '--name=kreconcile-test',
    `--data-dir=${options.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    // Explicit, so nothing depends on the default localhost:2380.
    `--initial-cluster=kreconcile-test=${peer}`,
    '--logger=zap',
    '--log-level=warn',
    ...((await supportsNoFsync(options.binary)) ? ['--unsafe-no-fsync=true'] : []),
  ];
};

/** Starts etcd and waits until `/health` says true. */
export const startEtcd = async (options: EtcdOptions): Promise<ManagedProcess> => {
  const etcd = startProcess('etcd', options.binary, await etcdArgs(options), options.logPath);
  const url = `http://127.0.0.1:${options.clientPort}/health`;
  try {
    await pollUntil(
      async () => {
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
          return response.ok && (await response.text()).includes('"health":"true"');
        } catch {
          return false;
        }
      },
      { what: `etcd ${url}`, timeoutMs: options.timeoutMs, intervalMs: 100, processes: [etcd] },
    );
  } catch (error) {
    await etcd.stop();
    throw error;
  }
  return etcd;
};
