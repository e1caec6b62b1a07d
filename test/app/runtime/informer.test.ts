/**
 * The informer when its watch expires (410 Gone, history compacted, as etcd compaction or a lagging
 * watcher shows it): it relists instead of resuming, and the relist turns what it missed meanwhile
 * (a change, a deletion) into events.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { Informer, type InformerEvent } from '../../../app/runtime/informer.js';
import type { ClusterError, Resource } from '../../../core/internal.js';

const configMap = (name: string, mode: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { mode },
});
const cmRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });

const run = async (clock: ManualClock, ms: number): Promise<void> => {
  for (let t = 0; t < ms; t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
};

const setUp = async (faults: Parameters<typeof createMemoryCluster>[0] = {}) => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 8, ...faults });
  await cluster.create(configMap('a', 'one'))();
  await cluster.create(configMap('b', 'one'))();
  const events: string[] = [];
  const errors: Array<{ error: ClusterError; phase: string }> = [];
  let lists = 0;
  const counting = {
    ...cluster,
    list: (query: Parameters<typeof cluster.list>[0]) => {
      lists++;
      return cluster.list(query);
    },
  };
  const informer = new Informer(
    counting,
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' },
    {
      clock,
      onEvent: (event: InformerEvent) =>
        events.push(`${event.type} ${event.object.metadata.name} ${JSON.stringify(event.object.data)}`),
      onError: (error, phase) => errors.push({ error, phase }),
    },
  );
  await informer.start();
  await run(clock, 500);
  return { clock, cluster, informer, events, errors, lists: () => lists };
};

describe('an informer whose watch expires', () => {
  it('relists on 410 Gone and learns what it missed: a change and a deletion', async () => {
    const { clock, cluster, informer, events, errors, lists } = await setUp();
    expect(lists()).toBe(1);
    events.length = 0;
    // Compaction overtakes the watcher; what follows reaches it only through a relist.
    cluster.expireWatches();
    await cluster.update({ ...(informer.get('default', 'a') as Resource), data: { mode: 'two' } })();
    await cluster.delete(cmRef('b'))();
    await run(clock, 2_000);
    expect(errors.map((e) => [e.phase, e.error._tag])).toEqual([['watch', 'Gone']]);
    expect(lists()).toBe(2);
    expect(events.sort()).toEqual(['DELETED b {"mode":"one"}', 'MODIFIED a {"mode":"two"}']);
    expect(informer.list().map((o) => `${o.metadata.name} ${JSON.stringify(o.data)}`)).toEqual(['a {"mode":"two"}']);
    // The new watch works: a later change arrives as an event, without another list.
    await cluster.create(configMap('c', 'one'))();
    await run(clock, 500);
    expect(events).toContain('ADDED c {"mode":"one"}');
    expect(lists()).toBe(2);
    informer.stop();
  });

  it('converges under the expire fault: every change is in the cache once the fault stops', async () => {
    const { clock, cluster, informer, errors } = await setUp({ faults: { watch: { expireRate: 0.3 } } });
    for (let i = 0; i < 20; i++) {
      await cluster.create(configMap(`x-${i}`, 'one'))();
      if (i % 3 === 2) await cluster.delete(cmRef(`x-${i - 1}`))();
      await run(clock, 100);
    }
    cluster.setFaults({});
    await run(clock, 5_000);
    expect(errors.some((e) => e.error._tag === 'Gone')).toBe(true);
    const stored = cluster
      .objects()
      .filter((o) => o.kind === 'ConfigMap' && o.metadata.namespace === 'default')
      .map((o) => o.metadata.name)
      .sort();
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(stored);
    // Lookups by namespace and name (and by key) agree with the list, deletions included.
    for (let i = 0; i < 20; i++) {
      const name = `x-${i}`;
      const listed = informer.list().find((o) => o.metadata.name === name);
      expect(informer.get('default', name)).toBe(listed);
      expect(informer.getByKey(`default/${name}`)).toBe(listed);
      expect(informer.get(undefined, name)).toBeUndefined();
    }
    expect(stored).not.toContain('x-1');
    informer.stop();
  });
});

describe('an informer whose kind stops being served', () => {
  /** A source whose kind can stop being served; its watches close when the test says (as a 404 closes them). */
  const world = () => {
    const clock = new ManualClock();
    let lists = 0;
    let served = true;
    const sinks: Array<{ closed(error?: ClusterError): void }> = [];
    const source = {
      list: () => async () => {
        lists++;
        return served
          ? { _tag: 'Right' as const, right: { items: [configMap('a', 'one')], resourceVersion: String(lists) } }
          : { _tag: 'Left' as const, left: { _tag: 'UnknownKind' as const, code: 404, message: 'gone' } };
      },
      get: () => async () => ({ _tag: 'Right' as const, right: { _tag: 'None' as const } }),
      watch: (_query: unknown, sink: { closed(error?: ClusterError): void }) => {
        sinks.push(sink);
        return { stop: () => undefined };
      },
    };
    const events: string[] = [];
    const informer = new Informer(
      source,
      { apiVersion: 'chaos.io/v1', kind: 'Gadget' },
      { clock, onEvent: (event) => events.push(`${event.type} ${event.object.metadata.name}`), minRetryMs: 5_000 },
    );
    return {
      clock,
      informer,
      events,
      lists: () => lists,
      serve: (now: boolean) => {
        served = now;
      },
      closeWatch: (error: ClusterError) => sinks.at(-1)?.closed(error),
    };
  };

  for (const error of [
    { _tag: 'UnknownKind', code: 404, message: 'the server does not serve kind Gadget in chaos.io/v1' },
    { _tag: 'NotFound', code: 404, message: 'Not Found' },
  ] as const) {
    it(`relists at once when its watch closes with ${error._tag}, not after the retry delay, emptying the cache`, async () => {
      const w = world();
      await w.informer.start();
      expect(w.lists()).toBe(1);
      w.serve(false);
      w.closeWatch(error);
      await flushMicrotasks();
      expect(w.lists()).toBe(2);
      expect(w.events).toEqual(['ADDED a', 'DELETED a']);
      expect(w.informer.size).toBe(0);
      w.informer.stop();
    });
  }

  it('lists at once when told the kind is served again, instead of at its next retry', async () => {
    const w = world();
    await w.informer.start();
    w.serve(false);
    w.closeWatch({ _tag: 'UnknownKind', code: 404, message: 'gone' });
    await flushMicrotasks();
    expect(w.lists()).toBe(2);
    // Not served: the next list waits for the retry delay (5 s here) …
    await w.clock.advance(1_000);
    await flushMicrotasks();
    expect(w.lists()).toBe(2);
    // … unless the kind is back: then it lists now, and finds its objects again.
    w.serve(true);
    w.informer.relistNow();
    await flushMicrotasks();
    expect(w.lists()).toBe(3);
    expect(w.informer.size).toBe(1);
    w.informer.stop();
  });
});

