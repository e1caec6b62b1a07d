/**
 * `npm run bench:fleet`: kreconcile's operator beside the tools users would pick instead, on ONE
 * kube-apiserver + etcd + kube-controller-manager (docs/performance.md).
 *
 * Fleet (default): N Applications × 4 objects (the Flux benchmark's shape, bench/fleet-objects.ts)
 * at each N, alternating rounds (the order rotates each round), each contender in a namespace of its
 * own, each in a process of its own (its RSS is its own):
 * - kreconcile's operator from a cold start over N existing Applications (bench/fleet-contender.ts);
 * - direct creates of the same objects, same client, same flow control, as many workers (the floor);
 * - Flux's apply engine, fluxcd/pkg/ssa ApplyAllStaged + WaitForSet (bench/peers/flux-ssa).
 * Reported: time until every object is ready (each contender's own verdict), requests per object
 * (counted by each client at its transport), CPU time of kube-apiserver + etcd and of the controller
 * manager during the contender's run (/proc), the contender's peak RSS.
 *
 * Argo CD's fleet shape (`--argo`): N (default 10 000) Applications of one 2 KB ConfigMap from cold
 * at each QPS, then a full resync against a bare plan of the same objects.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createKubernetesCluster, type KubernetesCluster } from '../adapters/kubernetes/index.js';
import { applicationCrd } from '../app/manifests/crd.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND } from '../core/internal.js';
import { findBinaries } from '../tools/envtest/binaries.js';
import { startControlPlane, type ControlPlane } from '../tools/envtest/control-plane.js';
import { installCrd } from '../tools/envtest/install-crds.js';
import { ContenderResult, RESYNC_ROUNDS, type ContenderArgs } from './fleet-contract.js';
import { FLEET_CONTROLLERS, applicationObjects, objectsPerApplication, type Shape } from './fleet-objects.js';
import { median, quantile, type Row } from './measure.js';

const here = dirname(fileURLToPath(import.meta.url));

export type FleetSettings = {
  /** Concurrent reconciles of the operator; the direct creates and Flux's ApplyAll use as many. */
  readonly workers: number;
  /** Client flow control of every contender (the operator's defaults: `kreconcile run` --qps 50 --burst 100). */
  readonly qps: number;
  readonly burst: number;
  /** How often Flux's WaitForSet polls (its resolution: the wait ends at most this late). */
  readonly fluxIntervalMs: number;
  readonly log: (line: string) => void;
};

/**
 * `flux`: the peer with one token bucket for all its requests, the budget the operator has (its
 * flow control covers every client). `flux-per-kind`: controller-runtime's default, a bucket of
 * QPS/Burst per kind, as kustomize-controller runs: up to 6 × the budget here (4 kinds applied,
 * ReplicaSets and Pods polled), shown for what users see, without a goal.
 */
type Contender = 'kreconcile' | 'direct' | 'flux' | 'flux-per-kind';

/** One contender's run: its own report and what the control plane spent meanwhile. */
type Run = ContenderResult & { readonly serverCpuMs: number; readonly controllerManagerCpuMs: number };

const must = async <A>(task: Promise<E.Either<{ message: string }, A>>): Promise<A> => {
  const result = await task;
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};

/**
 * CPU ms (user + system) of this process's children by command name (/proc/<pid>/stat; comm is cut
 * at 15 characters): the control plane's, never a contender's.
 */
const childCpuMs = (commands: ReadonlySet<string>): number => {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; /* exited meanwhile */
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) !== process.pid || !commands.has(comm)) continue;
    total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, 100 ticks a second
  }
  return total;
};
const SERVER = new Set(['kube-apiserver', 'etcd']);
const CONTROLLER_MANAGER = new Set(['kube-controller']);

