/**
 * Model-based test (fc.commands) of core + executor + the in-memory cluster: Applications are
 * created, changed and deleted, another actor edits children, faults come and go, the clock
 * moves; once faults stop, running until quiet converges to what a simple model predicts.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, faultProfiles, type MemoryCluster } from '../../../adapters/memory/index.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, setIn, type Resource } from './helpers.js';
import { reconcileAllApplications } from '../../../app/testing/reconcile-all.js';
import { drive } from '../../../app/testing/drive.js';
import { APP_NAMES, NAMESPACES, apiVersionOf, applicationOf, childrenArbitrary, ignore, observedFieldOf, problems, type AppSpec, type Child } from './world.js';

type Model = { apps: Map<string, AppSpec>; annotations: Map<string, string>; touches: number };
type Real = { cluster: MemoryCluster; clock: ManualClock };

const appRef = (namespace: string, name: string) => ({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace, name });

/**
 * A write that answered with an error may still have happened (faults are injected before or
 * after the commit, as with a timeout): read the object back until a read succeeds.
 */
const truth = async (r: Real, ref: { apiVersion: string; kind: string; namespace: string; name: string }): Promise<Resource | undefined> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const read = await drive(r.clock, r.cluster.get(ref)());
    if (E.isRight(read)) return O.isSome(read.right) ? read.right.value : undefined;
  }
  throw new Error(`cannot read ${ref.kind} ${ref.namespace}/${ref.name} back`);
};


class CreateApp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly spec: AppSpec) {}
  check = (m: Readonly<Model>) => !m.apps.has(`${this.spec.namespace}/${this.spec.name}`);
  async run(m: Model, r: Real) {
    const created = await drive(r.clock, r.cluster.create(applicationOf(this.spec))());
    if (E.isRight(created) || (await truth(r, appRef(this.spec.namespace, this.spec.name))) !== undefined) m.apps.set(`${this.spec.namespace}/${this.spec.name}`, this.spec);
  }
  toString = () => `create ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)}`;
}

class UpdateApp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly namespace: string, readonly name: string, readonly children: ReadonlyArray<Child>) {}
  check = (m: Readonly<Model>) => m.apps.has(`${this.namespace}/${this.name}`);
  async run(m: Model, r: Real) {
    const current = await drive(r.clock, r.cluster.get(appRef(this.namespace, this.name))());
    if (E.isLeft(current) || O.isNone(current.right) || current.right.value.metadata.deletionTimestamp) return;
    const spec = { namespace: this.namespace, name: this.name, children: this.children };
    const updated = await drive(r.clock, r.cluster.update({ ...current.right.value, spec: (applicationOf(spec) as unknown as { spec: Resource }).spec } as Resource)());
    const stored = E.isRight(updated) ? updated.right : await truth(r, appRef(this.namespace, this.name));
    if (stored !== undefined && JSON.stringify(stored.spec) === JSON.stringify((applicationOf(spec) as unknown as { spec: unknown }).spec)) {
      const before = m.apps.get(`${this.namespace}/${this.name}`);
      for (const child of before?.children ?? []) if (!this.children.some((c) => c.kind === child.kind && c.name === child.name)) m.annotations.delete(`${child.kind}/${this.namespace}/${child.name}`);
      m.apps.set(`${this.namespace}/${this.name}`, spec);
    }
  }
  toString = () => `update ${this.namespace}/${this.name} ${JSON.stringify(this.children)}`;
}

class DeleteApp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly namespace: string, readonly name: string) {}
  check = (m: Readonly<Model>) => m.apps.has(`${this.namespace}/${this.name}`);
  async run(m: Model, r: Real) {
    const deleted = await drive(r.clock, r.cluster.delete(appRef(this.namespace, this.name))());
    const after = E.isRight(deleted) || deleted.left._tag === 'NotFound' ? undefined : await truth(r, appRef(this.namespace, this.name));
    if (E.isRight(deleted) || deleted.left._tag === 'NotFound' || after === undefined || after.metadata.deletionTimestamp !== undefined) {
      for (const child of m.apps.get(`${this.namespace}/${this.name}`)?.children ?? []) m.annotations.delete(`${child.kind}/${this.namespace}/${child.name}`);
      m.apps.delete(`${this.namespace}/${this.name}`);
    }
  }
  toString = () => `delete ${this.namespace}/${this.name}`;
}

