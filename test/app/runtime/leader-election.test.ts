/**
 * The leader elector alone, on the in-memory cluster in virtual time: a lease this process acquires
 * while it still believes it leads (it was paused past the lease, a rival led and released it) is a
 * new leadership, not a renewal: the old one is reported lost first, so its term's writes stay fenced.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { LeaderElector } from '../../../app/runtime/leader-election.js';
import type { Clock, Cluster } from '../../../core/internal.js';
import { Replica } from './replica.js';

const run = async (clock: ManualClock, ms: number): Promise<void> => {
  for (let t = 0; t < ms; t += 100) {
    await flushMicrotasks();
    await clock.advance(100);
  }
  await flushMicrotasks();
};

const elector = (cluster: Cluster, clock: Clock, identity: string, events: string[]): LeaderElector =>
  new LeaderElector({
    cluster,
    clock,
    namespace: 'default',
    name: 'kreconcile-leader',
    identity,
    retryPeriodMs: 1_000,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
  });

describe('LeaderElector', () => {
  it('a leader paused while a rival led and released the lease reports its leadership lost before it leads again', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 1 });
    const replicaA = new Replica(clock, server, 0);
    const eventsA: string[] = [];
    const eventsB: string[] = [];
    const a = elector(replicaA.cluster, replicaA.clock, 'a', eventsA);
    const b = elector(server, clock, 'b', eventsB);
    a.start();
    await run(clock, 1_500);
    b.start();
    await run(clock, 1_500);
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    // SIGSTOP: A's timers wait; it still believes it leads. B takes over once A's lease ran out …
    replicaA.pause();
    await run(clock, 20_000);
    expect(eventsB).toEqual(['started']);
    expect(a.mayWrite()).toBe(false);
    // … and stops gracefully, releasing the lease; then A resumes and acquires the free lease at once.
    await b.stop();
    replicaA.resume();
    await run(clock, 1_500);
    expect(a.isLeader).toBe(true);
    expect(a.mayWrite()).toBe(true);
    // B led in between: what A had begun before the pause is over, a new leadership begins.
    expect(eventsA).toEqual(['started', 'stopped', 'started']);
    await a.stop();
  });

  it('renewing its own lease, even after missing renewals nobody took it over in, keeps the one leadership', async () => {
    const clock = new ManualClock();
    const server = createMemoryCluster({ clock, seed: 2 });
    const replicaA = new Replica(clock, server, 0);
    const events: string[] = [];
    const a = elector(replicaA.cluster, replicaA.clock, 'a', events);
    a.start();
    await run(clock, 1_500);
    replicaA.pause();
    await run(clock, 8_000);
    replicaA.resume();
    await run(clock, 5_000);
    expect(a.isLeader).toBe(true);
    expect(events).toEqual(['started']);
    await a.stop();
  });
});
