/**
 * Model-based test of the runtime when a kind an Application names is not served: a CRD that is
 * installed late and removed again. An unknown kind is an answer (`Stalled UnknownKind` for that
 * Application), never a wait: Applications that do not name the kind converge whatever the CRD does,
 * and those that do converge once it is installed, without a controller restart.
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
import { CreateApp, DeleteApp, UpdateApp, specArbitrary, type Model } from '../model/commands.js';
import { applicationOf, problems } from '../model/world.js';

type Real = {
  cluster: MemoryCluster;
  clock: ManualClock;
  controller: Controller;
  crd: boolean;
  widgetApps: Map<string, number>;
};
type WidgetModel = Model & { widgetApps: Map<string, number>; crd: boolean };

const WIDGET_APPS = ['gadgets', 'gizmos'];

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

const run = async (clock: ManualClock, ms: number, step = 250): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await clock.advance(step);
  }
  await flushMicrotasks();
};

const readyOf = (application: Resource): { status?: string; reason?: string } | undefined =>
  (
    getIn(application, ['status', 'conditions']) as
      ReadonlyArray<{ type: string; status: string; reason?: string }> | undefined
  )?.find((c) => c.type === 'Ready');

class InstallCrd implements fc.AsyncCommand<WidgetModel, Real> {
  check = (m: Readonly<WidgetModel>) => !m.crd;
  async run(m: WidgetModel, r: Real) {
    await drive(r.clock, r.cluster.create(widgetCrd)());
    m.crd = true;
  }
  toString = () => 'install Widget CRD';
}

class RemoveCrd implements fc.AsyncCommand<WidgetModel, Real> {
  check = (m: Readonly<WidgetModel>) => m.crd;
  async run(m: WidgetModel, r: Real) {
    await drive(
      r.clock,
      r.cluster.delete({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: widgetCrd.metadata.name,
      })(),
    );
    await r.cluster.settle();
    m.crd = false;
  }
  toString = () => 'remove Widget CRD';
}

class PutWidgetApp implements fc.AsyncCommand<WidgetModel, Real> {
  constructor(
    readonly name: string,
    readonly size: number,
  ) {}
  check = () => true;
  async run(m: WidgetModel, r: Real) {
    const ref = { apiVersion: 'kreconcile.io/v1alpha1', kind: APPLICATION_KIND, namespace: 'default', name: this.name };
    const current = await drive(r.clock, r.cluster.get(ref)());
    const existing = current._tag === 'Right' && current.right._tag === 'Some' ? current.right.value : undefined;
    const wanted = widgetApplication(this.name, this.size);
    const written =
      existing === undefined
        ? await drive(r.clock, r.cluster.create(wanted)())
        : await drive(r.clock, r.cluster.update({ ...existing, spec: wanted.spec } as Resource)());
    if (written._tag === 'Right') m.widgetApps.set(this.name, this.size);
  }
  toString = () => `put widget app ${this.name} size ${this.size}`;
}

class Wait implements fc.AsyncCommand<WidgetModel, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: WidgetModel, r: Real) {
    await run(r.clock, this.ms);
  }
  toString = () => `wait ${this.ms} ms`;
}

const commands = [
  specArbitrary.map((spec) => new CreateApp<Real>(spec)),
  specArbitrary.map((spec) => new UpdateApp<Real>(spec.namespace, spec.name, spec.children)),
  specArbitrary.map((spec) => new DeleteApp<Real>(spec.namespace, spec.name)),
  fc
    .tuple(fc.constantFrom(...WIDGET_APPS), fc.integer({ min: 1, max: 5 }))
    .map(([name, size]) => new PutWidgetApp(name, size)),
  fc.constant(new InstallCrd()),
  fc.constant(new RemoveCrd()),
  fc.integer({ min: 100, max: 20_000 }).map((ms) => new Wait(ms)),
];

/**
 * What is wrong with the widget Applications: Ready with their Widget when the CRD is served, else Stalled UnknownKind.
 */
const widgetProblems = (model: WidgetModel, cluster: MemoryCluster): ReadonlyArray<string> => {
  const objects = cluster.objects();
  return [...model.widgetApps].flatMap(([name, size]) => {
    const application = objects.find((o) => o.kind === APPLICATION_KIND && o.metadata.name === name);
    if (application === undefined) return [`widget app ${name} is missing`];
    const ready = readyOf(application);
    if (!model.crd)
      return ready?.status === 'False' && ready.reason === 'UnknownKind'
        ? []
        : [`${name}: want Stalled UnknownKind, got ${JSON.stringify(ready)}`];
    const widget = objects.find((o) => o.kind === 'Widget' && o.metadata.name === `${name}-widget`);
    if (getIn(widget ?? {}, ['spec', 'size']) !== size)
      return [`${name}: Widget size is ${JSON.stringify(getIn(widget ?? {}, ['spec', 'size']))}, want ${size}`];
    return ready?.status === 'True' ? [] : [`${name}: not Ready: ${JSON.stringify(ready)}`];
  });
};

/** The ordinary Applications' problems, widget Applications and Widgets left out (they have their own check). */
const ordinaryProblems = (model: WidgetModel, cluster: MemoryCluster): ReadonlyArray<string> => {
  const isWidgetWorld = (o: Resource): boolean =>
    o.kind === 'Widget' || (o.kind === APPLICATION_KIND && WIDGET_APPS.includes(o.metadata.name));
  return problems({ objects: () => cluster.objects().filter((o) => !isWidgetWorld(o)) }, model.apps, model.annotations);
};

