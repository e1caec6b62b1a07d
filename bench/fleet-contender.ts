/**
 * One contender of `npm run bench:fleet` in a process of its own, so that its RSS is its own and
 * not the bench driver's: `node --expose-gc --import tsx bench/fleet-contender.ts '<json>'`.
 *
 * - `operator`: kreconcile's operator from a cold start, against Applications that already exist
 *   (the driver created them, untimed): from `startOperator` until every Application reported Ready.
 *   With `resync`, then a full resync of the converged Applications (every key queued, as the
 *   periodic resync does) against a bare `plan` of the same objects, `RESYNC_ROUNDS` alternating rounds.
 * - `direct`: the floor: the same objects created with the same client and flow control by as many
 *   concurrent workers as the operator has, then waited for until every Deployment is ready by the
 *   operator's own readiness rule, through one watch.
 *
 * Prints one JSON line on stdout. Requests are counted where the client grants them (flow control
 * sees every request once, watches and discovery included), as the Flux peer counts its own in an
 * http.RoundTripper.
 */
import * as E from 'fp-ts/lib/Either.js';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { createKubernetesCluster, type KubernetesCluster } from '../adapters/kubernetes/index.js';
import { systemClock } from '../adapters/memory/index.js';
import { converged } from '../app/reconcile/reconcile-application.js';
import { startOperator } from '../app/runtime/operator.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  createPlanner,
  decodeApplication,
  ownerOf,
  readinessOf,
  type Resource,
} from '../core/internal.js';
import { ContenderArgs, RESYNC_ROUNDS, type ContenderResult, type MemoryFigures } from './fleet-contract.js';
import { median, quantile } from './measure.js';
import { applicationObjects, type Shape } from './fleet-objects.js';
import { withReadableStatus } from '../app/status/stored-status.js';

const TIMEOUT_MS = 30 * 60_000;

const must = async <A>(task: Promise<E.Either<{ message: string }, A>>): Promise<A> => {
  const result = await task;
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};

const waitUntil = async (done: () => boolean, what: () => string): Promise<void> => {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`timed out after 30 minutes: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/**
 * `waitUntil` for a timed resync: checked after every macrotask (`setImmediate`), not every 10 ms. A
 * resync of in-sync Applications does no I/O, so its reconciles run back to back in microtasks and it
 * ends when they do; a 10 ms poll added up to 10 ms of nothing to it (10 % of a 100 ms resync at 3 000).
 */
const settledAt = async (done: () => boolean, what: () => string): Promise<void> => {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > TIMEOUT_MS) throw new Error(`timed out after 30 minutes: ${what()}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
};

/**
 * A full collection (node --expose-gc; nothing without it): before reading a settled RSS, and before
 * each timed phase of the resync comparison, so each pays for the garbage
 * it makes and none for what came before: with the operator's heap sizing (`--optimize-for-size`,
 * app/cli/operator-heap.ts) the old generation's limit sits just above what is live, so a
 * mark-compact of the whole heap (100–190 ms at 10 000 Applications) falls in whichever phase
 * meets the limit first, the cold start's garbage included. Without it the same code measured
 * 1.8× to 5.3× in consecutive rounds (docs/performance.md).
 */
const collectGarbage = (): void => {
  (globalThis as { gc?: () => void }).gc?.();
};

const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

/** RSS after a full collection (node --expose-gc). */
const settledRss = (): number => {
  collectGarbage();
  return process.memoryUsage().rss;
};

const memoryFigures = (): MemoryFigures => {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapTotal, heapUsed, external, arrayBuffers };
};

/**
 * The largest value of each `process.memoryUsage()` figure while the contender runs, sampled every
 * 100 ms (getrusage gives the peak RSS exactly, but not what it was made of).
 */
const memorySampler = () => {
  let peak = memoryFigures();
  const sample = (): void => {
    const now = memoryFigures();
    peak = {
      rss: Math.max(peak.rss, now.rss),
      heapTotal: Math.max(peak.heapTotal, now.heapTotal),
      heapUsed: Math.max(peak.heapUsed, now.heapUsed),
      external: Math.max(peak.external, now.external),
      arrayBuffers: Math.max(peak.arrayBuffers, now.arrayBuffers),
    };
  };
  const timer = setInterval(sample, 100);
  return {
    peak: (): MemoryFigures => {
      sample();
      return peak;
    },
    stop: () => clearInterval(timer),
  };
};

