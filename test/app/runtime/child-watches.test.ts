/**
 * The child-watch lifecycle alone, on the memory cluster with virtual time: a burst of sweep
 * requests costs one sweep after a quiet second, which stops only watches no Application wants
 * and whose cache holds nothing of ours; stopping leaves no watch and no timer behind.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { ChildWatches, type Kind } from '../../../app/runtime/child-watches.js';
import { silentLogger } from '../../../app/logging/logger.js';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  type ClusterReader,
  type Resource,
  type WatchSource,
} from '../../../core/internal.js';

const CONFIG_MAP: Kind = { apiVersion: 'v1', kind: 'ConfigMap' };
const SERVICE: Kind = { apiVersion: 'v1', kind: 'Service' };
const SECRET: Kind = { apiVersion: 'v1', kind: 'Secret' };

const setUp = async () => {
  const clock = new ManualClock(0);
  const cluster = createMemoryCluster({ clock });
  // One child of ours still exists: its kind's watch must stay (the child is to be found and pruned).
  await cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'left-over', namespace: 'default', labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
  })();
  let wanted: ReadonlyArray<Kind> = [CONFIG_MAP, SERVICE, SECRET];
  let sweeps = 0;
  const watches = new ChildWatches({
    cluster,
    clock,
    relistEveryMs: 0,
    logger: silentLogger,
    onOwnedChange: () => undefined,
    onError: () => undefined,
    onUnserved: () => undefined,
    wantedKinds: () => {
      sweeps++;
      return wanted;
    },
  });
  watches.watch([CONFIG_MAP, SERVICE, SECRET]);
  await flushMicrotasks();
  return {
    clock,
    watches,
    want: (kinds: ReadonlyArray<Kind>) => {
      wanted = kinds;
    },
    sweeps: () => sweeps,
  };
};

describe('ChildWatches', () => {
  it('sweeps once after a quiet second for a burst of requests, stopping only unwanted watches whose cache holds nothing of ours', async () => {
    const { clock, watches, want, sweeps } = await setUp();
    expect(watches.kinds).toEqual(['v1/ConfigMap', 'v1/Service', 'v1/Secret']);
    want([SECRET]);
    for (let i = 0; i < 100; i++) watches.sweepSoon();
    await clock.advance(999);
    expect(watches.kinds).toEqual(['v1/ConfigMap', 'v1/Service', 'v1/Secret']);
    await clock.advance(1);
    expect(watches.kinds).toEqual(['v1/ConfigMap', 'v1/Secret']);
    expect(sweeps()).toBe(1);
    // Wanted again later: watched again on demand.
    watches.watch([SERVICE]);
    expect(watches.kinds).toEqual(['v1/ConfigMap', 'v1/Secret', 'v1/Service']);
  });

  it('stops every watch and the pending sweep for good', async () => {
    const { clock, watches, sweeps } = await setUp();
    watches.sweepSoon();
    watches.stop();
    watches.sweepSoon();
    watches.watch([SERVICE]);
    expect(clock.pending()).toBe(0);
    await clock.advance(5_000);
    expect(watches.kinds).toEqual([]);
    expect(sweeps()).toBe(0);
  });
});

describe('ChildWatches.readable: how long a reconcile waits for the caches it reads', () => {
  /** Child watches over a memory cluster whose ConfigMap lists answer `configMapList` (after `delayMs`). */
  const watchesWith = (configMapList: 'slow' | 'forbidden' | 'never') => {
    const clock = new ManualClock(0);
    const server = createMemoryCluster({ clock });
    const cluster: ClusterReader & WatchSource = {
      ...server,
      list: (query) => () => {
        if (query.kind !== 'ConfigMap') return server.list(query)();
        if (configMapList === 'forbidden')
          return Promise.resolve(E.left({ _tag: 'Forbidden', code: 403, message: 'configmaps is forbidden' } as const));
        return new Promise((resolve) => {
          if (configMapList === 'slow') clock.setTimer(2_000, () => void server.list(query)().then(resolve));
        });
      },
    };
    const watches = new ChildWatches({
      cluster,
      clock,
      relistEveryMs: 0,
      logger: silentLogger,
      onOwnedChange: () => undefined,
      onError: () => undefined,
      onUnserved: () => undefined,
      wantedKinds: () => [CONFIG_MAP, SERVICE],
      readableWithinMs: 5_000,
    });
    watches.watch([CONFIG_MAP, SERVICE]);
    let released = false;
    const wait = watches.readable(() => [CONFIG_MAP]);
    void wait?.then(() => {
      released = true;
    });
    return { clock, watches, wait, released: () => released };
  };

  it('until the first list is in; then nothing to wait for, and the cache answers', async () => {
    const { clock, watches, wait, released } = watchesWith('slow');
    await flushMicrotasks();
    expect(wait).toBeDefined();
    // A kind not waited for: its list answered at once.
    expect(watches.readable(() => [SERVICE])).toBeUndefined();
    await clock.advance(1_999);
    expect(released()).toBe(false);
    expect(watches.liveCache().kind(CONFIG_MAP)).toBeUndefined();
    await clock.advance(1);
    await flushMicrotasks();
    expect(released()).toBe(true);
    expect(watches.readable(() => [CONFIG_MAP, SERVICE])).toBeUndefined();
    expect(watches.liveCache().kind(CONFIG_MAP)).toBeDefined();
    watches.stop();
    expect(clock.pending()).toBe(0);
  });

  it('not past a first list that failed (forbidden): read directly at once', async () => {
    const { clock, watches, wait, released } = watchesWith('forbidden');
    await flushMicrotasks();
    expect(wait).toBeDefined();
    expect(released()).toBe(true);
    expect(watches.readable(() => [CONFIG_MAP])).toBeUndefined();
    expect(watches.liveCache().kind(CONFIG_MAP)).toBeUndefined();
    watches.stop();
    expect(clock.pending()).toBe(0);
  });

  it('not past the bound for a first list that never answers; stopping releases waiters and leaves no timer', async () => {
    const bounded = watchesWith('never');
    await bounded.clock.advance(4_999);
    expect(bounded.released()).toBe(false);
    await bounded.clock.advance(1);
    await flushMicrotasks();
    expect(bounded.released()).toBe(true);
    expect(bounded.watches.liveCache().kind(CONFIG_MAP)).toBeUndefined();
    bounded.watches.stop();

    const stopped = watchesWith('never');
    stopped.watches.stop();
    await flushMicrotasks();
    expect(stopped.released()).toBe(true);
    expect(stopped.clock.pending()).toBe(0);
  });
});
