/**
 * The status survives a round trip through the API server: what is written reads back identical
 * (the observer schema's `null` leaves included), so a quiet cluster gets no status writes on a
 * controller restart or on resync.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import { APPLICATION_KIND, getIn, type Resource } from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';
import { withReadableStatus } from '../../../app/status/stored-status.js';

const run = async (clock: ManualClock, ms: number, step = 250): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await clock.advance(step);
  }
  await flushMicrotasks();
};

const NAMES = ['shop', 'blog', 'wiki', 'forum', 'mail'];

describe('status written by the controller', () => {
  it('keeps its null leaves and is not written again on a quiet restart or a resync', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 11, workloads: true });
    for (const name of NAMES) {
      await cluster.create(
        applicationOf({
          namespace: 'default',
          name,
          children: [
            { kind: 'ConfigMap', name: `${name}-config`, data: { mode: 'a' } },
            { kind: 'Deployment', name: `${name}-web`, replicas: 2, image: 'nginx:1.27' },
          ],
        }),
      )();
    }
    let statusWrites = 0;
    const start = async (): Promise<Controller> => {
      const controller = new Controller({
        cluster,
        clock,
        random: () => 0.5,
        resyncMs: 60_000,
        events: false,
        onReconciled: (_key, result) => {
          if (result._tag !== 'Gone' && result.statusWritten) statusWrites++;
        },
      });
      await controller.start();
      return controller;
    };
    const first = await start();
    await run(clock, 30_000);
    const applications = cluster.objects().filter((o) => o.kind === APPLICATION_KIND);
    expect(
      applications.map(
        (a) =>
          (getIn(a, ['status', 'conditions']) as Array<{ type: string; status: string }>).find(
            (c) => c.type === 'Ready',
          )?.status,
      ),
    ).toEqual(NAMES.map(() => 'True'));
    // The observer schema's null leaves ("observe this field") survive the write.
    const schemas = getIn(withReadableStatus(applications[0] ?? {}), [
      'status',
      'mangledObserverSchema',
    ]) as ReadonlyArray<Resource>;
    const configMapSchema = schemas.find((schema) => schema.kind === 'ConfigMap') as Resource;
    expect(getIn(configMapSchema, ['data', 'mode'])).toBeNull();
    expect(getIn(configMapSchema, ['metadata', 'labels', 'app'])).toBeNull();
    await first.stop(0);
    statusWrites = 0;
    const second = await start();
    await run(clock, 30_000);
    expect(statusWrites).toBe(0);
    await run(clock, 65_000);
    expect(second.reconcileCount).toBeGreaterThanOrEqual(2 * NAMES.length);
    expect(statusWrites).toBe(0);
    await second.stop(0);
  });
});
