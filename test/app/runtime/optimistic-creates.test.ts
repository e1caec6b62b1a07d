/**
 * Optimistic creates: with a kind's watch cache synced, a desired child missing from it is taken as
 * absent (no GET). A name taken by an object that is not ours makes the create fail with
 * AlreadyExists — nothing is overwritten — and from then on that Application's children are read
 * from the server, so it ends exactly where reading directly from the start ends.
 */
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { APPLICATION_KIND, type Application, type ObjectRef, type Resource } from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';
import { recordingGets } from './recording-gets.js';

const run = async (clock: ManualClock, ms: number, step = 250): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await clock.advance(step);
  }
  await flushMicrotasks();
};

const application = (cluster: MemoryCluster, name: string): Application | undefined =>
  cluster.objects().find((o) => o.kind === APPLICATION_KIND && o.metadata.name === name) as unknown as
    Application | undefined;

const conditions = (cluster: MemoryCluster, name: string) =>
  (application(cluster, name)?.status?.conditions ?? []).map(({ type, status, reason, message }) => ({
    type,
    status,
    reason,
    message,
  }));

const configMap = (cluster: MemoryCluster, name: string): Resource | undefined =>
  cluster.objects().find((o) => o.kind === 'ConfigMap' && o.metadata.name === name);

/** Someone else's ConfigMap, unlabelled, with the name the Application wants. */
const foreign = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'taken', namespace: 'default' },
  data: { mode: 'theirs' },
} as Resource;

const wanting = (name: string, adopt: boolean): Resource => {
  const app = applicationOf({
    namespace: 'default',
    name,
    children: [
      { kind: 'ConfigMap', name: 'taken', data: { mode: 'ours' } },
      { kind: 'Service', name: `${name}-web`, port: 80 },
    ],
  });
  return adopt ? { ...app, spec: { ...(app.spec as object), adopt: true } } : app;
};

/** Runs one controller over `setup`'s world until quiet; returns the world and the child GETs. */
const world = async (watchChildren: boolean, setup: (cluster: MemoryCluster) => Promise<void>) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 21 });
  const gets: ObjectRef[] = [];
  // Warm the ConfigMap and Service caches with an unrelated Application first.
  await cluster.create(
    applicationOf({
      namespace: 'default',
      name: 'warm',
      children: [
        { kind: 'ConfigMap', name: 'warm-config', data: { mode: 'a' } },
        { kind: 'Service', name: 'warm-web', port: 80 },
      ],
    }),
  )();
  const controller = new Controller({
    cluster: recordingGets(cluster, gets),
    clock,
    random: () => 0.5,
    resyncMs: 0,
    events: false,
    planOptions: { readiness: 'existence' },
    watchChildren,
  });
  await controller.start();
  await run(clock, 5_000);
  gets.length = 0;
  await setup(cluster);
  await run(clock, 60_000);
  await controller.stop(0);
  return {
    cluster,
    childGets: gets.filter((ref) => ref.kind !== APPLICATION_KIND),
    reconciles: controller.reconcilesByKey.get('default/app') ?? 0,
  };
};

describe('optimistic creates', () => {
  it('a fresh Application whose kinds are cached: every child created, none read first', async () => {
    const { cluster, childGets } = await world(true, async (c) => {
      await c.create(
        applicationOf({
          namespace: 'default',
          name: 'app',
          children: [
            { kind: 'ConfigMap', name: 'app-config', data: { mode: 'a' } },
            { kind: 'Service', name: 'app-web', port: 80 },
          ],
        }),
      )();
    });
    expect(conditions(cluster, 'app').find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(configMap(cluster, 'app-config')?.data).toEqual({ mode: 'a' });
    expect(childGets).toEqual([]);
  });

  for (const adopt of [false, true]) {
    it(`a name taken by an object that is not ours (adopt ${adopt}): refused, never overwritten, and the end state is the one direct reads give`, async () => {
      const setup = async (cluster: MemoryCluster): Promise<void> => {
        await cluster.create(foreign)();
        await cluster.create(wanting('app', adopt))();
      };
      const optimistic = await world(true, setup);
      const direct = await world(false, setup);
      expect(conditions(optimistic.cluster, 'app')).toEqual(conditions(direct.cluster, 'app'));
      expect(configMap(optimistic.cluster, 'taken')?.data).toEqual(configMap(direct.cluster, 'taken')?.data);
      expect(configMap(optimistic.cluster, 'taken')?.metadata.labels).toEqual(
        configMap(direct.cluster, 'taken')?.metadata.labels,
      );
      expect(configMap(optimistic.cluster, 'taken')?.data).toEqual({ mode: adopt ? 'ours' : 'theirs' });
      // The refused create made the controller read that Application's children from the server.
      expect(optimistic.childGets.some((ref) => ref.name === 'taken')).toBe(true);
    });
  }
});
