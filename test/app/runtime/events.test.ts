/**
 * Kubernetes Events for what a reconcile did: one Event per kind of write (created, patched,
 * deleted) naming every object, within the Event API's 1 024-character message, and a Warning for
 * a failure — checked on the Events the in-memory API server stores.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import {
  reconcileApplication,
  type ReconcileDeps,
  type ReconcileResult,
} from '../../../app/reconcile/reconcile-application.js';
import { EventCorrelator, recordEvents } from '../../../app/runtime/events.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  getIn,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf, type Child } from '../model/world.js';

const ref = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'default', name: 'shop' };

const world = (): { readonly cluster: MemoryCluster; readonly deps: ReconcileDeps } => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 5 });
  return {
    cluster,
    deps: {
      cluster,
      scopes: builtinScopes,
      now: () => new Date(clock.now()).toISOString(),
      random: () => 0.5,
      planOptions: { readiness: 'existence' },
    },
  };
};

const configMaps = (count: number, mode: string): ReadonlyArray<Child> =>
  Array.from({ length: count }, (_, i) => ({
    kind: 'ConfigMap',
    name: `shop-config-${String(i).padStart(3, '0')}`,
    data: { mode },
  }));

const reconciled = async (
  cluster: MemoryCluster,
  deps: ReconcileDeps,
  children: ReadonlyArray<Child>,
): Promise<Exclude<ReconcileResult, { _tag: 'Gone' }>> => {
  const current = cluster.objects().find((object) => object.kind === APPLICATION_KIND);
  const desired = applicationOf({ namespace: 'default', name: 'shop', children });
  const written =
    current === undefined
      ? await cluster.create(desired)()
      : await cluster.update({ ...current, spec: desired.spec } as Resource)();
  if (E.isLeft(written)) throw new Error(written.left.message);
  const result = await reconcileApplication(ref, deps);
  if (result._tag === 'Gone') throw new Error('the Application is gone');
  return result;
};

const application = (cluster: MemoryCluster): Resource => {
  const found = cluster.objects().find((object) => object.kind === APPLICATION_KIND);
  if (found === undefined) throw new Error('no Application');
  return found;
};

/** Distinct Event names (they are random in production). */
let drawn = 0;
const counter = (): (() => number) => () => (drawn++ % 1000) / 1000;

const eventsOf = (cluster: MemoryCluster): ReadonlyArray<{ reason: unknown; type: unknown; message: string }> =>
  cluster
    .objects()
    .filter((object) => object.kind === 'Event')
    .map((event) => ({
      reason: getIn(event, ['reason']),
      type: getIn(event, ['type']),
      message: String(getIn(event, ['message'])),
    }));

describe('Events for a reconcile', () => {
  it('one Created Event names every child created; one Patched Event names each patched child with its paths', async () => {
    const { cluster, deps } = world();
    const created = await reconciled(cluster, deps, [
      ...configMaps(2, 'a'),
      { kind: 'Service', name: 'shop-web', port: 80 },
    ]);
    expect(await recordEvents(cluster, application(cluster), created, 0, counter())).toEqual([]);
    expect(eventsOf(cluster)).toEqual([
      {
        reason: 'Created',
        type: 'Normal',
        message:
          'created 3 objects: v1 ConfigMap default/shop-config-000; v1 ConfigMap default/shop-config-001; v1 Service default/shop-web',
      },
    ]);
    // The Events are about the Application.
    for (const event of cluster.objects().filter((object) => object.kind === 'Event'))
      expect(getIn(event, ['involvedObject', 'name'])).toBe('shop');

    const patched = await reconciled(cluster, deps, [
      ...configMaps(1, 'b'),
      { kind: 'Service', name: 'shop-web', port: 80 },
    ]);
    expect(await recordEvents(cluster, application(cluster), patched, 0, counter())).toEqual([]);
    expect(eventsOf(cluster).filter((event) => event.reason !== 'Created')).toEqual([
      { reason: 'Patched', type: 'Normal', message: 'patched v1 ConfigMap default/shop-config-000: data.mode' },
      { reason: 'Deleted', type: 'Normal', message: 'deleted v1 ConfigMap default/shop-config-001' },
    ]);
  });

  it('many children: whole names up to the 1 024-character limit, then how many more', async () => {
    const { cluster, deps } = world();
    const created = await reconciled(cluster, deps, configMaps(60, 'a'));
    await recordEvents(cluster, application(cluster), created, 0, counter());
    const [event, ...others] = eventsOf(cluster);
    expect(others).toEqual([]);
    expect(event?.message.length).toBeLessThanOrEqual(1024);
    const match = /^created 60 objects: (.*); … and (\d+) more$/.exec(event?.message ?? '');
    expect(match).not.toBeNull();
    const named = (match?.[1] ?? '').split('; ');
    // Every name is whole, in plan order, and the count of the rest is exact.
    expect(named).toEqual(configMaps(named.length, 'a').map((child) => `v1 ConfigMap default/${child.name}`));
    expect(named.length + Number(match?.[2])).toBe(60);
  });

  it('a failure is a Warning Event with the error, beside the Event for what succeeded', async () => {
    const { cluster, deps } = world();
    const refusing: ReconcileDeps = {
      ...deps,
      cluster: {
        ...cluster,
        create: (object: Resource) =>
          object.kind === 'Service'
            ? () => Promise.resolve(E.left({ _tag: 'Forbidden', message: 'services is forbidden' } as never))
            : cluster.create(object),
      },
    };
    const result = await reconciled(cluster, refusing, [
      ...configMaps(1, 'a'),
      { kind: 'Service', name: 'shop-web', port: 80 },
    ]);
    expect(result._tag).toBe('Failed');
    await recordEvents(cluster, application(cluster), result, 0, counter());
    expect(eventsOf(cluster)).toEqual([
      { reason: 'Created', type: 'Normal', message: 'created v1 ConfigMap default/shop-config-000' },
      {
        reason: expect.stringMatching(/^Reconcile(Failed|Stalled)$/),
        type: 'Warning',
        message: expect.stringContaining('services is forbidden'),
      },
    ]);
  });
});