/** Another actor edits a child: an observed field (to be reverted) or a new annotation (to stand). */
class EditChild implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly observed: boolean) {}
  check = (m: Readonly<Model>) => m.apps.size > 0;
  async run(m: Model, r: Real) {
    const apps = [...m.apps.values()];
    const spec = apps[this.pick % apps.length] as AppSpec;
    const child = spec.children[this.pick % spec.children.length] as Child;
    const current = await drive(r.clock, r.cluster.get({ apiVersion: apiVersionOf(child.kind), kind: child.kind, namespace: spec.namespace, name: child.name })());
    if (E.isLeft(current) || O.isNone(current.right)) return;
    const live = current.right.value;
    const touch = `t${++m.touches}`;
    const edited = this.observed
      ? setIn(live, observedFieldOf(child).path, observedFieldOf(child).value)
      : setIn(live, ['metadata', 'annotations', 'other.example/touched'], touch);
    const updated = await drive(r.clock, r.cluster.update(edited as Resource)());
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

class Reconcile implements fc.AsyncCommand<Model, Real> {
  constructor(readonly passes: number) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    for (let i = 0; i < this.passes; i++) { await ignore(drive(r.clock, reconcileAllApplications(r.cluster, r.clock))); await r.clock.advance(500); }
  }
  toString = () => `reconcile ×${this.passes}`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real) { await r.clock.advance(this.ms); }
  toString = () => `advance ${this.ms} ms`;
}

class Restart implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) { r.cluster.restart(); }
  toString = () => 'restart API server';
}

const specArbitrary: fc.Arbitrary<AppSpec> = fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES))
  .chain(([namespace, name]) => childrenArbitrary(name).map((children) => ({ namespace, name, children })));

const commands = [
  specArbitrary.map((spec) => new CreateApp(spec)),
  specArbitrary.map((spec) => new UpdateApp(spec.namespace, spec.name, spec.children)),
  fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES)).map(([ns, name]) => new DeleteApp(ns, name)),
  fc.tuple(fc.nat(), fc.boolean()).map(([pick, observed]) => new EditChild(pick, observed)),
  fc.constantFrom('none' as const, 'flaky' as const, 'chaos' as const).map((p) => new SetFaults(p)),
  fc.integer({ min: 1, max: 3 }).map((n) => new Reconcile(n)),
  fc.integer({ min: 100, max: 120_000 }).map((ms) => new Advance(ms)),
  fc.constant(new Restart()),
];

const settle = async (model: Model, real: Real): Promise<ReadonlyArray<string>> => {
  real.cluster.setFaults({});
  let last: ReadonlyArray<string> = [];
  for (let pass = 0; pass < 30; pass++) {
    await drive(real.clock, reconcileAllApplications(real.cluster, real.clock));
    await real.clock.advance(2_000);
    await real.cluster.settle();
    last = problems(real.cluster, model.apps, model.annotations);
    if (last.length === 0) return last;
  }
  return last;
};

describe('Applications on the in-memory cluster (model-based)', () => {
  it('converges after faults stop: observed fields restored, others\' edits kept, nothing orphaned or duplicated', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), fc.integer({ min: 1, max: 2 ** 30 }), async (cmds, seed) => {
        const clock = new ManualClock();
        const cluster = createMemoryCluster({ clock, seed, workloads: true });
        await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } as Resource)();
        const model: Model = { apps: new Map(), annotations: new Map(), touches: 0 };
        const real: Real = { cluster, clock };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        expect(await settle(model, real)).toEqual([]);
      }),
      { numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 200), verbose: 1, ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}) },
    );
  }, 600_000);
});
