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
import { ManualClock, createMemoryCluster, faultProfiles, flushMicrotasks, type MemoryCluster } from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, setIn, type Resource } from '../model/helpers.js';
import { APP_NAMES, NAMESPACES, apiVersionOf, applicationOf, childrenArbitrary, observedFieldOf, problems, type AppSpec, type Child } from '../model/world.js';

type Model = { apps: Map<string, AppSpec>; annotations: Map<string, string>; touches: number };
type Real = { cluster: MemoryCluster; clock: ManualClock; controller: Controller; seed: number; restarts: number; violations: number };

const newController = (real: Pick<Real, 'cluster' | 'clock' | 'seed'>, generation: number): Controller => {
  let state = real.seed + generation;
  const random = (): number => { state = (state * 1103515245 + 12345) % 2 ** 31; return state / 2 ** 31; };
  return new Controller({ cluster: real.cluster, clock: real.clock, random, workers: 2, resyncMs: 30_000, events: false });
};

/** Lets watch events, timers and workers run for `ms` of clock time. */
const run = async (clock: ManualClock, ms: number, step = 100): Promise<void> => {
  for (let t = 0; t < ms; t += step) { await flushMicrotasks(); await clock.advance(step); }
  await flushMicrotasks();
};

/** A call by the test (user or other actor), completing even under injected latency. */
const call = async <T>(clock: ManualClock, task: Promise<T>): Promise<T> => {
  let done = false;
  const result = task.finally(() => { done = true; });
  while (!done) { await flushMicrotasks(); if (!done) await clock.advance(50); }
  return result;
};

const appRef = (namespace: string, name: string) => ({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace, name });

/**
 * A write that answered with an error may still have happened (faults are injected before or
 * after the commit, as with a timeout): read the object back until a read succeeds.
 */
const truth = async (r: Real, ref: { apiVersion: string; kind: string; namespace: string; name: string }): Promise<Resource | undefined> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const read = await call(r.clock, r.cluster.get(ref)());
    if (E.isRight(read)) return O.isSome(read.right) ? read.right.value : undefined;
  }
  throw new Error(`cannot read ${ref.kind} ${ref.namespace}/${ref.name} back`);
};


class CreateApp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly spec: AppSpec) {}
  check = (m: Readonly<Model>) => !m.apps.has(`${this.spec.namespace}/${this.spec.name}`);
  async run(m: Model, r: Real) {
    const created = await call(r.clock, r.cluster.create(applicationOf(this.spec))());
    if (E.isRight(created) || (await truth(r, appRef(this.spec.namespace, this.spec.name))) !== undefined) m.apps.set(`${this.spec.namespace}/${this.spec.name}`, this.spec);
  }
  toString = () => `create ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)}`;
}

class UpdateApp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly namespace: string, readonly name: string, readonly children: ReadonlyArray<Child>) {}
  check = (m: Readonly<Model>) => m.apps.has(`${this.namespace}/${this.name}`);
  async run(m: Model, r: Real) {
    const current = await call(r.clock, r.cluster.get(appRef(this.namespace, this.name))());
    if (E.isLeft(current) || O.isNone(current.right) || current.right.value.metadata.deletionTimestamp) return;
    const spec = { namespace: this.namespace, name: this.name, children: this.children };
    const updated = await call(r.clock, r.cluster.update({ ...current.right.value, spec: (applicationOf(spec) as unknown as { spec: Resource }).spec } as Resource)());
    const stored = E.isRight(updated) ? updated.right : await truth(r, appRef(this.namespace, this.name));
    if (stored !== undefined && JSON.stringify(stored.spec) === JSON.stringify((applicationOf(spec) as unknown as { spec: unknown }).spec)) {
      for (const child of m.apps.get(`${this.namespace}/${this.name}`)?.children ?? []) {
        if (!this.children.some((c) => c.kind === child.kind && c.name === child.name)) m.annotations.delete(`${child.kind}/${this.namespace}/${child.name}`);
      }
      m.apps.set(`${this.namespace}/${this.name}`, spec);
    }
  }
  toString = () => `update ${this.namespace}/${this.name} ${JSON.stringify(this.children)}`;
}

class DeleteApp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly namespace: string, readonly name: string) {}
  check = (m: Readonly<Model>) => m.apps.has(`${this.namespace}/${this.name}`);
  async run(m: Model, r: Real) {
    const deleted = await call(r.clock, r.cluster.delete(appRef(this.namespace, this.name))());
    const after = E.isRight(deleted) || deleted.left._tag === 'NotFound' ? undefined : await truth(r, appRef(this.namespace, this.name));
    if (E.isRight(deleted) || deleted.left._tag === 'NotFound' || after === undefined || after.metadata.deletionTimestamp !== undefined) {
      for (const child of m.apps.get(`${this.namespace}/${this.name}`)?.children ?? []) m.annotations.delete(`${child.kind}/${this.namespace}/${child.name}`);
      m.apps.delete(`${this.namespace}/${this.name}`);
    }
  }
  toString = () => `delete ${this.namespace}/${this.name}`;
}

