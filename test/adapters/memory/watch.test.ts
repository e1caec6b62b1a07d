/** Memory adapter: watch delivery, bookmarks, scoping, history, stop, and kind removal. */
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock } from '../../../adapters/memory/index.js';
import { cmRef, configMap, must, names, record } from './support.js';

describe('memory watch streams', () => {
  it('never delivers inside the write call: events arrive on a later microtask, in order', async () => {
    const cluster = createMemoryCluster();
    const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: '3' });
    await cluster.settle();
    const pending = cluster.create(configMap('a'))();
    expect(watch.events).toEqual([]);
    await pending;
    await must(cluster.patch(cmRef('a'), { type: 'merge', body: { data: { x: '1' } } }));
    await must(cluster.delete(cmRef('a')));
    await cluster.settle();
    expect(names(watch.events)).toEqual(['ADDED:a', 'MODIFIED:a', 'DELETED:a']);
  });

  it('bookmarks come every interval of clock time, with the current resourceVersion, and stop with the watch', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock, bookmarkIntervalMs: 60_000 });
    const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', allowBookmarks: true });
    await cluster.settle();
    const created = await must(
      cluster.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } }),
    );
    await clock.advance(59_999);
    expect(watch.events.filter((e) => e.type === 'BOOKMARK')).toEqual([]);
    await clock.advance(1);
    expect(watch.events).toEqual([{ type: 'BOOKMARK', resourceVersion: created.metadata.resourceVersion }]);
    await clock.advance(60_000);
    expect(watch.events).toHaveLength(2);
    watch.stop();
    expect(clock.pending()).toBe(0);
  });

  it('namespace and selector scoping; objects at the requested version', async () => {
    const cluster = createMemoryCluster();
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }));
    const watch = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'other',
      labelSelector: 'app=x',
      resourceVersion: '3',
    });
    await must(
      cluster.create({ ...configMap('here'), metadata: { name: 'here', namespace: 'default', labels: { app: 'x' } } }),
    );
    await must(cluster.create({ ...configMap('unlabelled', {}, 'other') }));
    await must(
      cluster.create({
        ...configMap('there', {}, 'other'),
        metadata: { name: 'there', namespace: 'other', labels: { app: 'x' } },
      }),
    );
    await cluster.settle();
    expect(names(watch.events)).toEqual(['ADDED:there']);
  });

  it('too old: more changes than the watch history holds makes an old resourceVersion 410 Gone', async () => {
    const cluster = createMemoryCluster({ watchHistory: 5 });
    const first = await must(cluster.create(configMap('first')));
    for (let i = 0; i < 5; i++) await must(cluster.create(configMap(`cm-${i}`)));
    // The change that created `first` fell out; everything after it is still kept.
    const old = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: String(Number(first.metadata.resourceVersion) - 1),
    });
    const recent = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: first.metadata.resourceVersion,
    });
    await cluster.settle();
    expect(old.closes.map((e) => e?._tag)).toEqual(['Gone']);
    expect(names(recent.events)).toEqual(['ADDED:cm-0', 'ADDED:cm-1', 'ADDED:cm-2', 'ADDED:cm-3', 'ADDED:cm-4']);
    expect(recent.closes).toEqual([]);
  });

  it("a custom kind's watch cache starts when its CRD is stored: older resourceVersions are 410 Gone", async () => {
    const cluster = createMemoryCluster();
    await must(cluster.create(configMap('before')));
    await must(
      cluster.create({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { kind: 'Thing', plural: 'things' },
          versions: [{ name: 'v1', served: true, storage: true }],
        },
      }),
    );
    const custom = record(cluster, { apiVersion: 'example.com/v1', kind: 'Thing', resourceVersion: '1' });
    const builtin = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: '1' });
    await cluster.settle();
    expect(custom.closes.map((e) => e?.code)).toEqual([410]);
    expect(names(builtin.events)).toEqual(['ADDED:before']);
    expect(builtin.closes).toEqual([]);
  });

  it('a malformed resourceVersion or selector closes the stream with BadRequest; an unknown kind with UnknownKind', async () => {
    const cluster = createMemoryCluster();
    const badVersion = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: 'abc' });
    const badSelector = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', labelSelector: 'a in (' });
    const unknown = record(cluster, { apiVersion: 'example.com/v1', kind: 'Nope' });
    await cluster.settle();
    expect([badVersion, badSelector, unknown].map((w) => w.closes.map((e) => e?._tag))).toEqual([
      ['BadRequest'],
      ['BadRequest'],
      ['UnknownKind'],
    ]);
  });

  it('a stop inside event() ends delivery at once; closed is never called after stop', async () => {
    const cluster = createMemoryCluster();
    const seen: string[] = [];
    let closes = 0;
    const handle = cluster.watch(
      { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: '3' },
      {
        event: (e) => {
          seen.push(e.type);
          handle.stop();
        },
        closed: () => {
          closes += 1;
        },
      },
    );
    await must(cluster.create(configMap('a')));
    await must(cluster.create(configMap('b')));
    cluster.restart();
    await cluster.settle();
    expect(seen).toEqual(['ADDED']);
    expect(closes).toBe(0);
  });

  it('the watches of a custom kind end cleanly when its CRD is gone', async () => {
    const cluster = createMemoryCluster();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    };
    await must(cluster.create(crd));
    await must(
      cluster.create({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' } }),
    );
    const watch = record(cluster, { apiVersion: 'example.com/v1', kind: 'Thing' });
    await cluster.settle();
    await must(cluster.delete({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name }));
    await cluster.settle();
    expect(names(watch.events)).toEqual(['ADDED:t', 'DELETED:t']);
    expect(watch.closes).toEqual([undefined]);
  });
});