/** Builds (or finds cached) the Flux peer; its path. */
const fluxPeer = (): string => {
  const built = spawnSync('bash', [join(here, 'peers', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (built.status !== 0) throw new Error('the Flux peer did not build (bench/peers/build.sh, above)');
  return built.stdout.trim();
};

/** The bundled contender and the module `node --import` loads before it (bench/fleet-preload.ts). */
type ContenderScripts = { readonly contender: string; readonly preload: string };

/**
 * The contender script as one plain JavaScript file (esbuild, which tsx brings; packages stay
 * imports): run by node without tsx, whose compiler thread would add to the measured RSS (a tsx
 * process that only creates 40 objects peaked at 244 MiB). The operator ships compiled too.
 * Its preload, bundled beside it, loads the Kubernetes client as the `kreconcile` executable does.
 */
const contenderBundle = (): ContenderScripts => {
  const out = join(here, '..', '.cache', 'fleet');
  const esbuild = join(here, '..', 'node_modules', '.bin', 'esbuild');
  const built = spawnSync(
    esbuild,
    [
      join(here, 'fleet-contender.ts'),
      join(here, 'fleet-preload.ts'),
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--packages=external',
      `--outdir=${out}`,
      '--out-extension:.js=.mjs',
      '--log-level=warning',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (built.status !== 0) throw new Error(`bundling bench/fleet-contender.ts with ${esbuild} failed (above)`);
  return { contender: join(out, 'fleet-contender.mjs'), preload: join(out, 'fleet-preload.mjs') };
};

/** Runs a child to its end; its last stdout line, decoded. */
const runChild = (
  command: string,
  args: ReadonlyArray<string>,
  what: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ContenderResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      let parsed: unknown;
      try {
        parsed = JSON.parse(last);
      } catch {
        parsed = undefined;
      }
      const decoded = ContenderResult.decode(parsed);
      if (code !== 0 || E.isLeft(decoded))
        reject(new Error(`${what} failed (exit ${code}): ${stderr.trim().slice(-2000) || last}`));
      else resolve(decoded.right);
    });
  });

const createNamespace = async (cluster: KubernetesCluster, name: string): Promise<void> => {
  await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })());
};

/**
 * Deletes a contender's namespace and waits until it is gone. The operator watches its child kinds
 * in every namespace (by the managed-by label): objects left by an earlier contender would be
 * listed and cached by the next kreconcile contender, and bill its memory and CPU for them.
 * Applications keep kreconcile's finalizer and no operator runs any more: it is removed first.
 */
