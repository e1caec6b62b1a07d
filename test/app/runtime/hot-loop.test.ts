/**
 * The hot-loop guard: another actor that keeps reverting an observed field stalls the Application instead of a patch
 * war.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import {
  conditionOf,
  contestedPaths,
  recordPatches,
  type Application,
  type HotLoopPolicy,
  type PatchRecord,
  type Plan,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';

const deploymentRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'shop-web' };

describe('hot-loop guard', () => {
  it('stalls with reason HotLoop, naming the contested path, when another actor keeps reverting it', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 3, workloads: true });
    const controller = new Controller({
      cluster,
      clock,
      random: () => 0.5,
      events: false,
      resyncMs: 0,
      bookkeeping: { hotLoop: { windowMs: 60_000, threshold: 4 } },
    });
    await controller.start();
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'shop',
        children: [{ kind: 'Deployment', name: 'shop-web', replicas: 2, image: 'nginx:1.27' }],
      }),
    )();
    const settle = async (ms: number) => {
      for (let t = 0; t < ms; t += 100) {
        await flushMicrotasks();
        await clock.advance(100);
      }
    };
    await settle(3_000);
    let patchesSeen = 0;
    for (let round = 0; round < 8; round++) {
      const live = await cluster.get(deploymentRef)();
      if (E.isLeft(live) || O.isNone(live.right)) throw new Error('deployment missing');
      if ((live.right.value.spec as { replicas: number }).replicas === 2) patchesSeen++;
      await cluster.update({
        ...live.right.value,
        spec: { ...(live.right.value.spec as object), replicas: 7 },
      })();
      await settle(2_000);
    }
    const app = await cluster.get({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      namespace: 'default',
      name: 'shop',
    })();
    if (E.isLeft(app) || O.isNone(app.right)) throw new Error('application missing');
    const stalled = conditionOf((app.right.value as unknown as Application).status?.conditions, 'Stalled');
    await controller.stop(0);
    expect(stalled).toMatchObject({ status: 'True', reason: 'HotLoop' });
    expect(stalled?.message).toContain('spec.replicas');
    // replicas were back at 2 once after the create, then after exactly threshold - 1 identical patches
    expect(patchesSeen - 1).toBe(3);
  });

  const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'd', name: 'c' };
  const patchPlan = (value: number): Plan => ({
    actions: [
      {
        type: 'patch',
        ref,
        patch: [{ op: 'replace', path: '/data/a', value }],
        changes: [{ path: 'data.a', to: value }],
      },
    ],
    status: {},
    outcome: { _tag: 'AwaitChange' },
    summary: { create: 0, patch: 1, delete: 0, conflict: 0 },
  });
  const key = 'v1|ConfigMap|d|c';
  const done = (plan: Plan, wrote: string) =>
    plan.actions.map((action) => ({
      action,
      response: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'd', resourceVersion: wrote },
      },
    }));

  it('contestedPaths counts only succeeded patches of the same resource undone by someone else inside the window', () => {
    const policy = { windowMs: 1_000, threshold: 3 };
    // Ours at v2, someone else's write v3, ours again at v4, someone else's v5: undone twice.
    let history = recordPatches([], done(patchPlan(1), '2'), new Map([[key, '1']]), 0, policy);
    history = recordPatches(history, done(patchPlan(2), '3'), new Map([[key, '2']]), 100, policy);
    expect(contestedPaths(history, patchPlan(1), new Map([[key, '4']]), 200, policy)).toEqual([]);
    history = recordPatches(history, done(patchPlan(1), '5'), new Map([[key, '4']]), 300, policy);
    expect(contestedPaths(history, patchPlan(1), new Map([[key, '6']]), 400, policy)).toEqual([
      'ConfigMap/d/c: data.a',
    ]);
    // The same patch needed again on the very version it wrote: nobody else wrote; not a fight.
    expect(contestedPaths(history, patchPlan(1), new Map([[key, '5']]), 400, policy)).toEqual([]);
    expect(contestedPaths(history, patchPlan(1), new Map([[key, '6']]), 1_250, policy)).toEqual([]);
  });

  type Step = 'ok' | 'failBeforeCommit' | 'timeoutAfterCommit' | 'restart' | 'otherWrite';

  /**
   * One observed field, desired value 1, reconciled after every step: our patch succeeds, fails before
   * the commit (500, connection refused) or times out after it (the server applied it, we saw an error);
   * the API server restarts (versions kept); or another actor writes 0.
   */
  const simulate = (steps: ReadonlyArray<Step>, policy: HotLoopPolicy): { hotLoops: number; undone: number } => {
    let version = 1;
    let value = 0;
    let history: ReadonlyArray<PatchRecord> = [];
    let hotLoops = 0;
    let undone = 0;
    steps.forEach((step, now) => {
      if (step === 'otherWrite') {
        if (value === 1) undone++;
        version++;
        value = 0;
        return;
      }
      if (step === 'restart' || value === 1) return;
      const plan = patchPlan(1);
      const live = new Map([[key, String(version)]]);
      if (contestedPaths(history, plan, live, now, policy).length > 0) {
        hotLoops++;
        return;
      }
      if (step === 'failBeforeCommit') return;
      version++;
      value = 1;
      if (step === 'ok') history = recordPatches(history, done(plan, String(version)), live, now, policy);
    });
    return { hotLoops, undone };
  };

  it('property: no HotLoop without a competing writer, whatever errors, timeouts and restarts happen', () => {
    const policy = { windowMs: 1_000_000, threshold: 3 };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Step>('ok', 'failBeforeCommit', 'timeoutAfterCommit', 'restart'), { maxLength: 200 }),
        (steps) => {
          expect(simulate(steps, policy).hotLoops).toBe(0);
        },
      ),
    );
    // And the guard still fires when someone else keeps undoing a patch that succeeded.
    expect(simulate(['ok', 'otherWrite', 'ok'], policy).hotLoops).toBe(0);
    expect(simulate(['ok', 'otherWrite', 'ok', 'otherWrite', 'ok'], policy).hotLoops).toBe(1);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Step>('ok', 'failBeforeCommit', 'timeoutAfterCommit', 'restart', 'otherWrite'), {
          maxLength: 200,
        }),
        (steps) => {
          const { hotLoops, undone } = simulate(steps, policy);
          if (hotLoops > 0) expect(undone).toBeGreaterThanOrEqual(policy.threshold - 1);
        },
      ),
    );
  });
});
