/**
 * The server-side watch timeout fault (`watch.serverTimeoutMs`): kube-apiserver ends every watch
 * after a random time in [min-request-timeout, 2×min-request-timeout]; the memory cluster does
 * the same on its clock, seeded, and names the fault in injectedFaults().
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, ManualClock } from '../../../app/testing/index.js';
import { record } from '../../adapters/memory/support.js';

const watchEnd = async (seed: number): Promise<number> => {
  const clock = new ManualClock(0);
  const cluster = createMemoryCluster({ clock, seed, faults: { watch: { serverTimeoutMs: 1_000 } } });
  const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap' });
  await cluster.settle();
  for (let ms = 0; ms <= 2_000; ms += 10) {
    await clock.advance(10);
    if (watch.closes.length > 0) {
      // a clean end (no error): the client re-watches from its last resourceVersion
      expect(watch.closes).toEqual([undefined]);
      expect(cluster.injectedFaults().get('watch ended by the server (request timeout)')).toBe(1);
      return clock.now();
    }
  }
  throw new Error('the server never ended the watch');
};

describe('watch.serverTimeoutMs: watches the server ends, as kube-apiserver does', () => {
  it('ends each watch cleanly between the timeout and twice it, the same time for the same seed', async () => {
    const ends = await Promise.all([1, 2, 3, 4, 5].map(watchEnd));
    ends.forEach((at) => {
      expect(at).toBeGreaterThanOrEqual(1_000);
      expect(at).toBeLessThanOrEqual(2_010);
    });
    expect(new Set(ends).size).toBeGreaterThan(1); // randomised, as the real server's
    expect(await watchEnd(3)).toBe(ends[2]);
  });

  it('is off unless the profile sets it', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap' });
    await clock.advance(3_600_000);
    expect(watch.closes).toEqual([]);
  });
});
