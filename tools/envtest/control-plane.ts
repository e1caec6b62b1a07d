/**
 * A real Kubernetes control plane on loopback for the integration suites (envtest's approach):
 * etcd + kube-apiserver (+ a minimal kube-controller-manager), started once, stopped at the end.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Binaries } from './binaries.js';
import { startEtcd } from './etcd.js';
import { freePorts } from './free-ports.js';
import { loadIdentity } from './https-request.js';
import { apiServerArgs, startApiServer, waitApiServerReady, type ApiServerOptions } from './kube-apiserver.js';
import { startControllerManager } from './kube-controller-manager.js';
import { writeKubeconfig } from './kubeconfig.js';
import { startProcess, tail, type ManagedProcess } from './managed-process.js';
import { generatePki } from './pki.js';
import { defined } from '../../core/json/defined.js';

export type ControlPlaneOptions = {
  readonly binaries: Binaries;
  /** Start kube-controller-manager when its binary is known (default true). */
  readonly controllerManager?: boolean;
  /** Controllers the controller manager runs beyond its default set (see kube-controller-manager.ts). */
  readonly extraControllers?: ReadonlyArray<string>;
  /**
   * Runs after the apiserver is ready and before the controller manager starts: install CRDs
   * here, because the garbage collector only rediscovers resource types every 30 s.
   */
  readonly beforeControllers?: (plane: { readonly kubeconfigPath: string; readonly server: string }) => Promise<void>;
  /** Per component start timeout (default 120 s: 2 shared cores are slow). */
  readonly startTimeoutMs?: number;
  /** Progress lines (default: silent). */
  readonly log?: (line: string) => void;
  /** Keep the working directory (logs, PKI, etcd data) after stop. */
  readonly keepDir?: boolean;
};

export type ControlPlane = {
  readonly server: string;
  readonly kubeconfigPath: string;
  readonly dir: string;
  /** Milliseconds from start until everything was ready. */
  readonly startMs: number;
  readonly withControllerManager: boolean;
  /** Stops the apiserver and starts it again on the same port and etcd; resolves once ready again. */
  restartApiServer(): Promise<void>;
  /** Components that exited on their own (a crash mid-run); empty when all is well. */
  deadComponents(): ReadonlyArray<string>;
  /** The tails of every component's log, for failure reports. */
  logTails(lines?: number): string;
  /** Stops everything (apiserver before etcd) and removes the directory. Idempotent. */
  stop(): Promise<void>;
};

// etcd writes fsync-heavy files: tmpfs makes them cheap even when --unsafe-no-fsync is absent.
const workRoot = (): string => (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());

const showTails = (processes: ReadonlyArray<{ name: string; logPath: string }>, lines: number): string =>
  processes.map((p) => `----- ${p.name} (${p.logPath}) -----\n${tail(p.logPath, lines)}`).join('\n');

/**
 * Starts etcd and kube-apiserver on free loopback ports, waits for `/readyz`, runs
 * `beforeControllers`, then starts kube-controller-manager. On failure everything started so
 * far is stopped and the error carries the log tails.
 */
export const startControlPlane = async (options: ControlPlaneOptions): Promise<ControlPlane> => {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const dir = mkdtempSync(join(workRoot(), 'kreconcile-envtest-'));
  const [etcdPort = 0, peerPort = 0, apiPort = 0] = await freePorts(3);
  const server = `https://127.0.0.1:${apiPort}`;
  const kubeconfigPath = join(dir, 'kubeconfig');
  const logs = {
    etcd: { name: 'etcd', logPath: join(dir, 'etcd.log') },
    apiserver: { name: 'kube-apiserver', logPath: join(dir, 'kube-apiserver.log') },
    kcm: { name: 'kube-controller-manager', logPath: join(dir, 'kube-controller-manager.log') },
  };
  let etcd: ManagedProcess | undefined;
  let apiServer: ManagedProcess | undefined;
  let kcm: ManagedProcess | undefined;
  let stopped = false;

  const stopAll = async (): Promise<void> => {
    // Controllers and apiserver first: etcd going away under a live apiserver floods its log.
    await kcm?.stop();
    await apiServer?.stop();
    await etcd?.stop();
  };

  try {
    const pki = await generatePki(dir);
    const identity = loadIdentity(pki);
    writeKubeconfig(kubeconfigPath, server, pki);
    log(`etcd on 127.0.0.1:${etcdPort}`);
    etcd = await startEtcd({
      binary: options.binaries.etcd,
      dataDir: join(dir, 'etcd-data'),
      clientPort: etcdPort,
      peerPort,
      logPath: logs.etcd.logPath,
      timeoutMs,
    });
    const apiServerOptions: ApiServerOptions = {
      binary: options.binaries.kubeApiServer,
      pki,
      certDir: dir,
      port: apiPort,
      etcdPort,
      logPath: logs.apiserver.logPath,
      timeoutMs,
      identity,
    };
    log(`kube-apiserver on ${server}`);
    apiServer = await startApiServer(apiServerOptions);
    log(`kube-apiserver ready after ${Date.now() - started} ms`);
    await options.beforeControllers?.({ kubeconfigPath, server });
    const kcmBinary = options.controllerManager === false ? undefined : options.binaries.kubeControllerManager;
    if (kcmBinary !== undefined) {
      kcm = await startControllerManager({
        binary: kcmBinary,
        pki,
        kubeconfigPath,
        server,
        logPath: logs.kcm.logPath,
        timeoutMs,
        identity,
        ...defined({ extraControllers: options.extraControllers }),
      });
      log(`kube-controller-manager ready after ${Date.now() - started} ms`);
    }
    const startMs = Date.now() - started;
    const plane: ControlPlane = {
      server,
      kubeconfigPath,
      dir,
      startMs,
      withControllerManager: kcm !== undefined,
      restartApiServer: async () => {
        if (stopped) throw new Error('control plane is stopped');
        // With watches open (the controller manager's, a test's), a SIGTERMed apiserver was seen to
        // hang in graceful termination past 20 s; a restart only needs the process gone: 5 s.
        await apiServer?.stop(5_000);
        // Same flags, port and etcd: clients see a connection drop, then the same server again.
        apiServer = startProcess(
          'kube-apiserver',
          apiServerOptions.binary,
          apiServerArgs(apiServerOptions),
          logs.apiserver.logPath,
        );
        try {
          await waitApiServerReady(server, apiServer, apiServerOptions);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n${showTails([logs.apiserver], 60)}`, { cause: error });
        }
      },
      deadComponents: () =>
        stopped ? [] : [etcd, apiServer, kcm].flatMap((p) => (p !== undefined && !p.isRunning() ? [p.name] : [])),
      logTails: (lines = 40) =>
        showTails(
          Object.values(logs).filter((l) => existsSync(l.logPath)),
          lines,
        ),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await stopAll();
        if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      },
    };
    return plane;
  } catch (error) {
    await stopAll();
    const tails = showTails(
      Object.values(logs).filter((l) => existsSync(l.logPath)),
      60,
    );
    throw new Error(`control plane failed to start: ${(error as Error).message}\nlogs kept in ${dir}\n${tails}`, {
      cause: error,
    });
  }
};
