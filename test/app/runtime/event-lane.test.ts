/**
 * Events on their own way to the API server (the operator's `eventCluster`: on a real server the
 * adapter's low-priority lane): a reconcile and the queue never wait for them, and every Event not
 * recorded is counted in `kreconcile_events_dropped_total` by why.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import { converged } from '../../../app/reconcile/reconcile-application.js';
import { Controller } from '../../../app/runtime/controller.js';
import { createMetrics, type Metrics } from '../../../app/runtime/metrics.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  clusterError,
  type Cluster,
  type ClusterError,
  type Resource,
} from '../../../core/internal.js';
import { applicationObjects } from '../../../bench/fleet-objects.js';

const APPLICATIONS = 6;
const NAMESPACE = 'fleet';

const serverWithApplications = async (clock: ManualClock): Promise<MemoryCluster> => {
  const server = createMemoryCluster({ clock, seed: 11, workloads: true });
  await server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })();
  for (let i = 0; i < APPLICATIONS; i++)
    await server.create({
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: `app-${i}`, namespace: NAMESPACE },
      spec: { manifest: applicationObjects('flux', i, NAMESPACE) },
    })();
  return server;
};

/** `server` whose creates answer `answer(object)` instead (the Events' way in these tests). */
const eventsAnswered = (
  server: Cluster,
  answer: (object: Resource) => Promise<E.Either<ClusterError, Resource>>,
): Cluster => ({ ...server, create: (object) => () => answer(object) });

/** A cold operator on `server` with Events through `eventCluster`, run until every Application is Ready. */
const converge = async (
  clock: ManualClock,
  server: MemoryCluster,
  eventCluster: Cluster,
  metrics: Metrics,
): Promise<ReadonlySet<string>> => {
  const ready = new Set<string>();
  const controller = new Controller({
    cluster: server,
    eventCluster,
    clock,
    random: () => 0.5,
    workers: 2,
    resyncMs: 0,
    namespace: NAMESPACE,
    planOptions: { readiness: 'existence' },
    metrics,
    onReconciled: (key, result) => {
      if (converged(result)) ready.add(key);
    },
  });
  await controller.start();
  for (let t = 0; t < 60_000 && ready.size < APPLICATIONS; t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  await flushMicrotasks();
  await controller.stop(0);
  return ready;
};

const dropped = async (metrics: Metrics): Promise<Readonly<Record<string, number>>> =>
  Object.fromEntries(
    (await metrics.eventsDropped.get()).values.map((sample) => [String(sample.labels.reason), sample.value]),
  );

describe('Events through their own cluster view', () => {
  it('never hold a reconcile back: every Application converges while no Event is ever answered', async () => {
    const clock = new ManualClock();
    const server = await serverWithApplications(clock);
    const unanswered: Resource[] = [];
    const metrics = createMetrics();
    const hanging = eventsAnswered(server, (event) => {
      unanswered.push(event);
      return new Promise(() => undefined);
    });
    const ready = await converge(clock, server, hanging, metrics);
    expect(ready.size).toBe(APPLICATIONS);
    // Every Event went the Events' way (one Created per new Application), none through the reconcile's client.
    expect(unanswered.map((event) => [event.kind, event['reason']])).toEqual(
      Array.from({ length: APPLICATIONS }, () => ['Event', 'Created']),
    );
    expect(server.objects().filter((object) => object.kind === 'Event')).toEqual([]);
    expect(await dropped(metrics)).toEqual({});
  });

  it('counts every Event not recorded by why: refused unsent by flow control (QueueFull) or the API error', async () => {
    const clock = new ManualClock();
    const server = await serverWithApplications(clock);
    const metrics = createMetrics();
    let answered = 0;
    const refusing = eventsAnswered(server, async () =>
      E.left(
        answered++ % 2 === 0
          ? clusterError('TooManyRequests', 'not sent: 1000 low-priority requests already wait', { code: 0 })
          : clusterError('Forbidden', 'events is forbidden'),
      ),
    );
    const ready = await converge(clock, server, refusing, metrics);
    expect(ready.size).toBe(APPLICATIONS);
    expect(answered).toBe(APPLICATIONS);
    expect(await dropped(metrics)).toEqual({ QueueFull: APPLICATIONS / 2, Forbidden: APPLICATIONS / 2 });
  });

  it('a server 429 is not a client refusal', async () => {
    const clock = new ManualClock();
    const server = await serverWithApplications(clock);
    const metrics = createMetrics();
    const throttled = eventsAnswered(server, async () =>
      E.left(clusterError('TooManyRequests', 'the server is throttling', { code: 429 })),
    );
    await converge(clock, server, throttled, metrics);
    expect(await dropped(metrics)).toEqual({ TooManyRequests: APPLICATIONS });
  });
});
