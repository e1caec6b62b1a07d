/**
 * Model-based test of the whole runtime (controller: informers, queue, workers) on the in-memory
 * cluster with faults: dropped and duplicated watch events, 409/500/429, API-server restarts and
 * controller restarts mid-plan. Once faults stop it converges, never reconciles one Application
 * concurrently and orphans nothing.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import type { ReconcileResult } from '../../../app/reconcile/reconcile-application.js';
import { setIn, type Resource } from '../model/helpers.js';
import {
  CreateApp,
  DeleteApp,
  appRef,
  EditChild,
  SetFaults,
  UpdateApp,
  specArbitrary,
  type Model,
} from '../model/commands.js';
import { APP_NAMES, NAMESPACES, applicationOf, problems } from '../model/world.js';

type Real = {
  cluster: MemoryCluster;
  clock: ManualClock;
  controller: Controller;
  seed: number;
  restarts: number;
  violations: number;
  hotLoops: number;
};

const newController = (
  real: Pick<Real, 'cluster' | 'clock' | 'seed'> & Partial<Pick<Real, 'hotLoops'>>,
  generation: number,
): Controller => {
  let state = real.seed + generation;
  const random = (): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const onReconciled = (_key: string, result: ReconcileResult): void => {
    if (
      result._tag !== 'Gone' &&
      result.plan?.outcome._tag === 'RequeueAfter' &&
      result.plan.outcome.reason === 'HotLoop' &&
      real.hotLoops !== undefined
    )
      real.hotLoops++;
  };
  return new Controller({
    cluster: real.cluster,
    clock: real.clock,
    random,
    workers: 2,
    resyncMs: 30_000,
    events: false,
    onReconciled,
  });
};

/** Lets watch events, timers and workers run for `ms` of clock time. */
const run = async (clock: ManualClock, ms: number, step = 100): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await clock.advance(step);
  }
  await flushMicrotasks();
};

/** A call by the test (user or other actor), completing even under injected latency. */
const call = async <T>(clock: ManualClock, task: Promise<T>): Promise<T> => {
  let done = false;
  const result = task.finally(() => {
    done = true;
  });
  while (!done) {
    await flushMicrotasks();
    if (!done) await clock.advance(50);
  }
  return result;
};

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    await run(r.clock, this.ms);
  }
  toString = () => `wait ${this.ms} ms`;
}

class RestartApiServer implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    r.cluster.restart();
  }
  toString = () => 'restart API server';
}

/** The operator process dies (deadline 0: reconciles in flight are abandoned mid-plan) and a new one starts. */
class RestartController implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    r.violations += r.controller.concurrentReconciles;
    void r.controller.stop(0);
    await flushMicrotasks();
    r.restarts++;
    r.controller = newController(r, r.restarts);
    await call(r.clock, r.controller.start());
  }
  toString = () => 'restart controller';
}

const commands = [
  specArbitrary.map((spec) => new CreateApp<Real>(spec)),
  specArbitrary.map((spec) => new UpdateApp<Real>(spec.namespace, spec.name, spec.children)),
  fc
    .tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES))
    .map(([ns, name]) => new DeleteApp<Real>(ns, name)),
  fc.tuple(fc.nat(), fc.boolean()).map(([pick, observed]) => new EditChild<Real>(pick, observed)),
  fc.constantFrom('none' as const, 'flaky' as const, 'chaos' as const).map((p) => new SetFaults<Real>(p)),
  fc.integer({ min: 100, max: 20_000 }).map((ms) => new Wait(ms)),
  fc.constant(new RestartApiServer()),
  fc.constant(new RestartController()),
];

const settle = async (model: Model, real: Real): Promise<ReadonlyArray<string>> => {
  real.cluster.setFaults({});
  let last: ReadonlyArray<string> = [];
  // Up to 10 minutes of clock time: backoffs (capped at 5 min) and the 30 s resync heal dropped events.
  for (let second = 0; second < 600; second += 5) {
    await run(real.clock, 5_000, 250);
    await real.cluster.settle();
    last = problems(real.cluster, model.apps, model.annotations);
    if (last.length === 0 && real.controller.idle) return last;
  }
  return last;
};