/** Deployments of `namespace` that are ready by the operator's readiness rule, kept current by one watch. */
const readyDeployments = (cluster: KubernetesCluster, namespace: string) => {
  const ready = new Set<string>();
  let failure: string | undefined;
  const handle = cluster.watch(
    { apiVersion: 'apps/v1', kind: 'Deployment', namespace },
    {
      event: (event) => {
        if (event.type === 'BOOKMARK') return;
        const name = event.object.metadata.name;
        if (event.type !== 'DELETED' && readinessOf(event.object).ready) ready.add(name);
        else ready.delete(name);
      },
      closed: (error) => {
        failure = `the Deployment watch closed: ${error?.message ?? 'by the server'}`;
      },
    },
  );
  return {
    count: () => {
      if (failure !== undefined) throw new Error(failure);
      return ready.size;
    },
    stop: () => handle.stop(),
  };
};

const direct = async (args: ContenderArgs, cluster: KubernetesCluster, requests: () => number) => {
  const rssBeforeBytes = settledRss();
  const memoryBefore = memoryFigures();
  const sampler = memorySampler();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deployments = args.shape === 'flux' ? readyDeployments(cluster, args.namespace) : undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < args.count; i = next++)
      for (const object of applicationObjects(args.shape, i, args.namespace)) await must(cluster.create(object)());
  };
  await Promise.all(Array.from({ length: args.workers }, worker));
  if (deployments !== undefined) {
    await waitUntil(
      () => deployments.count() >= args.count,
      () => `${deployments.count()}/${args.count} Deployments ready`,
    );
    deployments.stop();
  }
  const elapsedMs = performance.now() - started;
  const memoryPeak = sampler.peak();
  sampler.stop();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    elapsedMs,
    requests: requests(),
    maxRssBytes: peakRss(),
    rssBeforeBytes,
    rssReadyBytes: settledRss(),
    heapReadyBytes: process.memoryUsage().heapUsed,
    cpuMs: (cpu.user + cpu.system) / 1000,
    memoryBefore,
    memoryPeak,
  };
};

/**
 * The least a resync can cost: `plan` of every Application against its live children, read and
 * decoded beforehand (untimed), through one planner after a warm-up run (as the controller's memo).
 */
const barePlan = async (cluster: KubernetesCluster, namespace: string, shape: Shape): Promise<() => void> => {
  const kinds =
    shape === 'argo'
      ? [['v1', 'ConfigMap']]
      : [
          ['apps/v1', 'Deployment'],
          ['v1', 'Service'],
          ['v1', 'ServiceAccount'],
          ['v1', 'ConfigMap'],
        ];
  const byOwner = new Map<string, Resource[]>();
  for (const [apiVersion = '', kind = ''] of kinds)
    for (const child of (await must(cluster.list({ apiVersion, kind, namespace })())).items) {
      const owner = ownerOf(child);
      if (owner !== undefined) byOwner.set(owner, [...(byOwner.get(owner) ?? []), child]);
    }
  const applications = await must(
    cluster.list({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace })(),
  );
  const inputs = applications.items.map((object) => {
    // The status is stored packed (app/status/stored-status.ts): read back as the controller reads it, then decoded.
    const application = decodeApplication(withReadableStatus(object));
    if (E.isLeft(application))
      throw new Error(`${object.metadata.name} does not decode: ${JSON.stringify(application.left).slice(0, 500)}`);
    return { application: application.right, live: byOwner.get(`${namespace}/${object.metadata.name}`) ?? [] };
  });
  const planner = createPlanner();
  const now = new Date(systemClock.now()).toISOString();
  const planAll = (): void => {
    for (const input of inputs) {
      const planned = planner.plan({ ...input, scopes: builtinScopes, now, options: { readiness: 'kstatus' } });
      if (planned.actions.length > 0)
        throw new Error(`${input.application.metadata.name} is not in sync: the bare plan must do the resync's work`);
    }
  };
  planAll();
  return planAll;
};

