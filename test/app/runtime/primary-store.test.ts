/**
 * The primary store alone, on the memory cluster with virtual time: a relist of unchanged objects
 * keeps their identity (decoded once, no reconcile), status-only writes are no reason to
 * reconcile, spec changes and deletes are, and a child's owner mark leads back to its primary's key.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { PrimaryStore, type PrimaryChange } from '../../../app/runtime/primary-store.js';
import { APPLICATION_PRIMARY, primaryOf, type Primary } from '../../../app/runtime/primary.js';
import { ownerFor, ownerMark, type Resource } from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';

const RESYNC_MS = 60_000;
const SHOP = { namespace: 'default', name: 'shop' };

/** A store of Applications on a memory cluster holding `shop`, started and listed. */
const started = async (primary: Primary = APPLICATION_PRIMARY) => {
  const clock = new ManualClock(0);
  const cluster = createMemoryCluster({ clock });
  await cluster.create(
    applicationOf({ ...SHOP, children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } }] }),
  )();
  const changes: PrimaryChange[] = [];
  const resynced: string[] = [];
  const store = new PrimaryStore(cluster, {
    primary,
    clock,
    resyncMs: RESYNC_MS,
    relistMs: RESYNC_MS,
    onChange: (change) => changes.push(change),
    onResync: (key) => resynced.push(key),
    onError: () => undefined,
  });
  await store.start();
  return { clock, cluster, store, changes, resynced };
};

const current = async (cluster: MemoryCluster): Promise<Resource> => {
  const read = await cluster.get({
    apiVersion: APPLICATION_PRIMARY.apiVersion,
    kind: APPLICATION_PRIMARY.kind,
    ...SHOP,
  })();
  if (E.isLeft(read) || read.right._tag === 'None') throw new Error('shop is gone');
  return read.right.value;
};

const tags = (changes: ReadonlyArray<PrimaryChange>) =>
  changes.map((c) =>
    c._tag === 'Changed' ? `Changed ${c.key}${c.replaced ? ' (replaced)' : ''}` : `Deleted ${c.key}`,
  );

