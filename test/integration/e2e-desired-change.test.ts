/**
 * `planDesiredChangeLive` on a real API server (issue 38): 10 `Site` primaries converged by the
 * embedded operator running the old `desired()`, then read back (list, get, discovery, read-only)
 * and checked against a new `desired()` that bumps the default image: 9 Sites follow the default,
 * one pins its own. The report must say 9 patch the Deployment's pod template and roll its pods.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { planDesiredChangeLive, startEmbeddedOperator, type Operator } from '../../app/runtime/index.js';
import { installCrd } from '../../tools/envtest/install-crds.js';
import { eventually } from '../support/eventually.js';
import { connect, describeWithApiServer, freshNamespace, must } from '../support/kubernetes-env.js';
import { realClock } from '../support/real-clock.js';
import { isReady, SITE, SITE_CRD, siteReconciler } from '../support/site-operator.js';

const CONVERGE_MS = 60_000;
const NAMES = Array.from({ length: 10 }, (_, i) => `site-${i}`);
const PINNED = 'site-4';

describeWithApiServer('end to end: a new desired() checked against a fleet on a real API server', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  let operator: Operator | undefined;

  beforeAll(async () => {
    cluster = connect(env);
    await installCrd(cluster, SITE_CRD);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-e2e-desired-change'));
    // No kubelet runs Pods here: children count as ready once they exist.
    operator = await startEmbeddedOperator({
      cluster: connect(env),
      clock: realClock,
      random: Math.random,
      namespace,
      readiness: 'existence',
      reconciler: siteReconciler('nginx:1.27'),
    });
  });
  afterAll(async () => {
    await operator?.stop(10_000);
    await cleanup?.();
  });

  const readyCount = async (): Promise<number> => {
    const listed = await must(cluster.list({ ...SITE, namespace }));
    return listed.items.filter(isReady).length;
  };

  it('9 of 10 Sites patch spec.template and roll their 2 pods, the pinned one changes nothing', async () => {
    for (const name of NAMES)
      await must(
        cluster.create({
          ...SITE,
          metadata: { name, namespace },
          spec: { replicas: 2, ...(name === PINNED ? { image: 'nginx:1.26' } : {}) },
        }),
      );
    await eventually(async () => expect(await readyCount()).toBe(NAMES.length), CONVERGE_MS);
    await operator?.stop(10_000);
    operator = undefined;

    const live = await planDesiredChangeLive({
      before: siteReconciler('nginx:1.27'),
      after: siteReconciler('nginx:1.28'),
      cluster,
      namespace,
      now: new Date().toISOString(),
    });
    if (E.isLeft(live)) throw new Error(live.left.message);
    const change = live.right;
    expect(change.problems).toEqual([]);
    expect(change.before.report.totals).toEqual([]);
    expect(change.after.report.totals).toEqual([
      { action: 'patch', kind: 'Deployment', fields: ['spec.template'], instances: 9, objects: 9 },
    ]);
    expect(change.changed).toHaveLength(9);
    expect(change.after.report.groups.map((group) => group.instances.length)).toEqual([9, 1]);
    const unchanged = change.after.report.groups[1]?.instances[0] ?? -1;
    expect(change.after.members[unchanged]?.application.metadata.name).toBe(PINNED);
    const bumped = change.after.members[change.changed[0] ?? -1];
    expect(bumped?.impacts.flat()).toEqual([expect.objectContaining({ type: 'rollout', pods: 2 })]);
  }, 120_000);
});
