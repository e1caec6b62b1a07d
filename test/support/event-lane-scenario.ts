/**
 * Events in the low-priority lane, seen from the API server's side: through a counting loopback
 * proxy, a read takes the only token, two Events queue at low priority, a third finds the lane full,
 * then four ConfigMap creates queue behind the read. The server must see the creates before the
 * Events (although the Events asked first), never the refused one, and store the two Events as
 * sent. Both sides (memory over HTTP, kube-apiserver) assert the same.
 */
import * as E from 'fp-ts/lib/Either.js';
import { expect } from 'vitest';
import { createKubernetesCluster, type KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { getIn, type Resource } from '../../core/internal.js';
import { startCountingProxy } from './counting-proxy.js';

/** Resolves once `done()` holds, checking at every turn of the event loop. */
const until = async (done: () => boolean): Promise<void> => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

const event = (namespace: string, name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace },
  involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'lane-0', namespace },
  reason: 'Created',
  message: `created v1 ConfigMap ${namespace}/lane-0 (${name})`,
  type: 'Normal',
  source: { component: 'kreconcile' },
  reportingComponent: 'kreconcile.io/controller',
  reportingInstance: 'kreconcile',
  firstTimestamp: '2026-01-01T00:00:00.000Z',
  lastTimestamp: '2026-01-01T00:00:00.000Z',
  count: 1,
});

const configMap = (namespace: string, index: number): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `lane-${index}`, namespace },
  data: { index: String(index) },
});

/** Runs the scenario against `upstream` in `namespace` (existing, empty) and asserts what the server saw. */
export const expectEventsAfterNormalRequests = async (
  upstream: KubernetesCluster['kubeConfig'],
  namespace: string,
): Promise<void> => {
  const proxy = await startCountingProxy(upstream);
  try {
    // 5 a second, one at a time: each grant 200 ms after the last, far more than a request's transit.
    const cluster = createKubernetesCluster(
      { kubeconfigYaml: proxy.kubeconfigYaml },
      { flowControl: { qps: 5, burst: 1, maxInFlight: 64, maxLowPriorityQueued: 2 } },
    );
    // Discovery first (shared by both views), then a whole token back in the bucket.
    for (const kind of ['ConfigMap', 'Event']) expect(E.isRight(await cluster.scopeOf('v1', kind)())).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const before = proxy.arrivals.length;

    // Each step waits until the last reached flow control (the adapter resolves the kind first).
    const read = cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'absent' })();
    await until(() => cluster.flowControl.stats().inFlight === 1 || proxy.arrivals.length > before);
    const queued = ['lane-event-1', 'lane-event-2'].map((name) => cluster.lowPriority.create(event(namespace, name))());
    await until(() => cluster.flowControl.stats().queued === 2);
    const refused = await cluster.lowPriority.create(event(namespace, 'lane-event-3'))();
    const creates = [0, 1, 2, 3].map((index) => cluster.create(configMap(namespace, index))());
    // Refused at once, unsent, as a client-side 429 (code 0: no HTTP answer).
    expect(E.isLeft(refused) && refused.left).toMatchObject({ _tag: 'TooManyRequests', code: 0 });
    expect(E.isLeft(refused) && refused.left.message).toMatch(/not sent: 2 low-priority requests already wait/);

    await read;
    for (const answer of await Promise.all([...creates, ...queued])) expect(E.isRight(answer)).toBe(true);
    const lines = proxy.arrivals.slice(before).map(({ line }) => line.replace(/\?.*$/, ''));
    expect(lines).toEqual([
      `GET /api/v1/namespaces/${namespace}/configmaps/absent`,
      ...Array.from({ length: 4 }, () => `POST /api/v1/namespaces/${namespace}/configmaps`),
      `POST /api/v1/namespaces/${namespace}/events`,
      `POST /api/v1/namespaces/${namespace}/events`,
    ]);

    const stored = await cluster.list({ apiVersion: 'v1', kind: 'Event', namespace })();
    if (E.isLeft(stored)) throw new Error(stored.left.message);
    const lane = stored.right.items
      .filter((item) => item.metadata.name.startsWith('lane-event-'))
      .map((item) => ({
        name: item.metadata.name,
        type: getIn(item, ['type']),
        reason: getIn(item, ['reason']),
        message: getIn(item, ['message']),
        involved: getIn(item, ['involvedObject', 'name']),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(lane).toEqual(
      ['lane-event-1', 'lane-event-2'].map((name) => ({
        name,
        type: 'Normal',
        reason: 'Created',
        message: `created v1 ConfigMap ${namespace}/lane-0 (${name})`,
        involved: 'lane-0',
      })),
    );
  } finally {
    await proxy.close();
  }
};