describe('PrimaryStore', () => {
  it('keeps an unchanged object (same resourceVersion) and its decoded Application across relists, announcing only the resync', async () => {
    const { clock, store, changes, resynced } = await started();
    expect(tags(changes)).toEqual(['Changed default/shop']);
    const object = store.object('default/shop');
    const application = store.application('default/shop');
    expect(application?.metadata.name).toBe('shop');
    for (let relist = 1; relist <= 3; relist++) {
      await clock.advance(RESYNC_MS);
      await flushMicrotasks();
    }
    expect(store.object('default/shop')).toBe(object);
    // The same decoded value, not an equal one: nothing was validated or built again.
    expect(store.application('default/shop')).toBe(application);
    expect(tags(changes)).toEqual(['Changed default/shop']);
    expect(resynced).toEqual(['default/shop', 'default/shop', 'default/shop']);
    expect(store.keys()).toEqual(['default/shop']);
  });

  it('a resync announces every key from the cache without listing; the relist lists, at its own period', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    await cluster.create(
      applicationOf({ ...SHOP, children: [{ kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } }] }),
    )();
    let lists = 0;
    const counted: MemoryCluster = {
      ...cluster,
      list: (query) => {
        lists += 1;
        return cluster.list(query);
      },
    };
    const resynced: string[] = [];
    const store = new PrimaryStore(counted, {
      primary: APPLICATION_PRIMARY,
      clock,
      resyncMs: RESYNC_MS,
      relistMs: 3 * RESYNC_MS,
      onChange: () => undefined,
      onResync: (key) => resynced.push(key),
      onError: () => undefined,
    });
    await store.start();
    expect(lists).toBe(1);
    for (let round = 1; round <= 2; round++) {
      await clock.advance(RESYNC_MS);
      await flushMicrotasks();
    }
    expect(resynced).toEqual(['default/shop', 'default/shop']);
    expect(lists).toBe(1);
    await clock.advance(RESYNC_MS);
    await flushMicrotasks();
    expect(lists).toBe(2);
    expect(resynced).toHaveLength(3);
    store.stop();
  });

  it('a status-only write is no reason to reconcile; a spec change is (the object replaced), and so is a delete', async () => {
    const { cluster, store, changes } = await started();
    await cluster.patchStatus(
      { apiVersion: APPLICATION_PRIMARY.apiVersion, kind: APPLICATION_PRIMARY.kind, ...SHOP },
      { type: 'merge', body: { status: { observedGeneration: 1 } } },
    )();
    await flushMicrotasks();
    expect(
      (store.object('default/shop')?.status as { observedGeneration?: number } | undefined)?.observedGeneration,
    ).toBe(1);
    expect(tags(changes)).toEqual(['Changed default/shop']);
    const live = await current(cluster);
    await cluster.update({ ...live, spec: { manifest: [] } })();
    await flushMicrotasks();
    expect(tags(changes)).toEqual(['Changed default/shop', 'Changed default/shop (replaced)']);
    expect(store.application('default/shop')?.spec.manifest).toEqual([]);
    await cluster.delete({ apiVersion: APPLICATION_PRIMARY.apiVersion, kind: APPLICATION_PRIMARY.kind, ...SHOP })();
    await flushMicrotasks();
    expect(tags(changes)).toEqual(['Changed default/shop', 'Changed default/shop (replaced)', 'Deleted default/shop']);
    expect(store.object('default/shop')).toBeUndefined();
    expect(store.keys()).toEqual([]);
  });

  it('announces an object that does not decode without an Application (its reconcile stalls it), and lists only decodable ones', async () => {
    const { cluster, store, changes } = await started();
    await cluster.create({
      ...applicationOf({ namespace: 'default', name: 'broken', children: [] }),
      spec: { manifest: 'not a list' },
    })();
    await flushMicrotasks();
    const broken = changes.find((c) => c._tag === 'Changed' && c.key === 'default/broken');
    expect(broken?._tag === 'Changed' && broken.application).toBeUndefined();
    expect(store.object('default/broken')).toBeDefined();
    expect(store.application('default/broken')).toBeUndefined();
    expect([...store.applications()].map((a) => a.metadata.name)).toEqual(['shop']);
  });

  it('stops for good: no events and no resync after stop, no timer left', async () => {
    const { clock, cluster, store, changes, resynced } = await started();
    store.stop();
    await cluster.create(applicationOf({ namespace: 'default', name: 'late', children: [] }))();
    await clock.advance(3 * RESYNC_MS);
    await flushMicrotasks();
    expect(tags(changes)).toEqual(['Changed default/shop']);
    expect(resynced).toEqual([]);
    expect(store.object('default/late')).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });

  it("leads a child's owner mark back to its primary's key, only for marks naming its own kind", () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const greetings = primaryOf({
      apiVersion: 'example.kreconcile.io/v1',
      kind: 'Greeting',
      desired: () => ({ manifest: [] }),
    });
    const storeOf = (primary: Primary) =>
      new PrimaryStore(cluster, {
        primary,
        clock,
        resyncMs: 0,
        relistMs: 0,
        onChange: () => undefined,
        onResync: () => undefined,
        onError: () => undefined,
      });
    const greeting = {
      apiVersion: 'example.kreconcile.io/v1',
      kind: 'Greeting',
      metadata: { namespace: 'team', name: 'hello' },
    };
    const application = {
      apiVersion: APPLICATION_PRIMARY.apiVersion,
      kind: APPLICATION_PRIMARY.kind,
      metadata: { namespace: 'team', name: 'shop' },
    };
    const greetingMark = ownerMark(ownerFor(greeting));
    const applicationMark = ownerMark(ownerFor(application));
    expect(storeOf(greetings).keyOfOwnerMark(greetingMark)).toBe('team/hello');
    expect(storeOf(greetings).keyOfOwnerMark(applicationMark)).toBeUndefined();
    expect(storeOf(APPLICATION_PRIMARY).keyOfOwnerMark(applicationMark)).toBe('team/shop');
    expect(storeOf(APPLICATION_PRIMARY).keyOfOwnerMark(greetingMark)).toBeUndefined();
  });
});
