/**
 * Read-your-own-writes, as the runtime relies on it: a watch echo of the operator's own child write
 * that arrives while the same reconcile is still writing its status (the usual order on a real API
 * server: the answer first, the echo a few milliseconds later, the status write a round trip) is a
 * duplicate the child cache drops, not a change that queues the Application again. It holds only
 * because the answer reaches the cache as the write returns (own-writes.ts): applied from the
 * reconcile's result, after the status write, the echo would be news and cost one more reconcile.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { Controller } from '../../../app/runtime/controller.js';
import type { Cluster, ObjectRef, Patch, WatchQuery, WatchSink, WriteOptions } from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';

/** Watch events arrive 5 ms late, status writes take 20 ms: an echo lands in the middle of a status write. */
const ECHO_MS = 5;
const STATUS_WRITE_MS = 20;

const slowServer = (cluster: MemoryCluster, clock: ManualClock): Cluster => ({
  get: (ref) => cluster.get(ref),
  list: (query) => cluster.list(query),
  scopeOf: (apiVersion, kind) => cluster.scopeOf(apiVersion, kind),
  create: (object, options) => cluster.create(object, options),
  update: (object, options) => cluster.update(object, options),
  patch: (ref, patch, options) => cluster.patch(ref, patch, options),
  delete: (ref, options) => cluster.delete(ref, options),
  updateStatus: (object, options) => cluster.updateStatus(object, options),
  patchStatus: (ref: ObjectRef, patch: Patch, options?: WriteOptions) => async () => {
    await clock.sleep(STATUS_WRITE_MS);
    return cluster.patchStatus(ref, patch, options)();
  },
  watch: (query: WatchQuery, sink: WatchSink) =>
    cluster.watch(query, {
      event: (event) => void clock.setTimer(ECHO_MS, () => sink.event(event)),
      closed: (error) => void clock.setTimer(ECHO_MS, () => sink.closed(error)),
    }),
});

const run = async (clock: ManualClock, ms: number): Promise<void> => {
  for (let t = 0; t < ms; t += 1) await clock.advance(1);
  await flushMicrotasks();
};

const CONFIG_MAP: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'shop-config' };

describe('own write echoes', () => {
  it('a drift corrected by one patch costs one reconcile: the echo of the patch, during the status write, is no news', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5 });
    const controller = new Controller({
      cluster: slowServer(cluster, clock),
      clock,
      random: () => 0.5,
      resyncMs: 0,
      events: false,
      planOptions: { readiness: 'existence' },
      ruleIsolation: false,
    });
    await controller.start();
    await cluster.create(
      applicationOf({
        namespace: 'default',
        name: 'shop',
        children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } }],
      }),
    )();
    await run(clock, 3_000);
    const before = controller.reconcilesByKey.get('default/shop') ?? 0;
    expect(before).toBeGreaterThan(0);

    await cluster.patch(CONFIG_MAP, { type: 'merge', body: { data: { mode: 'drifted' } } })();
    await run(clock, 3_000);
    const live = await cluster.get(CONFIG_MAP)();
    expect(E.isRight(live) && O.isSome(live.right) ? live.right.value.data : undefined).toEqual({ mode: 'a' });
    // The drift's own event: one reconcile, which patches the child back and writes the status.
    expect((controller.reconcilesByKey.get('default/shop') ?? 0) - before).toBe(1);
    await controller.stop(0);
  });
});
