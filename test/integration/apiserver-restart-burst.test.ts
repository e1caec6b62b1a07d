/**
 * The hot-loop guard on a real API server that dies mid-burst (issue 11): 40 Applications, a burst
 * of spec changes, kube-apiserver stopped (SIGTERM, SIGKILL after 5 s) and started again while the
 * operator works through them. Every Application ends Ready with its spec applied and none is
 * `Stalled HotLoop`: retries after errors, timeouts and the restart are not another actor.
 * Restarting the shared apiserver would break suites running beside this one: a private control plane.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import { applicationCrd } from '../../app/manifests/crd.js';
import { startOperator, type Operator } from '../../app/runtime/operator.js';
import { getIn, type Resource } from '../../core/internal.js';
import { findBinaries } from '../../tools/envtest/binaries.js';
import { startControlPlane, type ControlPlane } from '../../tools/envtest/control-plane.js';
import { installCrds } from '../../tools/envtest/install-crds.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  readApplication,
  readObject,
  reconcileLog,
  updateApplicationSpec,
} from '../support/e2e-application.js';
import { eventually } from '../support/eventually.js';
import { describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';

const COUNT = 40;
const names = Array.from({ length: COUNT }, (_, i) => `burst-${String(i).padStart(2, '0')}`);
const manifest = (name: string, version: number): ReadonlyArray<Resource> => [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${name}-config` },
    data: { version: String(version) },
  },
];

describeWithApiServer('an API server restart in the middle of a burst of spec changes', (env) => {
  let plane: ControlPlane | undefined;
  let operator: Operator | undefined;
  beforeAll(async () => {
    const lookup = findBinaries();
    if (env.existingCluster || !lookup.found) return;
    plane = await startControlPlane({ binaries: lookup.binaries, controllerManager: false });
    await installCrds(createKubernetesCluster({ kubeconfigPath: plane.kubeconfigPath }), [applicationCrd()]);
  }, 180_000);
  afterAll(async () => {
    await operator?.stop(5_000);
    await plane?.stop();
  });

  it('all Applications end Ready with the last spec, none Stalled HotLoop', async ({ skip }) => {
    if (plane === undefined)
      return skip('restarting needs a control plane this run started (not KRECONCILE_USE_EXISTING_CLUSTER)');
    const cluster = createKubernetesCluster({ kubeconfigPath: plane.kubeconfigPath });
    const { namespace } = await freshNamespace(cluster, 'kr-burst');
    const log = reconcileLog();
    operator = await startOperator({
      cluster: createKubernetesCluster(
        { kubeconfigPath: plane.kubeconfigPath },
        { watch: { backoff: { initialMs: 100, maxMs: 1_000 } } },
      ),
      clock: realClock,
      random: Math.random,
      namespace,
      readiness: 'existence',
      workers: 4,
      onReconciled: log.onReconciled,
      // A tight guard: three undone patches in a minute would be a hot loop.
      hotLoop: { windowMs: 60_000, threshold: 3 },
    });
    for (const name of names) await must(cluster.create(applicationObject(namespace, name, manifest(name, 1))));
    await eventually(async () => {
      for (const name of names.slice(-3))
        expect(
          await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` }),
        ).toBeDefined();
    }, 60_000);
    // The burst: every Application changes spec twice; the apiserver goes away in the middle of it.
    for (const version of [2, 3]) {
      for (const name of names)
        await updateApplicationSpec(cluster, applicationRef(namespace, name), { manifest: manifest(name, version) });
      if (version === 2) await plane.restartApiServer();
    }
    await eventually(
      async () => {
        for (const name of names) {
          const application = await readApplication(cluster, applicationRef(namespace, name));
          expect(conditionOf(application, 'Stalled')?.reason, name).not.toBe('HotLoop');
          expect(conditionOf(application, 'Ready'), name).toMatchObject({
            status: 'True',
            observedGeneration: application.metadata.generation,
          });
          expect(
            getIn(
              (await readObject(cluster, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` })) ??
                {},
              ['data', 'version'],
            ),
          ).toBe('3');
        }
      },
      120_000,
      500,
    );
    const hotLoops = log.entries.filter(
      ({ result }) =>
        result._tag !== 'Gone' &&
        result.plan?.outcome._tag === 'RequeueAfter' &&
        result.plan.outcome.reason === 'HotLoop',
    );
    expect(hotLoops.map(({ key }) => key)).toEqual([]);
  }, 300_000);
});
