/**
 * Real API server benchmark: time for the operator to converge 100 Applications (3 children
 * each), against creating the same objects directly (the least work possible).
 */
import * as E from 'fp-ts/lib/Either.js';
import { performance } from 'node:perf_hooks';
import { createKubernetesCluster } from '../adapters/kubernetes/index.js';
import { systemClock } from '../adapters/memory/index.js';
import { converged } from '../app/reconcile/reconcile-application.js';
import { startOperator } from '../app/runtime/operator.js';
import { applicationCrd } from '../app/manifests/crd.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Cluster, type Resource } from '../core/index.js';
import { findBinaries } from '../tools/envtest/binaries.js';
import { startControlPlane } from '../tools/envtest/control-plane.js';
import { installCrd } from '../tools/envtest/install-crds.js';
import { configMapSpec, deploymentSpec, serviceSpec } from './fixtures.js';
import type { Row } from './measure.js';

const must = async <A>(task: Promise<E.Either<{ message: string }, A>>): Promise<A> => {
  const result = await task;
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};

const children = (i: number): ReadonlyArray<Resource> => [deploymentSpec(`app-${i}`), serviceSpec(`app-${i}`), configMapSpec(`app-${i}-config`)];

export const apiServerBenchmarks = async (count: number, log: (line: string) => void): Promise<ReadonlyArray<Row>> => {
  const lookup = findBinaries();
  if (!lookup.found) { log(`apiserver: skipped (${lookup.reason})`); return []; }
  log('apiserver: starting etcd + kube-apiserver…');
  const plane = await startControlPlane({
    binaries: lookup.binaries, controllerManager: false,
    beforeControllers: async ({ kubeconfigPath }) => installCrd(createKubernetesCluster({ kubeconfigPath }), applicationCrd()),
  });
  try {
    const cluster: Cluster = createKubernetesCluster({ kubeconfigPath: plane.kubeconfigPath });
    for (const ns of ['bench-direct', 'bench-operator']) await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } as Resource)());
    log(`apiserver: baseline — creating ${count * 3} objects directly…`);
    const t0 = performance.now();
    for (let i = 0; i < count; i++) for (const child of children(i)) await must(cluster.create({ ...child, metadata: { ...child.metadata, namespace: 'bench-direct' } } as Resource)());
    const directMs = performance.now() - t0;
    log(`apiserver: operator — converging ${count} Applications…`);
    const ready = new Set<string>();
    const operator = await startOperator({
      cluster, clock: systemClock, random: Math.random, workers: 4, resyncMs: 0,
      // the benchmark control plane runs no deployment controller: children count as ready once they exist
      readiness: 'existence',
      onReconciled: (key, result) => {
        if (converged(result)) ready.add(key);
      },
    });
    const t1 = performance.now();
    for (let i = 0; i < count; i++) {
      await must(cluster.create({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, metadata: { name: `app-${i}`, namespace: 'bench-operator' }, spec: { manifest: children(i) } } as unknown as Resource)());
    }
    while (ready.size < count) {
      if (performance.now() - t1 > 600_000) throw new Error(`only ${ready.size}/${count} Applications converged in 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const operatorMs = performance.now() - t1;
    await operator.stop(10_000);
    return [{ suite: 'apiserver', case: `converge ${count} Applications (3 children each)`, resources: count * 3, valueMs: operatorMs, baselineName: 'direct creates of the same objects', baselineMs: directMs, ratio: operatorMs / directMs }];
  } finally {
    await plane.stop();
  }
};