class EditChild implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly observed: boolean) {}
  check = (m: Readonly<Model>) => m.apps.size > 0;
  async run(m: Model, r: Real) {
    const apps = [...m.apps.values()];
    const spec = apps[this.pick % apps.length] as AppSpec;
    const child = spec.children[this.pick % spec.children.length] as Child;
    const current = await call(r.clock, r.cluster.get({ apiVersion: apiVersionOf(child.kind), kind: child.kind, namespace: spec.namespace, name: child.name })());
    if (E.isLeft(current) || O.isNone(current.right)) return;
    const touch = `t${++m.touches}`;
    const field = observedFieldOf(child);
    const edited = this.observed ? setIn(current.right.value, field.path, field.value) : setIn(current.right.value, ['metadata', 'annotations', 'other.example/touched'], touch);
    const updated = await call(r.clock, r.cluster.update(edited as Resource)());
    if (this.observed) return;
    const stored = E.isRight(updated) ? updated.right : await truth(r, { apiVersion: apiVersionOf(child.kind), kind: child.kind, namespace: spec.namespace, name: child.name });
    if ((stored?.metadata.annotations as Record<string, string> | undefined)?.['other.example/touched'] === touch) m.annotations.set(`${child.kind}/${spec.namespace}/${child.name}`, touch);
  }
  toString = () => `edit child #${this.pick} (${this.observed ? 'observed' : 'non-observed'})`;
}

class SetFaults implements fc.AsyncCommand<Model, Real> {
  constructor(readonly profile: 'none' | 'flaky' | 'chaos') {}
  check = () => true;
  async run(_m: Model, r: Real) { r.cluster.setFaults(faultProfiles[this.profile]); }
  toString = () => `faults ${this.profile}`;
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real) { await run(r.clock, this.ms); }
  toString = () => `wait ${this.ms} ms`;
}

class RestartApiServer implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) { r.cluster.restart(); }
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

const specArbitrary: fc.Arbitrary<AppSpec> = fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES))
  .chain(([namespace, name]) => childrenArbitrary(name).map((children) => ({ namespace, name, children })));

const commands = [
  specArbitrary.map((spec) => new CreateApp(spec)),
  specArbitrary.map((spec) => new UpdateApp(spec.namespace, spec.name, spec.children)),
  fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES)).map(([ns, name]) => new DeleteApp(ns, name)),
  fc.tuple(fc.nat(), fc.boolean()).map(([pick, observed]) => new EditChild(pick, observed)),
  fc.constantFrom('none' as const, 'flaky' as const, 'chaos' as const).map((p) => new SetFaults(p)),
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
      fc.asyncProperty(fc.commands(commands, { maxCommands: 20 }), fc.integer({ min: 1, max: 2 ** 30 }), async (cmds, seed) => {
        const clock = new ManualClock();
        const cluster = createMemoryCluster({ clock, seed, workloads: true });
        await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } as Resource)();
        const base = { cluster, clock, seed };
        const real: Real = { ...base, controller: newController(base, 0), restarts: 0, violations: 0 };
        await real.controller.start();
        const model: Model = { apps: new Map(), annotations: new Map(), touches: 0 };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        const left = await settle(model, real);
        real.violations += real.controller.concurrentReconciles;
        await real.controller.stop(0);
        expect(left).toEqual([]);
        expect(real.violations).toBe(0);
      }),
      { numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 150), verbose: 1, ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}) },
    );
  }, 600_000);

  it('a burst of 1 000 child events for one Application causes only a handful of reconciles', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 7, workloads: true });
    const controller = newController({ cluster, clock, seed: 7 }, 0);
    await controller.start();
    await cluster.create(applicationOf({ namespace: 'default', name: 'shop', children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } }] }))();
    await run(clock, 5_000);
    const before = controller.reconcilesByKey.get('default/shop') ?? 0;
    expect(before).toBeGreaterThan(0);
    const child = await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'shop-config' })();
    if (E.isLeft(child) || O.isNone(child.right)) throw new Error('child not created');
    let live = child.right.value;
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1_000; i++) {
      live = setIn(live, ['metadata', 'annotations', 'burst'], String(i)) as Resource;
      const { resourceVersion: _rv, ...metadata } = live.metadata;
      writes.push(cluster.update({ ...live, metadata } as Resource)());
    }
    await Promise.all(writes);
    await run(clock, 10_000);
    const caused = (controller.reconcilesByKey.get('default/shop') ?? 0) - before;
    await controller.stop(0);
    expect(caused).toBeGreaterThanOrEqual(1);
    expect(caused).toBeLessThanOrEqual(5);
  });
});