const operated = async (args: ContenderArgs, cluster: KubernetesCluster, requests: () => number) => {
  const ready = new Set<string>();
  const rssBeforeBytes = settledRss();
  const memoryBefore = memoryFigures();
  const sampler = memorySampler();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const operator = await startOperator({
    cluster,
    // As `kreconcile run` sends them: in the client's low-priority lane.
    eventCluster: cluster.lowPriority,
    clock: systemClock,
    random: Math.random,
    workers: args.workers,
    resyncMs: 0,
    namespace: args.namespace,
    readiness: 'kstatus',
    onReconciled: (key, result) => {
      if (converged(result)) ready.add(key);
    },
  });
  await waitUntil(
    () => ready.size >= args.count,
    () => `${ready.size}/${args.count} Applications Ready`,
  );
  const elapsedMs = performance.now() - started;
  const memoryPeak = sampler.peak();
  sampler.stop();
  const cpu = process.cpuUsage(cpuBefore);
  const result: ContenderResult = {
    elapsedMs,
    requests: requests(),
    maxRssBytes: peakRss(),
    rssBeforeBytes,
    rssReadyBytes: settledRss(),
    heapReadyBytes: process.memoryUsage().heapUsed,
    cpuMs: (cpu.user + cpu.system) / 1000,
    memoryBefore,
    memoryPeak,
  };
  const snapshotDir = process.env.FLEET_HEAP_SNAPSHOT_DIR;
  if (snapshotDir !== undefined) writeHeapSnapshot(join(snapshotDir, `operator-${args.namespace}.heapsnapshot`));
  if (args.resync !== true) {
    await operator.stop(10_000);
    return result;
  }
  const controller = operator.controller;
  await waitUntil(
    () => controller.idle,
    () => `the controller is not idle`,
  );
  const planAll = await barePlan(cluster, args.namespace, args.shape);
  const rounds: { resyncMs: number; startedAllMs: number; bareMs: number; reconciles: number }[] = [];
  // FLEET_RESYNC_PROFILE=<file>: the last round's resync sampled by V8's CPU profiler (open it in Chrome DevTools).
  const profileTo = process.env.FLEET_RESYNC_PROFILE;
  const session = profileTo === undefined ? undefined : new Session();
  session?.connect();
  /** One full resync, from a collected heap: every Application queued, until the controller is idle again. */
  const timedResync = async (profiled: boolean) => {
    const start = controller.reconcileCount;
    collectGarbage();
    if (profiled && session !== undefined) {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    const t0 = performance.now();
    for (let i = 0; i < args.count; i++) controller.enqueue(`${args.namespace}/app-${i}`);
    await settledAt(
      () => controller.reconcileCount >= start + args.count,
      () => `resync: ${controller.reconcileCount - start}/${args.count} reconciled`,
    );
    const startedAllMs = performance.now() - t0;
    await settledAt(
      () => controller.idle,
      () => `resync: the controller is not idle`,
    );
    const resyncMs = performance.now() - t0;
    if (profiled && session !== undefined && profileTo !== undefined)
      writeFileSync(profileTo, JSON.stringify((await session.post('Profiler.stop')).profile));
    return { resyncMs, startedAllMs, reconciles: controller.reconcileCount - start };
  };
  /** The bare plan of every Application, from a collected heap. */
  const timedBarePlan = (): number => {
    collectGarbage();
    const t0 = performance.now();
    planAll();
    return performance.now() - t0;
  };
  // As measurePair (bench/measure.ts) times a pair: both sides warmed up first (the cold start ran
  // the reconcile's write paths, not an in-sync resync's), the order alternating between rounds so
  // neither side always runs right after the other, and the ratio the median of the per-round ratios.
  await timedResync(false);
  timedBarePlan();
  for (let round = 0; round < RESYNC_ROUNDS; round++) {
    const profiled = round === RESYNC_ROUNDS - 1;
    if (round % 2 === 0) {
      const resync = await timedResync(profiled);
      rounds.push({ ...resync, bareMs: timedBarePlan() });
    } else {
      const bareMs = timedBarePlan();
      rounds.push({ ...(await timedResync(profiled)), bareMs });
    }
  }
  session?.disconnect();
  if (profileTo !== undefined) writeFileSync(`${profileTo}.rounds.json`, JSON.stringify(rounds));
  await operator.stop(10_000);
  return {
    ...result,
    maxRssBytes: peakRss(),
    resyncMs: median(rounds.map((r) => r.resyncMs)),
    barePlanMs: median(rounds.map((r) => r.bareMs)),
    reconciles: median(rounds.map((r) => r.reconciles)),
    resyncRoundRatios: rounds.map((r) => r.resyncMs / r.bareMs),
  };
};

const main = async (): Promise<void> => {
  const decoded = ContenderArgs.decode(JSON.parse(process.argv[2] ?? 'null'));
  if (E.isLeft(decoded)) {
    process.stderr.write(`usage: fleet-contender.ts '<json>' (see ContenderArgs in bench/fleet-contender.ts)\n`);
    process.exit(2);
  }
  const args = decoded.right;
  let requests = 0;
  const cluster = createKubernetesCluster(
    { kubeconfigPath: args.kubeconfig },
    { flowControl: { qps: args.qps, burst: args.burst, onWait: () => requests++ } },
  );
  const result = await (args.mode === 'direct' ? direct : operated)(args, cluster, () => requests);
  console.log(JSON.stringify(result));
  process.exit(0);
};

await main();