describe('Events aggregated as client-go EventCorrelator does', () => {
  /** A time as the API server stores it (RFC 3339 to the second). */
  const at = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
  const stored = (cluster: MemoryCluster) =>
    cluster
      .objects()
      .filter((object) => object.kind === 'Event')
      .map((event) => ({
        reason: getIn(event, ['reason']),
        count: getIn(event, ['count']),
        firstTimestamp: getIn(event, ['firstTimestamp']),
        lastTimestamp: getIn(event, ['lastTimestamp']),
      }));

  it('the same Event recorded again is counted on the one written (count, lastTimestamp), never written anew', async () => {
    const { cluster, deps } = world();
    const correlator = new EventCorrelator();
    const random = counter();
    const created = await reconciled(cluster, deps, configMaps(1, 'a'));
    await recordEvents(cluster, application(cluster), created, 0, random, correlator);
    // The same patch three times (the value flips back in between: the same message each time).
    for (const when of [60_000, 120_000, 180_000]) {
      await reconciled(cluster, deps, configMaps(1, 'x'));
      const patched = await reconciled(cluster, deps, configMaps(1, 'b'));
      expect(await recordEvents(cluster, application(cluster), patched, when, random, correlator)).toEqual([]);
    }
    const patchedEvents = stored(cluster).filter((event) => event.reason === 'Patched');
    expect(patchedEvents).toEqual([
      {
        reason: 'Patched',
        count: 3,
        firstTimestamp: at(60_000),
        lastTimestamp: at(180_000),
      },
    ]);
    expect(stored(cluster).filter((event) => event.reason === 'Created')).toHaveLength(1);
  });

  it('an Event deleted meanwhile (expired) is created again; the least recently seen is forgotten past the bound', async () => {
    const { cluster, deps } = world();
    const correlator = new EventCorrelator(1);
    const random = counter();
    const created = await reconciled(cluster, deps, configMaps(1, 'a'));
    await recordEvents(cluster, application(cluster), created, 0, random, correlator);
    for (const event of cluster.objects().filter((object) => object.kind === 'Event'))
      await cluster.delete({ apiVersion: 'v1', kind: 'Event', namespace: 'default', name: event.metadata.name })();
    expect(await recordEvents(cluster, application(cluster), created, 1_000, random, correlator)).toEqual([]);
    expect(stored(cluster)).toEqual([
      {
        reason: 'Created',
        count: 1,
        firstTimestamp: at(1_000),
        lastTimestamp: at(1_000),
      },
    ]);
    const patched = await reconciled(cluster, deps, configMaps(1, 'b'));
    await recordEvents(cluster, application(cluster), patched, 2_000, random, correlator);
    expect(correlator.size).toBe(1);
    // `Created` was forgotten for `Patched` (bound 1): recorded again, it is a new Event.
    await recordEvents(cluster, application(cluster), created, 3_000, random, correlator);
    expect(stored(cluster).filter((event) => event.reason === 'Created')).toHaveLength(2);
  });
});