describe('the runtime with a CRD that appears late and disappears (model-based)', () => {
  it("no Application waits on another one's kind; widget Applications converge once the CRD is served", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 15 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        async (cmds, seed) => {
          const clock = new ManualClock();
          const cluster = createMemoryCluster({ clock, seed, workloads: true });
          await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })();
          const controller = new Controller({
            cluster,
            clock,
            random: () => 0.5,
            workers: 2,
            resyncMs: 30_000,
            events: false,
          });
          await controller.start();
          const model: WidgetModel = {
            apps: new Map(),
            annotations: new Map(),
            touches: 0,
            widgetApps: new Map(),
            crd: false,
          };
          const real: Real = { cluster, clock, controller, crd: false, widgetApps: new Map() };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // First with the CRD as the commands left it (no Application may wait on the Widget kind) …
          let left: ReadonlyArray<string> = [];
          for (let second = 0; second < 200; second += 5) {
            await run(clock, 5_000);
            left = [...ordinaryProblems(model, cluster), ...widgetProblems(model, cluster)];
            if (left.length === 0) break;
          }
          expect(left).toEqual([]);
          // … then with the CRD installed: the widget Applications converge without a restart.
          if (!model.crd) await new InstallCrd().run(model, real);
          for (let second = 0; second < 200; second += 5) {
            await run(clock, 5_000);
            left = [...ordinaryProblems(model, cluster), ...widgetProblems(model, cluster)];
            if (left.length === 0) break;
          }
          await controller.stop(0);
          expect(left).toEqual([]);
        },
      ),
      {
        numRuns: Number(process.env.KRECONCILE_MODEL_RUNS ?? 40),
        verbose: 1,
        ...(process.env.KRECONCILE_SEED ? { seed: Number(process.env.KRECONCILE_SEED) } : {}),
        ...(process.env.KRECONCILE_PATH ? { path: process.env.KRECONCILE_PATH } : {}),
      },
    );
  }, 600_000);
});

describe('cache sync at start', () => {
  it('is waited for once, with a timeout: start rejects with CacheSyncTimeout and leaves nothing running', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 3 });
    cluster.unavailableFor(600_000);
    const controller = new Controller({ cluster, clock, random: () => 0.5, events: false, cacheSyncTimeoutMs: 30_000 });
    const started = controller.start();
    const outcome = started.then(
      () => 'started',
      (error: Error) => error.name,
    );
    await run(clock, 31_000);
    expect(await outcome).toBe('CacheSyncTimeout');
    expect(clock.pending()).toBe(0);
  });
});

describe('a malformed Application', () => {
  it('is Stalled InvalidSpec naming the path, never crashes the runtime, and converges once fixed', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 4, workloads: true });
    const controller = new Controller({ cluster, clock, random: () => 0.5, events: false });
    await controller.start();
    const manifest = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-config' }, data: { a: 'b' } }];
    const bad = {
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: APPLICATION_KIND,
      metadata: { name: 'bad', namespace: 'default' },
      spec: { manifest, hooks: 'complete' },
    } as unknown as Resource;
    await cluster.create(bad)();
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'good',
        children: [{ kind: 'ConfigMap', name: 'good-config', data: { a: 'b' } }],
      }),
    )();
    await run(clock, 10_000);
    const byName = (name: string) =>
      cluster.objects().find((o) => o.kind === APPLICATION_KIND && o.metadata.name === name) as Resource;
    const stalled = (
      getIn(byName('bad'), ['status', 'conditions']) as ReadonlyArray<{
        type: string;
        status: string;
        reason: string;
        message: string;
      }>
    ).find((c) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(stalled?.message).toContain('spec.hooks');
    expect(readyOf(byName('good'))?.status).toBe('True');
    expect(cluster.objects().some((o) => o.metadata.name === 'bad-config')).toBe(false);
    // Fixed: it converges without a restart.
    await cluster.update({ ...byName('bad'), spec: { manifest } })();
    await run(clock, 10_000);
    expect(readyOf(byName('bad'))?.status).toBe('True');
    expect(cluster.objects().some((o) => o.metadata.name === 'bad-config')).toBe(true);
    await controller.stop(0);
  });

  it('deleted after its spec broke, it still deletes its children and releases its finalizer (never stuck Terminating)', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5, workloads: true });
    const controller = new Controller({ cluster, clock, random: () => 0.5, events: false });
    await controller.start();
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'shop',
        children: [{ kind: 'ConfigMap', name: 'shop-config', data: { a: 'b' } }],
      }),
    )();
    await run(clock, 10_000);
    const shop = () => cluster.objects().find((o) => o.kind === APPLICATION_KIND && o.metadata.name === 'shop');
    const child = () => cluster.objects().find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'shop-config');
    expect(readyOf(shop() as Resource)?.status).toBe('True');
    expect(child()).toBeDefined();
    await cluster.update({ ...(shop() as Resource), spec: { manifest: 'not a list' } })();
    await run(clock, 10_000);
    const stalled = (
      getIn(shop() as Resource, ['status', 'conditions']) as ReadonlyArray<{ type: string; reason: string }>
    ).find((c) => c.type === 'Stalled');
    expect(stalled?.reason).toBe('InvalidSpec');
    expect(child()).toBeDefined();
    await cluster.delete({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: APPLICATION_KIND,
      namespace: 'default',
      name: 'shop',
    })();
    await run(clock, 10_000);
    expect(child()).toBeUndefined();
    expect(shop()).toBeUndefined();
    await controller.stop(0);
  });
});