describe('the controller runtime on the in-memory cluster (model-based)', () => {
  it('converges after faults, never reconciles an Application concurrently, orphans nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 20 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        async (cmds, seed) => {
          const clock = new ManualClock();
          const cluster = createMemoryCluster({ clock, seed, workloads: true });
          await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })();
          const real = { cluster, clock, seed, restarts: 0, violations: 0, hotLoops: 0 } as Real;
          real.controller = newController(real, 0);
          await real.controller.start();
          const model: Model = { apps: new Map(), annotations: new Map(), touches: 0 };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          const left = await settle(model, real);
          real.violations += real.controller.concurrentReconciles;
          await real.controller.stop(0);
          expect(left).toEqual([]);
          expect(real.violations).toBe(0);
          // The per-key reconcile counts are bounded: a deleted Application's count went with it.
          const stored = new Set(
            real.cluster
              .objects()
              .filter((object) => object.kind === 'Application')
              .map((object) => `${object.metadata.namespace}/${object.metadata.name}`),
          );
          expect([...real.controller.reconcilesByKey.keys()].filter((key) => !stored.has(key))).toEqual([]);
          // No HotLoop without a competing writer: faults, timeouts, restarts and retries never count.
          if (real.hotLoops > 0) expect(model.observedEdits ?? 0).toBeGreaterThanOrEqual(4);
        },
      ),
      {
        numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 150),
        verbose: 1,
        ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}),
        ...(process.env.KRECONCILE_PATH ? { path: process.env.KRECONCILE_PATH } : {}),
      },
    );
  }, 600_000);

  it('forgets the reconcile count of a deleted Application (the counts stay as large as the store)', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 11, workloads: true });
    const controller = newController({ cluster, clock, seed: 11 }, 0);
    await controller.start();
    for (const name of ['shop', 'blog'])
      await cluster.create(
        applicationOf({
          namespace: 'default',
          name,
          children: [{ kind: 'ConfigMap', name: `${name}-config`, data: { mode: 'a' } }],
        }),
      )();
    await run(clock, 5_000);
    expect([...controller.reconcilesByKey.keys()].sort()).toEqual(['default/blog', 'default/shop']);
    await cluster.delete(appRef('default', 'shop'))();
    await run(clock, 5_000);
    expect(cluster.objects().filter((object) => object.metadata.name === 'shop')).toEqual([]);
    expect([...controller.reconcilesByKey.keys()]).toEqual(['default/blog']);
    await controller.stop(0);
  });

  it('a burst of 1 000 child events for one Application causes at most 3 reconciles', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 7, workloads: true });
    const controller = newController({ cluster, clock, seed: 7 }, 0);
    await controller.start();
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'shop',
        children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } }],
      }),
    )();
    await run(clock, 5_000);
    const before = controller.reconcilesByKey.get('default/shop') ?? 0;
    expect(before).toBeGreaterThan(0);
    const child = await cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'shop-config',
    })();
    if (E.isLeft(child) || O.isNone(child.right)) throw new Error('child not created');
    let live = child.right.value;
    // The burst as every watcher of ConfigMaps sees it (the controller's child watch among them).
    let modified = 0;
    const watch = cluster.watch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' },
      {
        event: (event) => {
          if (event.type === 'MODIFIED') modified++;
        },
        closed: () => {},
      },
    );
    await flushMicrotasks();
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1_000; i++) {
      live = setIn(live, ['metadata', 'annotations', 'burst'], String(i)) as Resource;
      const { resourceVersion: _rv, ...metadata } = live.metadata;
      writes.push(cluster.update({ ...live, metadata })());
    }
    await Promise.all(writes);
    await run(clock, 10_000);
    const caused = (controller.reconcilesByKey.get('default/shop') ?? 0) - before;
    watch.stop();
    await controller.stop(0);
    expect(modified).toBe(1_000);
    expect(caused).toBeGreaterThanOrEqual(1);
    expect(caused).toBeLessThanOrEqual(3);
  });
});
