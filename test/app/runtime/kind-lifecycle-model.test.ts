/**
 * Model-based test (fc.commands) of a kind's lifecycle under a running operator (issue 25, A and B):
 * the Widget CRD is installed, deleted (at times held Terminating by a finalizer on a Widget no
 * Application owns), and reinstalled, while Applications naming Widgets come and change. Checked
 * on the way, on the model's clock:
 * - never `Stalled Forbidden`: while the CRD terminates, creates are refused with a 403 that says
 *   so, and the Applications say `Reconciling CustomResourceDefinitionTerminating` and retry;
 * - once the CRD is gone, every widget Application is `Stalled UnknownKind` within 3 s;
 * - once it is installed again, every widget Application is Ready with its Widget within 5 s.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { drive } from '../../../app/testing/drive.js';
import { APPLICATION_KIND, getIn, type Resource } from '../../../core/internal.js';
import { widgetCrd, widgetGroup } from '../../support/test-crds.js';

type Crd = 'served' | 'terminating' | 'absent';
type Model = { crd: Crd; readonly apps: Map<string, number> };
const servedModel = (): Model => ({ crd: 'served', apps: new Map() });
type Real = { readonly cluster: MemoryCluster; readonly clock: ManualClock; readonly forbidden: string[] };

const APPS = ['alpha', 'beta', 'gamma'];
const HELD = { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', namespace: 'default', name: 'held' };
const CRD_REF = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  name: widgetCrd.metadata.name,
};
const STEP_MS = 250;

const widgetApplication = (name: string, size: number): Resource => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: APPLICATION_KIND,
  metadata: { name, namespace: 'default' },
  spec: {
    manifest: [
      { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', metadata: { name: `${name}-widget` }, spec: { size } },
    ],
  },
});

type Condition = { type: string; status: string; reason?: string; message?: string };
const conditionsOf = (cluster: MemoryCluster, name: string): ReadonlyArray<Condition> => {
  const application = cluster.objects().find((o) => o.kind === APPLICATION_KIND && o.metadata.name === name);
  return (getIn(application ?? {}, ['status', 'conditions']) as ReadonlyArray<Condition> | undefined) ?? [];
};
const condition = (cluster: MemoryCluster, name: string, type: string): Condition | undefined =>
  conditionsOf(cluster, name).find((c) => c.type === type);

/** Every `Stalled Forbidden` on a widget Application now, as `name: message`. */
const forbiddenNow = (cluster: MemoryCluster): ReadonlyArray<string> =>
  APPS.flatMap((name) => {
    const stalled = condition(cluster, name, 'Stalled');
    return stalled?.status === 'True' && stalled.reason === 'Forbidden' ? [`${name}: ${stalled.message}`] : [];
  });

/** Advances the model's clock in steps, recording any Stalled Forbidden seen at any step. */
const run = async (real: Real, ms: number): Promise<void> => {
  for (let t = 0; t < ms; t += STEP_MS) {
    await flushMicrotasks();
    await real.clock.advance(STEP_MS);
    real.forbidden.push(...forbiddenNow(real.cluster));
  }
  await flushMicrotasks();
};

/** Runs until `problems` is empty, for at most `withinMs`; the problems left then. */
const within = async (
  real: Real,
  withinMs: number,
  problems: () => ReadonlyArray<string>,
): Promise<ReadonlyArray<string>> => {
  for (let t = 0; t < withinMs; t += STEP_MS) {
    if (problems().length === 0) return [];
    await run(real, STEP_MS);
  }
  return problems();
};

const notReady = (model: Model, cluster: MemoryCluster): ReadonlyArray<string> =>
  [...model.apps].flatMap(([name, size]) => {
    const widget = cluster.objects().find((o) => o.kind === 'Widget' && o.metadata.name === `${name}-widget`);
    if (getIn(widget ?? {}, ['spec', 'size']) !== size)
      return [`${name}: Widget size ${JSON.stringify(getIn(widget ?? {}, ['spec', 'size']))}, want ${size}`];
    const ready = condition(cluster, name, 'Ready');
    return ready?.status === 'True' ? [] : [`${name}: not Ready: ${JSON.stringify(ready)}`];
  });

const notUnknownKind = (model: Model, cluster: MemoryCluster): ReadonlyArray<string> =>
  [...model.apps.keys()].flatMap((name) => {
    const stalled = condition(cluster, name, 'Stalled');
    return stalled?.status === 'True' && stalled.reason === 'UnknownKind'
      ? []
      : [`${name}: ${JSON.stringify(stalled)}`];
  });

/** While the CRD terminates, an Application whose Widget is gone says it is refused for now, and retries. */
const notRetryingTerminating = (model: Model, cluster: MemoryCluster): ReadonlyArray<string> =>
  [...model.apps.keys()].flatMap((name) => {
    const reconciling = condition(cluster, name, 'Reconciling');
    return reconciling?.status === 'True' && reconciling.reason === 'CustomResourceDefinitionTerminating'
      ? []
      : [`${name}: ${JSON.stringify(reconciling)}`];
  });

