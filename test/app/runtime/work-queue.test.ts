import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, flushMicrotasks } from '../../../adapters/memory/clock/manual-clock.js';
import { WorkQueue } from '../../../app/runtime/work-queue.js';

const queueWith = (clock = new ManualClock(0)) => ({
  clock,
  queue: new WorkQueue(clock, { random: () => 0.5, backoff: { baseMs: 100, capMs: 1_000 } }),
});

/** Takes a ready key without waiting (undefined when none is ready). */
const take = async (queue: WorkQueue): Promise<string | undefined> => {
  await flushMicrotasks();
  return queue.tryGet();
};

describe('WorkQueue', () => {
  it('coalesces adds of a queued key into one slot', async () => {
    const { queue } = queueWith();
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.depth).toBe(2);
    expect(await take(queue)).toBe('a');
    expect(await take(queue)).toBe('b');
    expect(queue.depth).toBe(0);
  });

  it('never hands out a key that is running; an add while running requeues it once on done', async () => {
    const { queue } = queueWith();
    queue.add('a');
    expect(await take(queue)).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.depth).toBe(0);
    expect(await take(queue)).toBeUndefined();
    queue.done('a');
    expect(queue.depth).toBe(1);
    expect(await take(queue)).toBe('a');
    queue.done('a');
    expect(queue.has('a')).toBe(false);
  });

  it('delayed adds: the earliest requeue wins', async () => {
    const { queue, clock } = queueWith();
    queue.addAfter('a', 5_000);
    queue.addAfter('a', 1_000);
    queue.addAfter('a', 3_000);
    await clock.advance(999);
    expect(queue.depth).toBe(0);
    await clock.advance(1);
    expect(queue.depth).toBe(1);
    expect(await take(queue)).toBe('a');
    queue.done('a');
    await clock.advance(10_000);
    expect(queue.depth).toBe(0);
  });

  it('an immediate add supersedes a pending delayed one', async () => {
    const { queue, clock } = queueWith();
    queue.addAfter('a', 60_000);
    queue.add('a');
    expect(await take(queue)).toBe('a');
    queue.done('a');
    await clock.advance(60_000);
    expect(queue.depth).toBe(0);
  });

  it('backoff grows exponentially per key, is capped, honours Retry-After and resets on forget', () => {
    const { queue } = queueWith();
    // random() = 0.5 → delay = exp/2 + exp/4 = 0.75 × exp
    const delays = [1, 2, 3, 4, 5, 6].map(() => queue.addRateLimited('a'));
    expect(delays).toEqual([75, 150, 300, 600, 750, 750]);
    expect(queue.addRateLimited('b', 10_000)).toBe(10_000);
    queue.forget('a');
    expect(queue.addRateLimited('a')).toBe(75);
  });

  it('a waiting worker is woken by an add; shutdown releases waiters', async () => {
    const { queue } = queueWith();
    const waiting = queue.get();
    queue.add('x');
    expect(await waiting).toBe('x');
    const idle = queue.get();
    queue.shutdown();
    expect(await idle).toBeUndefined();
    queue.add('y');
    expect(queue.depth).toBe(0);
  });

  it('property: whatever the interleaving, a key is never handed out twice at once and every add is eventually served', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), key: fc.constantFrom('a', 'b', 'c') }),
      fc.record({
        kind: fc.constant('addAfter' as const),
        key: fc.constantFrom('a', 'b', 'c'),
        ms: fc.integer({ min: 1, max: 500 }),
      }),
      fc.record({ kind: fc.constant('take' as const) }),
      fc.record({ kind: fc.constant('done' as const) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 300 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const { queue, clock } = queueWith();
        const running = new Set<string>();
        const pendingAdds = new Set<string>();
        for (const o of ops) {
          if (o.kind === 'add') {
            queue.add(o.key);
            pendingAdds.add(o.key);
          }
          if (o.kind === 'addAfter') {
            queue.addAfter(o.key, o.ms);
            pendingAdds.add(o.key);
          }
          if (o.kind === 'tick') await clock.advance(o.ms);
          if (o.kind === 'take') {
            const key = await take(queue);
            if (key !== undefined) {
              expect(running.has(key)).toBe(false);
              running.add(key);
              pendingAdds.delete(key);
            }
          }
          if (o.kind === 'done') {
            const key = [...running][0];
            if (key) {
              running.delete(key);
              queue.done(key);
            }
          }
        }
        for (const key of running) queue.done(key);
        running.clear();
        await clock.advance(1_000);
        const served = new Set<string>();
        for (let key = await take(queue); key !== undefined; key = await take(queue)) {
          expect(served.has(key)).toBe(false);
          served.add(key);
          queue.done(key);
        }
        for (const key of pendingAdds) expect(served.has(key) || !queue.has(key)).toBe(true);
        expect(queue.depth).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
