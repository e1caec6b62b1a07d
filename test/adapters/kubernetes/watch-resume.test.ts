/**
 * The Kubernetes adapter's watch source resumes a stream the server ends, from the last version it
 * delivered, reconnects after a connection is cut, and closes it only when resuming cannot work (410
 * Gone). Run over HTTP against the memory cluster (its seeded faults, restarts and compaction).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../../adapters/kubernetes/index.js';
import { createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { serveMemoryCluster, type ServedCluster } from '../../../adapters/memory/http/index.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import type { Cluster, WatchEvent } from '../../../core/ports/cluster.js';

const until = async (condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

let served: ServedCluster | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { name },
});

/** A stream of ConfigMaps in `default` through the adapter, recording what it delivers and how it closes. */
const watched = (cluster: Cluster) => {
  const events: WatchEvent[] = [];
  const closes: Array<ClusterError | undefined> = [];
  const handle = cluster.watch(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', resourceVersion: '1' },
    { event: (event) => events.push(event), closed: (error) => closes.push(error) },
  );
  const added = (): ReadonlyArray<string> =>
    events.flatMap((event) => (event.type === 'ADDED' ? [event.object.metadata.name] : []));
  return { events, closes, handle, added };
};

const servedCluster = async (memory: MemoryCluster): Promise<Cluster> => {
  served = await serveMemoryCluster(memory);
  return createKubernetesCluster({ kubeconfigYaml: served.kubeconfig });
};

describe('watch source over HTTP', () => {
  it('resumes each stream the server ends after an event: every change once, in order, never closed', async () => {
    const memory = createMemoryCluster({ seed: 3, faults: { watch: { kinds: ['ConfigMap'], closeRate: 1 } } });
    const cluster = await servedCluster(memory);
    const stream = watched(cluster);
    const names = ['c0', 'c1', 'c2', 'c3', 'c4'];
    for (const name of names) {
      const created = await cluster.create(configMap(name))();
      expect(created._tag).toBe('Right');
    }
    await until(() => stream.added().length >= names.length, 'five ADDED events');
    expect(stream.added()).toEqual(names);
    expect(stream.closes).toEqual([]);
    // Each of those events ended its connection: the source opened one per event at least.
    expect(memory.injectedFaults().get('watch closed') ?? 0).toBeGreaterThanOrEqual(names.length);
    stream.handle.stop();
  });

  it('reconnects after an API-server restart cut its connection, and delivers the next change', async () => {
    const memory = createMemoryCluster({ seed: 3 });
    const cluster = await servedCluster(memory);
    const stream = watched(cluster);
    expect((await cluster.create(configMap('before'))())._tag).toBe('Right');
    await until(() => stream.added().length === 1, 'the first ADDED event');
    memory.restart();
    expect((await cluster.create(configMap('after'))())._tag).toBe('Right');
    await until(() => stream.added().length === 2, 'the ADDED event after the restart');
    expect(stream.added()).toEqual(['before', 'after']);
    expect(stream.closes).toEqual([]);
    stream.handle.stop();
  });

  it('closes with Gone when the server has compacted past its version (it cannot resume: relist)', async () => {
    const memory = createMemoryCluster({ seed: 3 });
    const cluster = await servedCluster(memory);
    const stream = watched(cluster);
    expect((await cluster.create(configMap('before'))())._tag).toBe('Right');
    await until(() => stream.added().length === 1, 'the first ADDED event');
    memory.expireWatches();
    await until(() => stream.closes.length === 1, 'the stream to close');
    expect(stream.closes[0]?._tag).toBe('Gone');
    stream.handle.stop();
  });
});
