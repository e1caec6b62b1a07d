/**
 * The instances of a controller module run in process, as a Deployment keeps one pod of it
 * running: each instance is a fresh import of the module (an ES module cannot be unloaded, so a
 * new URL) with an endpoint and a kubeconfig of its own; a crash ends the instance (the scheduler
 * answers it nothing more, its timers never fire) and the kit starts the next one after a doubling
 * backoff on the run's clock (the kubelet's CrashLoopBackOff, scaled down as for a process),
 * until the restarts run out. Guide: docs/testing.md, "In process".
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveMemoryCluster, type ServedCluster } from '../../adapters/memory/http/index.js';
import type { ControllerCheckOptions, ControllerModule } from './controller-check-options.js';
import { writeKubeconfig } from './controller-process.js';
import type { InProcessEffects } from './in-process-effects.js';
import type { RequestScheduler } from './request-scheduler.js';
import type { VirtualTime } from './virtual-time.js';

/** One instance's module load: settled once its top-level code finished or threw. */
export type Loading = { settled: boolean; error?: unknown };

export type Instances = {
  /** Instances started so far. */
  started(): number;
  /** When the crashed instance's successor starts (the run's clock); undefined while one runs or restarts ran out. */
  restartAt(): number | undefined;
  /** The restarts ran out: the controller stays down. */
  gaveUp(): boolean;
  /** Starts the next instance: serves its endpoint, points `KUBECONFIG` at it, imports the module afresh. */
  start(): Promise<Loading>;
  /** The running instance crashed at `at` (the run's clock): its successor is scheduled, or the kit gives up. */
  crashed(at: number): void;
  /**
   * The kit killed the running instance at `at` (a fault): its successor is scheduled after the
   * backoff, which a kill doubles as a crash does; a kill does not count towards `maxRestarts`.
   */
  killed(at: number): void;
  /** Leaves every endpoint (its requests never answered), removes the kubeconfigs, restores KUBECONFIG. Idempotent. */
  release(): Promise<void>;
};

export type InstanceDeps = {
  readonly spec: ControllerModule;
  readonly serve: ControllerCheckOptions<unknown>['serve'];
  readonly scheduler: RequestScheduler;
  readonly time: VirtualTime;
  readonly effects: () => InProcessEffects;
  /** Tells instances of this run apart from other runs' in the module cache. */
  readonly run: string;
};

/** The backoff before restart number `restart` (1-based): doubling from `backoffMs` up to `maxBackoffMs`. */
const backoff = (spec: ControllerModule, restart: number): number =>
  Math.min((spec.backoffMs ?? 100) * 2 ** (restart - 1), spec.maxBackoffMs ?? 1_000);

/** Imports the module at `url` in the run's context; what it throws while it loads is its instance's crash. */
const importAfresh = (deps: InstanceDeps, url: string): Loading => {
  const loading: Loading = { settled: false };
  deps.time
    .enter(() => import(url))
    .catch((error: unknown) => {
      loading.error = error ?? 'rejected';
      // a process whose entry point throws exits with code 1, and its pod restarts it
      deps.effects().crashed('an exception while its module loaded', loading.error);
    })
    .finally(() => (loading.settled = true));
  return loading;
};

/** How many instances started, crashed and were killed by the kit; when the next one starts. */
type Counts = { started: number; crashes: number; kills: number; restartAt?: number; released: boolean };

/** Schedules the successor of the instance that ended at `at` (crashed or killed), unless the crashes ran out. */
const scheduleRestart = (spec: ControllerModule, state: Counts, at: number): void => {
  if (state.crashes <= (spec.maxRestarts ?? 5)) state.restartAt = at + backoff(spec, state.crashes + state.kills);
};

/** The instances of `deps.spec` for one run; none runs until `start()`. */
export const controllerInstances = (deps: InstanceDeps): Instances => {
  const { spec, scheduler, time } = deps;
  const environment = spec.environment ?? spec.process.env;
  const kubeconfigBefore = environment.KUBECONFIG;
  const state: Counts = { started: 0, crashes: 0, kills: 0, released: false };
  const endpoints: ServedCluster[] = [];
  const dirs: string[] = [];
  const start = async (): Promise<Loading> => {
    const restart = state.started > 0;
    state.restartAt = undefined;
    if (restart) {
      time.renew();
      deps.effects().restarted();
    }
    const served = await serveMemoryCluster(restart ? scheduler.nextInstance() : scheduler.cluster, deps.serve ?? {});
    endpoints.push(served);
    const file = await writeKubeconfig(served.kubeconfig);
    dirs.push(file.dir);
    environment.KUBECONFIG = file.path;
    return importAfresh(
      deps,
      `${pathToFileURL(resolve(spec.module)).href}?kreconcile-run=${deps.run}-${++state.started}`,
    );
  };
  return {
    started: () => state.started,
    restartAt: () => state.restartAt,
    gaveUp: () => state.crashes > (spec.maxRestarts ?? 5),
    start,
    crashed: (at) => {
      state.crashes++;
      scheduleRestart(spec, state, at);
    },
    killed: (at) => {
      state.kills++;
      scheduleRestart(spec, state, at);
    },
    release: async () => {
      if (state.released) return;
      state.released = true;
      state.restartAt = undefined;
      endpoints.forEach((served) => served.abandon());
      if (kubeconfigBefore === undefined) delete environment.KUBECONFIG;
      else environment.KUBECONFIG = kubeconfigBefore;
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
};