const deleteNamespace = async (cluster: KubernetesCluster, namespace: string): Promise<void> => {
  const applications = (
    await must(cluster.list({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace })())
  ).items;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < applications.length; i = next++) {
      const name = applications[i]?.metadata.name ?? '';
      await must(
        cluster.patch(
          { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace, name },
          { type: 'merge', body: { metadata: { finalizers: null } } },
        )(),
      );
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: namespace };
  await must(cluster.delete(ref)());
  const started = performance.now();
  while (O.isSome(await must(cluster.get(ref)()))) {
    if (performance.now() - started > 10 * 60_000)
      throw new Error(`namespace ${namespace} still there after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
};

/** N Applications in `namespace`, created before the operator starts (untimed): its cold start. */
const createApplications = async (cluster: KubernetesCluster, shape: Shape, count: number, namespace: string) => {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++)
      await must(
        cluster.create({
          apiVersion: APPLICATION_API_VERSION,
          kind: APPLICATION_KIND,
          metadata: { name: `app-${i}`, namespace },
          spec: {
            manifest: applicationObjects(shape, i, namespace).map(
              ({ metadata: { namespace: _, ...metadata }, ...rest }) => ({ ...rest, metadata }),
            ),
          },
        })(),
      );
  };
  await Promise.all(Array.from({ length: 16 }, worker));
};

/** Lets the controller manager finish the previous contender's objects, so its work is not billed to the next one. */
const settle = async (): Promise<void> => {
  for (let previous = childCpuMs(CONTROLLER_MANAGER) + childCpuMs(SERVER); ;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = childCpuMs(CONTROLLER_MANAGER) + childCpuMs(SERVER);
    if (now - previous < 50) return; // under 5 % of a core in the last second: quiet
    previous = now;
  }
};

type Context = {
  readonly plane: ControlPlane;
  readonly cluster: KubernetesCluster;
  readonly flux: string | undefined;
  /** bench/fleet-contender.ts and its preload, bundled. */
  readonly scripts: ContenderScripts;
  readonly settings: FleetSettings;
};

/** One contender at `count` in a fresh namespace: prepared (untimed), settled, then run and measured. */
const runContender = async (
  context: Context,
  contender: Contender,
  shape: Shape,
  count: number,
  namespace: string,
  options: {
    readonly qps?: number;
    readonly burst?: number;
    readonly resync?: boolean;
    /** Node flags of a kreconcile or direct contender (memory experiments). */
    readonly nodeFlags?: ReadonlyArray<string>;
    /** Load the Kubernetes client whole, without the preload (what the lean load saves). */
    readonly fullClient?: boolean;
    /** V8's default heap sizing instead of the operator's (app/cli/operator-heap.ts). */
    readonly untuned?: boolean;
    /** V8 flags the contender sets for itself at start instead of the operator's (as tuneOperatorHeap does). */
    readonly setFlags?: ReadonlyArray<string>;
    /** Write a heap snapshot of the contender at Ready into this directory. */
    readonly heapSnapshotDir?: string;
  } = {},
): Promise<Run> => {
  const { plane, cluster, settings } = context;
  await createNamespace(cluster, namespace);
  const qps = options.qps ?? settings.qps;
  const burst = options.burst ?? settings.burst;
  let command: string;
  let args: ReadonlyArray<string>;
  if (contender === 'flux' || contender === 'flux-per-kind') {
    if (context.flux === undefined) throw new Error('the Flux peer was not built');
    const objectsPath = join(plane.dir, `${namespace}.json`);
    writeFileSync(
      objectsPath,
      JSON.stringify(Array.from({ length: count }, (_, i) => applicationObjects(shape, i, namespace)).flat()),
    );
    command = context.flux;
    args = [
      `-kubeconfig=${plane.kubeconfigPath}`,
      `-objects=${objectsPath}`,
      `-concurrency=${settings.workers}`,
      `-qps=${qps}`,
      `-burst=${burst}`,
      `-interval=${settings.fluxIntervalMs}ms`,
      `-limiter=${contender === 'flux' ? 'shared' : 'per-kind'}`,
    ];
  } else {
    if (contender === 'kreconcile') await createApplications(cluster, shape, count, namespace);
    const contenderArgs: ContenderArgs = {
      mode: contender === 'kreconcile' ? 'operator' : 'direct',
      kubeconfig: plane.kubeconfigPath,
      namespace,
      shape,
      count,
      workers: settings.workers,
      qps,
      burst,
      ...(options.resync === true ? { resync: true } : {}),
    };
    command = process.execPath;
    args = [
      '--expose-gc',
      ...(options.nodeFlags ?? []),
      ...(options.fullClient === true ? [] : ['--import', pathToFileURL(context.scripts.preload).href]),
      context.scripts.contender,
      JSON.stringify(contenderArgs),
    ];
  }
  await settle();
  const server = childCpuMs(SERVER);
  const kcm = childCpuMs(CONTROLLER_MANAGER);
  const result = await runChild(command, args, `${contender} at ${count} in ${namespace}`, {
    ...(options.untuned === true ? { FLEET_CONTENDER_UNTUNED: '1' } : {}),
    ...(options.heapSnapshotDir === undefined ? {} : { FLEET_HEAP_SNAPSHOT_DIR: options.heapSnapshotDir }),
    ...(options.setFlags === undefined ? {} : { FLEET_CONTENDER_V8_FLAGS: options.setFlags.join(' ') }),
  });
  const serverCpuMs = childCpuMs(SERVER) - server;
  const controllerManagerCpuMs = childCpuMs(CONTROLLER_MANAGER) - kcm;
  await deleteNamespace(cluster, namespace);
  return { ...result, serverCpuMs, controllerManagerCpuMs };
};

const MiB = 2 ** 20;

const describe = (runs: ReadonlyArray<Run>, objects: number) => ({
  valueMs: median(runs.map((r) => r.elapsedMs)),
  requestsPerObject: median(runs.map((r) => r.requests)) / objects,
  serverCpuMs: median(runs.map((r) => r.serverCpuMs)),
  controllerManagerCpuMs: median(runs.map((r) => r.controllerManagerCpuMs)),
  peakRssMiB: median(runs.map((r) => r.maxRssBytes)) / MiB,
  rssBeforeMiB: median(runs.map((r) => r.rssBeforeBytes ?? Number.NaN)) / MiB,
  rssReadyMiB: median(runs.map((r) => r.rssReadyBytes ?? Number.NaN)) / MiB,
  heapReadyMiB: median(runs.map((r) => r.heapReadyBytes ?? Number.NaN)) / MiB,
  cpuMs: median(runs.map((r) => r.cpuMs ?? Number.NaN)),
  roundsMs: runs.map((r) => Math.round(r.elapsedMs)),
});

/** Rows of one N: each contender's figures, and kreconcile's goals against Flux, direct creates and its RSS. */
const fleetRows = (count: number, runs: Readonly<Record<Contender, ReadonlyArray<Run>>>): ReadonlyArray<Row> => {
  const objects = count * objectsPerApplication('flux');
  const [ours, direct, flux] = [
    describe(runs.kreconcile, objects),
    describe(runs.direct, objects),
    describe(runs.flux, objects),
  ];
  const shape = `${count} Applications × 4 objects`;
  const ratioOf = (contender: Contender): number =>
    median(runs.kreconcile.map((run, i) => run.elapsedMs / (runs[contender][i]?.elapsedMs ?? Number.NaN)));
  const info = (who: string, figures: ReturnType<typeof describe>): Row => ({
    suite: 'fleet',
    case: `${who}, ${shape}`,
    resources: objects,
    ...figures,
    memoryBytes: figures.peakRssMiB * MiB,
  });
  const rows: Row[] = [
    info('direct creates (the floor), ready', direct),
    info('Flux ssa ApplyAllStaged + WaitForSet (one shared rate limiter), ready', flux),
    info(
      'Flux ssa, a rate limiter per kind (controller-runtime default), ready',
      describe(runs['flux-per-kind'], objects),
    ),
    info('kreconcile operator from cold, all Ready', ours),
  ];
  const versusFlux = ratioOf('flux');
  rows.push({
    suite: 'fleet',
    case: `kreconcile ÷ Flux ssa, time to ready, ${shape}`,
    resources: objects,
    valueMs: ours.valueMs,
    baselineName: 'Flux ssa ApplyAllStaged + WaitForSet, same QPS budget',
    baselineMs: flux.valueMs,
    ratio: versusFlux,
    goal: 'ratio ≤ 1',
    goalMet: versusFlux <= 1,
  });
  rows.push({
    suite: 'fleet',
    case: `kreconcile ÷ Flux ssa with a rate limiter per kind, time to ready, ${shape}`,
    resources: objects,
    valueMs: ours.valueMs,
    baselineName: 'Flux ssa, QPS budget per kind',
    baselineMs: describe(runs['flux-per-kind'], objects).valueMs,
    ratio: ratioOf('flux-per-kind'),
  });
  const versusDirect = ratioOf('direct');
  rows.push({
    suite: 'fleet',
    case: `kreconcile ÷ direct creates, time to ready, ${shape}`,
    resources: objects,
    valueMs: ours.valueMs,
    baselineName: 'direct creates, same client and workers',
    baselineMs: direct.valueMs,
    ratio: versusDirect,
    goal: 'ratio ≤ 1.6',
    goalMet: versusDirect <= 1.6,
  });
  if (count >= 1000)
    rows.push({
      suite: 'fleet',
      case: `kreconcile operator peak RSS, ${shape}`,
      resources: objects,
      value: `${ours.peakRssMiB.toFixed(0)} MiB peak (${ours.rssBeforeMiB.toFixed(0)} MiB before the first request, ${ours.rssReadyMiB.toFixed(0)} MiB at Ready)`,
      memoryBytes: ours.peakRssMiB * MiB,
      goal: '≤ 150 MiB',
      goalMet: ours.peakRssMiB <= 150,
    });
  return rows;
};

/** Starts the control plane (+ the fleet's controller manager), runs `body`, stops everything. */
const withControlPlane = async <A>(
  settings: FleetSettings,
  needFlux: boolean,
  body: (context: Context) => Promise<A>,
): Promise<A> => {
  const lookup = findBinaries();
  if (!lookup.found)
    throw new Error(`bench:fleet needs the control-plane binaries: ${lookup.reason} (run npm run k8s:build)`);
  if (lookup.binaries.kubeControllerManager === undefined)
    throw new Error('bench:fleet needs kube-controller-manager (Deployment status): run npm run k8s:build');
  const flux = needFlux ? fluxPeer() : undefined;
  const scripts = contenderBundle();
  settings.log('fleet: starting etcd + kube-apiserver…');
  const plane = await startControlPlane({
    binaries: lookup.binaries,
    extraControllers: FLEET_CONTROLLERS,
    beforeControllers: async ({ kubeconfigPath }) =>
      installCrd(createKubernetesCluster({ kubeconfigPath }), applicationCrd()),
  });
  try {
    // The driver's own client (namespaces, Applications): generous flow control, it is not measured.
    const cluster = createKubernetesCluster(
      { kubeconfigPath: plane.kubeconfigPath },
      { flowControl: { qps: 1000, burst: 1000 } },
    );
    settings.log('fleet: control plane ready (deployment and replicaset controllers running)');
    return await body({ plane, cluster, flux, scripts, settings });
  } finally {
    await plane.stop();
  }
};

const CONTENDERS: ReadonlyArray<Contender> = ['direct', 'kreconcile', 'flux', 'flux-per-kind'];

export const fleetBenchmarks = (
  sizes: ReadonlyArray<number>,
  rounds: number,
  settings: FleetSettings,
): Promise<ReadonlyArray<Row>> =>
  withControlPlane(settings, true, async (context) => {
    const rows: Row[] = [];
    for (const count of sizes) {
      const runs: Record<Contender, Run[]> = { kreconcile: [], direct: [], flux: [], 'flux-per-kind': [] };
      for (let round = 1; round <= rounds; round++) {
        // Rotated each round: no contender always runs first, or right after another.
        const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round - 1) % CONTENDERS.length] as Contender);
        for (const contender of order) {
          settings.log(`fleet: N=${count} round ${round}/${rounds}: ${contender}…`);
          const run = await runContender(context, contender, 'flux', count, `fleet-${contender}-${count}-r${round}`);
          runs[contender].push(run);
          settings.log(
            `fleet: N=${count} round ${round}: ${contender} ${run.elapsedMs.toFixed(0)} ms, ${run.requests} requests, apiserver+etcd CPU ${run.serverCpuMs.toFixed(0)} ms, peak RSS ${(run.maxRssBytes / MiB).toFixed(0)} MiB`,
          );
        }
      }
      rows.push(...fleetRows(count, runs));
    }
    return rows;
  });

/**
 * Argo CD's fleet shape: `count` Applications of one 2 KB ConfigMap from cold at each QPS, then a resync (at the last
 * QPS).
 */
export const argoBenchmarks = (
  count: number,
  qpsList: ReadonlyArray<number>,
  settings: FleetSettings,
): Promise<ReadonlyArray<Row>> =>
  withControlPlane(settings, false, async (context) => {
    const rows: Row[] = [];
    for (const [index, qps] of qpsList.entries()) {
      const burst = Math.max(settings.burst, 2 * qps);
      const resync = index === qpsList.length - 1;
      settings.log(`argo: ${count} Applications of one 2 KB ConfigMap, operator at --qps ${qps} --burst ${burst}…`);
      const run = await runContender(context, 'kreconcile', 'argo', count, `argo-${count}-q${qps}`, {
        qps,
        burst,
        resync,
      });
      settings.log(
        `argo: all Ready in ${run.elapsedMs.toFixed(0)} ms, ${run.requests} requests, peak RSS ${(run.maxRssBytes / MiB).toFixed(0)} MiB`,
      );
      rows.push({
        suite: 'argo',
        case: `${count} Applications × one 2 KB ConfigMap from cold, all Ready, --qps ${qps} --burst ${burst}`,
        resources: count,
        valueMs: run.elapsedMs,
        requestsPerObject: run.requests / count,
        serverCpuMs: run.serverCpuMs,
        memoryBytes: run.maxRssBytes,
        rssBeforeBytes: run.rssBeforeBytes,
        rssReadyBytes: run.rssReadyBytes,
        heapReadyBytes: run.heapReadyBytes,
        goal: '< 180000 ms',
        goalMet: run.elapsedMs < 180_000,
      });
      if (run.resyncMs !== undefined && run.barePlanMs !== undefined && run.resyncRoundRatios !== undefined) {
        const ratio = median(run.resyncRoundRatios);
        rows.push({
          suite: 'argo',
          case: `full resync of ${count} in-sync Applications (real API server), ${RESYNC_ROUNDS} alternating rounds`,
          resources: count,
          valueMs: run.resyncMs,
          baselineName: 'bare plan of the same objects',
          baselineMs: run.barePlanMs,
          ratio,
          ratioQuartiles: [quantile(run.resyncRoundRatios, 0.25), quantile(run.resyncRoundRatios, 0.75)],
          roundRatios: run.resyncRoundRatios,
          reconciles: run.reconciles,
          goal: 'ratio ≤ 2',
          goalMet: ratio <= 2,
        });
      }
    }
    return rows;
  });

/** One way of running the Node contenders in `--memory` experiments. */
export type MemoryVariant = {
  readonly name: string;
  /** Node flags before the contender script (V8 heap sizing, e.g. `--max-semi-space-size=1`). */
  readonly nodeFlags: ReadonlyArray<string>;
  /** The Kubernetes client loaded whole (no preload, so V8's default heap sizing too). */
  readonly fullClient: boolean;
  /** V8's default heap sizing instead of the operator's (app/cli/operator-heap.ts). */
  readonly untuned: boolean;
  /** V8 flags set by the contender at start instead of the operator's (`--set=--flag`). */
  readonly setFlags: ReadonlyArray<string>;
  /** Each contender writes a heap snapshot at Ready into `.cache/fleet/` (for the DevTools Memory tab). */
  readonly heapSnapshot: boolean;
};

const memoryLine = (figures: ContenderResult['memoryBefore']): string =>
  figures === undefined
    ? ''
    : `RSS ${(figures.rss / MiB).toFixed(0)}, heap ${(figures.heapUsed / MiB).toFixed(0)}/${(figures.heapTotal / MiB).toFixed(0)}, external ${(figures.external / MiB).toFixed(0)}, arrayBuffers ${(figures.arrayBuffers / MiB).toFixed(0)} MiB`;

/**
 * `--memory`: the operator and the direct creates only, under each variant, alternating (the order
 * rotates each round): peak RSS and what it is made of (`process.memoryUsage()` before the first
 * request and each figure's peak), and the time, to weigh a memory setting against what it costs.
 */
export const memoryBenchmarks = (
  sizes: ReadonlyArray<number>,
  rounds: number,
  variants: ReadonlyArray<MemoryVariant>,
  contenders: ReadonlyArray<'kreconcile' | 'direct'>,
  settings: FleetSettings,
): Promise<ReadonlyArray<Row>> =>
  withControlPlane(settings, false, async (context) => {
    const rows: Row[] = [];
    const cases = contenders.flatMap((contender) => variants.map((variant) => ({ contender, variant })));
    for (const count of sizes) {
      const runs = new Map<string, Run[]>();
      for (let round = 1; round <= rounds; round++) {
        const order = cases.map((_, i) => cases[(i + round - 1) % cases.length] as (typeof cases)[number]);
        for (const [index, { contender, variant }] of order.entries()) {
          const key = `${contender} [${variant.name}]`;
          settings.log(`memory: N=${count} round ${round}/${rounds}: ${key}…`);
          const run = await runContender(context, contender, 'flux', count, `mem-${count}-r${round}-${index}`, {
            nodeFlags: variant.nodeFlags,
            fullClient: variant.fullClient,
            untuned: variant.untuned,
            ...(variant.setFlags.length > 0 ? { setFlags: variant.setFlags } : {}),
            ...(variant.heapSnapshot ? { heapSnapshotDir: dirname(context.scripts.contender) } : {}),
          });
          runs.set(key, [...(runs.get(key) ?? []), run]);
          settings.log(
            `memory: N=${count} round ${round}: ${key} ${(run.elapsedMs / 1000).toFixed(1)} s, CPU ${((run.cpuMs ?? 0) / 1000).toFixed(1)} s, peak RSS ${(run.maxRssBytes / MiB).toFixed(0)} MiB; before: ${memoryLine(run.memoryBefore)}; peaks: ${memoryLine(run.memoryPeak)}; at Ready (after a full GC): RSS ${((run.rssReadyBytes ?? 0) / MiB).toFixed(0)}, heap ${((run.heapReadyBytes ?? 0) / MiB).toFixed(0)} MiB`,
          );
        }
      }
      for (const [key, measured] of runs) {
        const figures = describe(measured, count * objectsPerApplication('flux'));
        const last = measured.at(-1);
        rows.push({
          suite: 'fleet-memory',
          case: `${key}, ${count} Applications × 4 objects`,
          resources: count * objectsPerApplication('flux'),
          ...figures,
          memoryBytes: figures.peakRssMiB * MiB,
          cpuMs: median(measured.map((run) => run.cpuMs ?? Number.NaN)),
          memoryBefore: last?.memoryBefore,
          memoryPeak: last?.memoryPeak,
        });
      }
    }
    return rows;
  });
