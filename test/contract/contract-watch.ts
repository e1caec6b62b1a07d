/**
 * Contract: watch streams — from a resourceVersion, from now with initial state, selector transitions, 410 Gone, stop.
 */
import { expect, it } from 'vitest';
import {
  asNumber,
  configMap,
  configMapRef,
  eventually,
  must,
  recordWatch,
  unique,
  widgetApiVersion,
  type ContractEnv,
} from './contract-support.js';

export const watchContract = (env: () => ContractEnv): void => {
  it('from a list resourceVersion: ADDED, MODIFIED, DELETED in order, with increasing versions', async () => {
    const { cluster, namespace } = env();
    const label = unique('watch');
    const query = { apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: `watch=${label}` };
    const list = await must(cluster.list(query));
    const watch = recordWatch(cluster, { ...query, resourceVersion: list.resourceVersion, allowBookmarks: true });
    try {
      const name = unique('cm');
      await must(cluster.create(configMap(namespace, name, { v: '1' }, { watch: label })));
      await must(cluster.patch(configMapRef(namespace, name), { type: 'merge', body: { data: { v: '2' } } }));
      await must(cluster.delete(configMapRef(namespace, name)));
      await eventually(() => expect(watch.objectEvents().map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']));
      const events = watch.objectEvents();
      expect(events.map((e) => e.object.metadata.name)).toEqual([name, name, name]);
      expect(events[1]?.object.data).toEqual({ v: '2' });
      const versions = events.map((e) => asNumber(e.object.metadata.resourceVersion));
      expect([...versions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(versions);
      expect(new Set(versions).size).toBe(3);
      watch.events
        .filter((e) => e.type === 'BOOKMARK')
        .forEach((e) => expect(e.type === 'BOOKMARK' && asNumber(e.resourceVersion)).toBeTruthy());
    } finally {
      watch.stop();
    }
  });

  it('without a resourceVersion: synthetic ADDED events for what exists, then changes', async () => {
    const { cluster, namespace } = env();
    const label = unique('initial');
    const names = [unique('cm'), unique('cm')].sort();
    for (const name of names) await must(cluster.create(configMap(namespace, name, {}, { initial: label })));
    const watch = recordWatch(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      labelSelector: `initial=${label}`,
    });
    try {
      await eventually(() =>
        expect(
          watch
            .objectEvents()
            .map((e) => [e.type, e.object.metadata.name])
            .sort(),
        ).toEqual(names.map((n) => ['ADDED', n])),
      );
      const later = unique('cm');
      await must(cluster.create(configMap(namespace, later, {}, { initial: label })));
      await eventually(() => expect(watch.objectEvents().at(-1)?.object.metadata.name).toBe(later));
    } finally {
      watch.stop();
    }
  });

  it('label selector transitions: entering the selector is ADDED, leaving it is DELETED', async () => {
    const { cluster, namespace } = env();
    const label = unique('phase');
    const name = unique('cm');
    const ref = configMapRef(namespace, name);
    const list = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace }));
    const watch = recordWatch(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace,
      labelSelector: `${label}=on`,
      resourceVersion: list.resourceVersion,
    });
    try {
      await must(cluster.create(configMap(namespace, name, {}, { [label]: 'off' })));
      await must(cluster.patch(ref, { type: 'merge', body: { metadata: { labels: { [label]: 'on' } } } }));
      await must(cluster.patch(ref, { type: 'merge', body: { data: { touched: 'yes' } } }));
      await must(cluster.patch(ref, { type: 'merge', body: { metadata: { labels: { [label]: 'off' } } } }));
      await eventually(() => expect(watch.objectEvents().map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']));
    } finally {
      watch.stop();
    }
  });

  it('a resourceVersion too old for the server answers Gone (410) by closing the stream', async () => {
    const { cluster, namespace } = env();
    // Real kube-apiserver: "too old" is relative to the kind's watch cache, not to etcd. A
    // built-in kind's cache starts at boot (resourceVersion ~1), so `1` is NOT too old there: the
    // server replays the kind's history from etcd (until compaction, every 5 min). A custom
    // resource's cache starts when its CRD is established, so `1` predates it: 410 Expired.
    const watch = recordWatch(cluster, {
      apiVersion: widgetApiVersion,
      kind: 'Widget',
      namespace,
      resourceVersion: '1',
    });
    const reason = await watch.closed;
    expect(reason?._tag).toBe('Gone');
    expect(reason?.code).toBe(410);
    expect(watch.objectEvents()).toEqual([]);
    expect(watch.closedCalls()).toBe(1);
  });

  it('stop(): no event and no close after it (checked against a second watch as barrier)', async () => {
    const { cluster, namespace } = env();
    const label = unique('stop');
    const query = { apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: `stop=${label}` };
    const stopped = recordWatch(cluster, query);
    stopped.stop();
    stopped.stop();
    const barrier = recordWatch(cluster, query);
    try {
      const name = unique('cm');
      await must(cluster.create(configMap(namespace, name, {}, { stop: label })));
      await eventually(() => expect(barrier.objectEvents().map((e) => e.object.metadata.name)).toEqual([name]));
      expect(stopped.events).toEqual([]);
      expect(stopped.closedCalls()).toBe(0);
    } finally {
      barrier.stop();
    }
  });
};