class PutApp implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly name: string,
    readonly size: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const ref = { apiVersion: 'kreconcile.io/v1alpha1', kind: APPLICATION_KIND, namespace: 'default', name: this.name };
    const current = await drive(real.clock, real.cluster.get(ref)());
    const existing = current._tag === 'Right' && current.right._tag === 'Some' ? current.right.value : undefined;
    const wanted = widgetApplication(this.name, this.size);
    const written =
      existing === undefined
        ? await drive(real.clock, real.cluster.create(wanted)())
        : await drive(real.clock, real.cluster.update({ ...existing, spec: wanted.spec } as Resource)());
    expect(written._tag).toBe('Right');
    model.apps.set(this.name, this.size);
    if (model.crd === 'served') expect(await within(real, 5_000, () => notReady(model, real.cluster))).toEqual([]);
  }
  toString = () => `put ${this.name} size ${this.size}`;
}

class InstallCrd implements fc.AsyncCommand<Model, Real> {
  check = (model: Readonly<Model>) => model.crd === 'absent';
  async run(model: Model, real: Real) {
    expect((await drive(real.clock, real.cluster.create(widgetCrd)()))._tag).toBe('Right');
    model.crd = 'served';
    expect(await within(real, 5_000, () => notReady(model, real.cluster))).toEqual([]);
  }
  toString = () => 'install the CRD';
}

class DeleteCrd implements fc.AsyncCommand<Model, Real> {
  /** `hold`: a Widget no Application owns keeps a finalizer, so the CRD stays Terminating until released. */
  constructor(readonly hold: boolean) {}
  check = (model: Readonly<Model>) => model.crd === 'served';
  async run(model: Model, real: Real) {
    if (this.hold) {
      const held = {
        apiVersion: HELD.apiVersion,
        kind: HELD.kind,
        metadata: { name: HELD.name, namespace: HELD.namespace, finalizers: ['test.kreconcile.io/hold'] },
        spec: { size: 0 },
      } as unknown as Resource;
      expect((await drive(real.clock, real.cluster.create(held)()))._tag).toBe('Right');
    }
    expect((await drive(real.clock, real.cluster.delete(CRD_REF)()))._tag).toBe('Right');
    await real.cluster.settle();
    model.crd = this.hold ? 'terminating' : 'absent';
    if (this.hold) expect(await within(real, 5_000, () => notRetryingTerminating(model, real.cluster))).toEqual([]);
    else expect(await within(real, 3_000, () => notUnknownKind(model, real.cluster))).toEqual([]);
  }
  toString = () => `delete the CRD${this.hold ? ' (held Terminating)' : ''}`;
}

class ReleaseHold implements fc.AsyncCommand<Model, Real> {
  check = (model: Readonly<Model>) => model.crd === 'terminating';
  async run(model: Model, real: Real) {
    const released = await drive(
      real.clock,
      real.cluster.patch(HELD, { type: 'json', operations: [{ op: 'remove', path: '/metadata/finalizers' }] })(),
    );
    expect(released._tag).toBe('Right');
    await real.cluster.settle();
    model.crd = 'absent';
    expect(await within(real, 3_000, () => notUnknownKind(model, real.cluster))).toEqual([]);
  }
  toString = () => 'release the held Widget';
}

class Wait implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    await run(real, this.ms);
  }
  toString = () => `wait ${this.ms} ms`;
}

const commands = [
  fc.tuple(fc.constantFrom(...APPS), fc.integer({ min: 1, max: 5 })).map(([name, size]) => new PutApp(name, size)),
  fc.constant(new InstallCrd()),
  fc.boolean().map((hold) => new DeleteCrd(hold)),
  fc.constant(new ReleaseHold()),
  fc.integer({ min: 100, max: 90_000 }).map((ms) => new Wait(ms)),
];

describe('a kind deleted and reinstalled under a running operator (model-based)', () => {
  it('never Stalled Forbidden; UnknownKind within 3 s of the CRD going; Ready within 5 s of its reinstall', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 14 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        async (cmds, seed) => {
          const clock = new ManualClock();
          const cluster = createMemoryCluster({ clock, seed });
          expect((await cluster.create(widgetCrd)())._tag).toBe('Right');
          const controller = new Controller({
            cluster,
            clock,
            random: () => 0.5,
            workers: 2,
            events: false,
            planOptions: { readiness: 'existence' },
          });
          await controller.start();
          const real: Real = { cluster, clock, forbidden: [] };
          try {
            await fc.asyncModelRun(() => ({ model: servedModel(), real }), cmds);
          } finally {
            await controller.stop(0);
          }
          expect(real.forbidden).toEqual([]);
        },
      ),
      {
        numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 30),
        ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}),
      },
    );
  }, 600_000);
});
