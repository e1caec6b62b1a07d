/**
 * Real API server benchmark: time for the operator to converge 100 Applications (3 children
 * each), against creating the same objects directly (the least work possible). Both run in
 * alternation (direct, operator, direct, operator, …; fresh namespaces and a cold operator each
 * round) and the medians are compared, so both see the same machine load. Also reported: the CPU
 * time the control plane (etcd, kube-apiserver) and this process spent in each, which a busy
 * machine does not inflate.
 */
import * as E from 'fp-ts/lib/Either.js';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createKubernetesCluster, type FlowControlSettings } from '../adapters/kubernetes/index.js';
import { systemClock } from '../adapters/memory/index.js';
import { converged } from '../app/reconcile/reconcile-application.js';
import { startOperator } from '../app/runtime/operator.js';
import { applicationCrd } from '../app/manifests/crd.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Cluster, type Resource } from '../core/internal.js';
import { findBinaries } from '../tools/envtest/binaries.js';
import { startControlPlane } from '../tools/envtest/control-plane.js';
import { installCrd } from '../tools/envtest/install-crds.js';
import { configMapSpec, deploymentSpec, serviceSpec } from './fixtures.js';
import { median, type Row } from './measure.js';

const must = async <A>(task: Promise<E.Either<{ message: string }, A>>): Promise<A> => {
  const result = await task;
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};

const children = (i: number): ReadonlyArray<Resource> => [
  deploymentSpec(`app-${i}`),
  serviceSpec(`app-${i}`),
  configMapSpec(`app-${i}-config`),
];

/**
 * CPU ms (user + system) of the control plane: this process's child processes, from /proc (Linux: 100 clock ticks a
 * second).
 */
const controlPlaneCpuMs = (): number => {
  let children = 0;
  const entries = (() => {
    try {
      return readdirSync('/proc');
    } catch {
      return [];
    }
  })();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; /* exited meanwhile */
    }
    // pid (comm) state ppid … utime stime: counted after the command name, which may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) !== process.pid) continue;
    children += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  return children;
};

const ownCpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Wall time, and CPU time of the control plane and of this process (the client or the operator). */
type Phase = { readonly wallMs: number; readonly serverCpuMs: number; readonly clientCpuMs: number };

const timed = async (task: () => Promise<void>): Promise<Phase> => {
  const server = controlPlaneCpuMs();
  const client = ownCpuMs();
  const t0 = performance.now();
  await task();
  return {
    wallMs: performance.now() - t0,
    serverCpuMs: controlPlaneCpuMs() - server,
    clientCpuMs: ownCpuMs() - client,
  };
};

const createNamespace = (cluster: Cluster, name: string): Promise<Resource> =>
  must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })());

/** Deletes the Services of a finished phase (not timed): the Service IP range holds only a few hundred. */
const removeServices = async (cluster: Cluster, namespace: string): Promise<void> => {
  const services = await must(cluster.list({ apiVersion: 'v1', kind: 'Service', namespace })());
  for (const service of services.items)
    await must(cluster.delete({ apiVersion: 'v1', kind: 'Service', namespace, name: service.metadata.name })());
};

/**
 * The operator's workers: the baseline creates with as many concurrent clients, so both sides may overlap requests
 * alike.
 */
const WORKERS = 4;

/**
 * The baseline: the same 3 × `count` objects created without an operator, by `WORKERS` concurrent
 * clients each taking the next Application and creating its children in order, as a worker would.
 */
const direct = async (cluster: Cluster, count: number, namespace: string): Promise<Phase> => {
  await createNamespace(cluster, namespace);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++)
      for (const child of children(i))
        await must(cluster.create({ ...child, metadata: { ...child.metadata, namespace } })());
  };
  return timed(async () => {
    await Promise.all(Array.from({ length: WORKERS }, worker));
  });
};