describe('read-your-own-writes after the watch moved on', () => {
  it('a delete answered with the object still finalizing does not bring it back once the watch delivered its deletion', async () => {
    const { clock, cluster, informer } = await setUp();
    const held = await cluster.patch(cmRef('a'), { type: 'merge', body: { metadata: { finalizers: ['x/hold'] } } })();
    expect(held._tag).toBe('Right');
    // The answer of the delete: the object deleting, its finalizer still pending.
    const answer = await cluster.delete(cmRef('a'))();
    const pending = answer._tag === 'Right' && answer.right._tag === 'Some' ? answer.right.value : undefined;
    expect(pending?.metadata.deletionTimestamp).toBeDefined();
    // Another controller releases it before the answer is read; the watch delivers the deletion first.
    await cluster.patch(cmRef('a'), { type: 'merge', body: { metadata: { finalizers: null } } })();
    await run(clock, 500);
    expect(informer.get('default', 'a')).toBeUndefined();
    informer.apply(pending as Resource);
    expect(informer.get('default', 'a')).toBeUndefined();
    // A write newer than anything the watch delivered is still applied at once.
    const created = await cluster.create(configMap('c', 'one'))();
    if (created._tag === 'Right') informer.apply(created.right);
    expect(informer.get('default', 'c')?.data).toEqual({ mode: 'one' });
    informer.stop();
  });
});
