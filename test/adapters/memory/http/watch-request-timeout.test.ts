/**
 * Watches the server ends by itself (issue 39 item 4): kube-apiserver ends a watch whose client
 * sent no `timeoutSeconds` after its `--min-request-timeout` (1800 s) times a random factor in
 * [1, 2]; the memory endpoint does the same on the cluster's clock, seeded, without an error
 * event (the client re-watches), and honours a client's own `timeoutSeconds` instead. Resuming
 * from a resourceVersion the watch cache no longer holds is 410 Gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, type MemoryClusterOptions } from '../../../../adapters/memory/index.js';
import { endpoint, watchLines, type Endpoint } from './http-support.js';

const open: Endpoint[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((target) => target.close()));
});

const TIMED_OUT = 'watch ended by the server (request timeout)';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const serve = async (options: MemoryClusterOptions) => {
  const clock = new ManualClock(0);
  const target = await endpoint({ clock, ...options });
  open.push(target);
  const timeouts = () => target.memory.injectedFaults().get(TIMED_OUT) ?? 0;
  return { clock, target, timeouts };
};

/** Real time for a watch request to reach the server (the endpoint answers 200 before it streams). */
const reachesServer = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

/** The clock time the server ended the watch at, advancing a hundredth of the minimum at a time. */
const endedAt = async (seed: number, minRequestTimeoutMs: number): Promise<number> => {
  const { clock, target, timeouts } = await serve({ seed, minRequestTimeoutMs });
  const watch = await watchLines(target, `${CONFIGMAPS}?watch=1`);
  await reachesServer();
  while (timeouts() === 0 && clock.now() <= 3 * minRequestTimeoutMs) await clock.advance(minRequestTimeoutMs / 100);
  await watch.ended;
  expect(watch.lines.filter((line) => line.type === 'ERROR')).toEqual([]);
  return clock.now();
};

describe('watches the server ends by itself, as kube-apiserver does', () => {
  it('without timeoutSeconds: ended cleanly between 30 and 60 min (--min-request-timeout 1800 s) on the clock', async () => {
    const { clock, target, timeouts } = await serve({ seed: 4 });
    const watch = await watchLines(target, `${CONFIGMAPS}?watch=1`);
    await reachesServer();
    await clock.advance(1_800_000 - 1);
    expect(timeouts()).toBe(0);
    await clock.advance(1_800_001);
    expect(timeouts()).toBe(1);
    await watch.ended;
    expect(watch.lines.map((line) => line.type)).not.toContain('ERROR');
  });

  it('the time is seeded (the same seed, the same end; seeds differ) and within [min, 2·min]', async () => {
    const ends = [];
    for (const seed of [1, 2, 3]) ends.push(await endedAt(seed, 10_000));
    for (const at of ends) {
      expect(at).toBeGreaterThanOrEqual(10_000);
      expect(at).toBeLessThanOrEqual(20_100);
    }
    expect(new Set(ends).size).toBeGreaterThan(1);
    expect(await endedAt(2, 10_000)).toBe(ends[1]);
  });

  it("a client's own timeoutSeconds is kept, even past 60 min", async () => {
    const { clock, target, timeouts } = await serve({ seed: 4 });
    const watch = await watchLines(target, `${CONFIGMAPS}?watch=1&timeoutSeconds=7200`);
    await reachesServer();
    await clock.advance(3_600_000);
    expect(timeouts()).toBe(0);
    await clock.advance(3_600_000);
    await watch.ended;
    expect(timeouts()).toBe(0);
  });

  it('resuming after the server ended the watch, from a version the watch cache has dropped, is 410 Gone', async () => {
    const { clock, target, timeouts } = await serve({ seed: 1, minRequestTimeoutMs: 1_000, watchHistory: 5 });
    const created = await target.request(CONFIGMAPS, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' } },
    });
    const seen: string = created.json.metadata.resourceVersion;
    const watch = await watchLines(target, `${CONFIGMAPS}?watch=1&resourceVersion=${seen}`);
    await reachesServer();
    await clock.advance(2_000);
    expect(timeouts()).toBe(1);
    await watch.ended;
    // meanwhile the cluster moves on past the watch cache's window
    for (let i = 0; i < 10; i++)
      await target.request(CONFIGMAPS, {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `later-${i}` } },
      });
    const resumed = await watchLines(target, `${CONFIGMAPS}?watch=1&resourceVersion=${seen}`);
    await resumed.ended;
    expect(resumed.lines.map((line) => line.type)).toEqual(['ERROR']);
    expect(resumed.lines[0].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });
});
