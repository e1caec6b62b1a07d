/** The hot-loop guard: another actor that keeps reverting an observed field stalls the Application instead of a patch war. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { conditionOf, contestedPaths, recordPatches, type Application, type Plan, type Resource } from '../../../core/index.js';
import { applicationOf } from '../model/world.js';

const deploymentRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'shop-web' };

describe('hot-loop guard', () => {
  it('stalls with reason HotLoop, naming the contested path, when another actor keeps reverting it', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 3, workloads: true });
    const controller = new Controller({ cluster, clock, random: () => 0.5, events: false, resyncMs: 0, hotLoop: { windowMs: 60_000, threshold: 4 } });
    await controller.start();
    await cluster.create(applicationOf({ namespace: 'default', name: 'shop', children: [{ kind: 'Deployment', name: 'shop-web', replicas: 2, image: 'nginx:1.27' }] }))();
    const settle = async (ms: number) => { for (let t = 0; t < ms; t += 100) { await flushMicrotasks(); await clock.advance(100); } };
    await settle(3_000);
    let patchesSeen = 0;
    for (let round = 0; round < 8; round++) {
      const live = await cluster.get(deploymentRef)();
      if (E.isLeft(live) || O.isNone(live.right)) throw new Error('deployment missing');
      if ((live.right.value.spec as { replicas: number }).replicas === 2) patchesSeen++;
      await cluster.update({ ...live.right.value, spec: { ...(live.right.value.spec as object), replicas: 7 } } as Resource)();
      await settle(2_000);
    }
    const app = await cluster.get({ apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', namespace: 'default', name: 'shop' })();
    if (E.isLeft(app) || O.isNone(app.right)) throw new Error('application missing');
    const stalled = conditionOf((app.right.value as unknown as Application).status?.conditions, 'Stalled');
    await controller.stop(0);
    expect(stalled).toMatchObject({ status: 'True', reason: 'HotLoop' });
    expect(stalled?.message).toContain('spec.replicas');
    // replicas were back at 2 once after the create, then after exactly threshold - 1 identical patches
    expect(patchesSeen - 1).toBe(3);
  });

  it('contestedPaths counts only identical patches of the same resource inside the window', () => {
    const patchPlan = (value: number): Plan => ({
      actions: [{ type: 'patch', ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'd', name: 'c' }, patch: [{ op: 'replace', path: '/data/a', value }], changes: [{ path: 'data.a', to: value }] }],
      status: {}, outcome: { _tag: 'AwaitChange' }, summary: { create: 0, patch: 1, delete: 0, conflict: 0 },
    });
    const policy = { windowMs: 1_000, threshold: 3 };
    let history = recordPatches([], patchPlan(1), 0, policy);
    history = recordPatches(history, patchPlan(2), 100, policy);
    expect(contestedPaths(history, patchPlan(1), 200, policy)).toEqual([]);
    history = recordPatches(history, patchPlan(1), 300, policy);
    expect(contestedPaths(history, patchPlan(1), 400, policy)).toEqual(['ConfigMap/d/c: data.a']);
    expect(contestedPaths(history, patchPlan(1), 1_250, policy)).toEqual([]);
  });
});