/** A cold operator for `namespace`: the Applications are created, then it runs until every one is Ready. */
const operated = async (cluster: Cluster, count: number, namespace: string): Promise<Phase> => {
  await createNamespace(cluster, namespace);
  const ready = new Set<string>();
  const operator = await startOperator({
    cluster,
    clock: systemClock,
    random: Math.random,
    workers: WORKERS,
    resyncMs: 0,
    namespace,
    // the benchmark control plane runs no deployment controller: children count as ready once they exist
    readiness: 'existence',
    onReconciled: (key, result) => {
      if (converged(result)) ready.add(key);
    },
  });
  try {
    return await timed(async () => {
      const started = performance.now();
      for (let i = 0; i < count; i++) {
        await must(
          cluster.create({
            apiVersion: APPLICATION_API_VERSION,
            kind: APPLICATION_KIND,
            metadata: { name: `app-${i}`, namespace },
            spec: { manifest: children(i) },
          })(),
        );
      }
      while (ready.size < count) {
        if (performance.now() - started > 600_000)
          throw new Error(`only ${ready.size}/${count} Applications converged in 10 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  } finally {
    await operator.stop(10_000);
  }
};

export const apiServerBenchmarks = async (
  count: number,
  log: (line: string) => void,
  rounds = 3,
  flowControl: Partial<FlowControlSettings> = {},
): Promise<ReadonlyArray<Row>> => {
  const lookup = findBinaries();
  if (!lookup.found) {
    log(`apiserver: skipped (${lookup.reason})`);
    return [];
  }
  log('apiserver: starting etcd + kube-apiserver…');
  const plane = await startControlPlane({
    binaries: lookup.binaries,
    controllerManager: false,
    beforeControllers: async ({ kubeconfigPath }) =>
      installCrd(createKubernetesCluster({ kubeconfigPath }), applicationCrd()),
  });
  try {
    // Every request the client sends passes flow control once: counting the grants counts the requests.
    let requests = 0;
    const cluster: Cluster = createKubernetesCluster(
      { kubeconfigPath: plane.kubeconfigPath },
      { flowControl: { ...flowControl, onWait: () => requests++ } },
    );
    const directs: Phase[] = [];
    const operators: Phase[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`apiserver: round ${round}/${rounds}: creating ${count * 3} objects directly…`);
      directs.push(await direct(cluster, count, `bench-direct-${round}`));
      await removeServices(cluster, `bench-direct-${round}`);
      log(`apiserver: round ${round}/${rounds}: a cold operator converging ${count} Applications…`);
      const before = requests;
      operators.push(await operated(cluster, count, `bench-operator-${round}`));
      const wallMs = operators.at(-1)?.wallMs ?? 0;
      log(
        `apiserver: round ${round}: operator sent ${requests - before} requests in ${wallMs.toFixed(0)} ms: ${(((requests - before) * 1_000) / wallMs).toFixed(1)} requests/s`,
      );
      await removeServices(cluster, `bench-operator-${round}`);
      log(
        `apiserver: round ${round}: direct ${directs.at(-1)?.wallMs.toFixed(0)} ms, operator ${operators.at(-1)?.wallMs.toFixed(0)} ms`,
      );
    }
    const valueMs = median(operators.map((phase) => phase.wallMs));
    const baselineMs = median(directs.map((phase) => phase.wallMs));
    const serverCpuMs = median(operators.map((phase) => phase.serverCpuMs));
    const baselineServerCpuMs = median(directs.map((phase) => phase.serverCpuMs));
    const clientCpuMs = median(operators.map((phase) => phase.clientCpuMs));
    const baselineClientCpuMs = median(directs.map((phase) => phase.clientCpuMs));
    return [
      {
        suite: 'apiserver',
        case: `converge ${count} Applications (3 children each), median of ${rounds} alternating rounds`,
        resources: count * 3,
        valueMs,
        baselineName: `direct creates of the same objects, ${WORKERS} concurrent clients`,
        baselineMs,
        ratio: valueMs / baselineMs,
        serverCpuMs,
        baselineServerCpuMs,
        serverCpuRatio: serverCpuMs / baselineServerCpuMs,
        clientCpuMs,
        baselineClientCpuMs,
        clientCpuRatio: clientCpuMs / baselineClientCpuMs,
      },
    ];
  } finally {
    await plane.stop();
  }
};
