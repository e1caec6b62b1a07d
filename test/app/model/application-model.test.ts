/**
 * Model-based test (fc.commands) of core + executor + the in-memory cluster: Applications are
 * created, changed and deleted, another actor edits children, faults come and go, the clock
 * moves; once faults stop, running until quiet converges to what a simple model predicts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../../adapters/memory/index.js';
import type { Resource } from './helpers.js';
import {
  CreateApp,
  DeleteApp,
  EditChild,
  SetFaults,
  UpdateApp,
  specArbitrary,
  type Model,
  type World,
} from './commands.js';
import { reconcileAllApplications } from '../../../app/testing/reconcile-all.js';
import { drive } from '../../../app/testing/drive.js';
import { APP_NAMES, NAMESPACES, ignore, problems } from './world.js';

type Real = World;

class Reconcile implements fc.AsyncCommand<Model, Real> {
  constructor(readonly passes: number) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    for (let i = 0; i < this.passes; i++) {
      await ignore(drive(r.clock, reconcileAllApplications(r.cluster, r.clock)));
      await r.clock.advance(500);
    }
  }
  toString = () => `reconcile ×${this.passes}`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    await r.clock.advance(this.ms);
  }
  toString = () => `advance ${this.ms} ms`;
}

class Restart implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    r.cluster.restart();
  }
  toString = () => 'restart API server';
}

const commands = [
  specArbitrary.map((spec) => new CreateApp<Real>(spec)),
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
  it("converges after faults stop: observed fields restored, others' edits kept, nothing orphaned or duplicated", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 25 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        async (cmds, seed) => {
          const clock = new ManualClock();
          const cluster = createMemoryCluster({ clock, seed, workloads: true });
          await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })();
          const model: Model = { apps: new Map(), annotations: new Map(), touches: 0 };
          const real: Real = { cluster, clock };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          expect(await settle(model, real)).toEqual([]);
        },
      ),
      {
        numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 200),
        verbose: 1,
        ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}),
      },
    );
  }, 600_000);
});
