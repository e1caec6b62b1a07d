/**
 * The shared limiter on virtual time: grants are counted per window of the manual clock, so the
 * assertions are about how many requests start, never about how fast the machine is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LowPriorityRefused,
  createFlowControl,
  flowControlProblems,
} from '../../../adapters/kubernetes/flow-control.js';
import { ManualClock, flushMicrotasks } from '../../../adapters/memory/index.js';

/** The most grants in any window of `windowMs` starting at a grant (the busiest windows start at one). */
const busiestWindow = (times: ReadonlyArray<number>, windowMs: number): number => {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] ?? 0) < (sorted[i] ?? 0) + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
};

const runAll = async (clock: ManualClock, until: () => boolean, stepMs = 10): Promise<void> => {
  for (let guard = 0; !until() && guard < 1_000_000; guard++) await clock.advance(stepMs);
};

describe('flow control', () => {
  it('starts at most burst + qps·t requests in any t seconds, and reaches that rate', async () => {
    const clock = new ManualClock();
    const flow = createFlowControl({ qps: 10, burst: 5, maxInFlight: 1_000, clock });
    const started: number[] = [];
    const requests = Array.from({ length: 120 }, () => flow.request(async () => started.push(clock.now())));
    await runAll(clock, () => started.length === requests.length);
    await Promise.all(requests);
    const start = Date.UTC(2025, 0, 1);
    for (const windowMs of [100, 1_000, 5_000])
      expect(busiestWindow(started, windowMs)).toBeLessThanOrEqual(5 + windowMs / 100);
    // The burst goes at once; the rest follow at the refill rate: the last of 120 after (120 - 5) / 10 s.
    expect(started.filter((t) => t === start)).toHaveLength(5);
    expect(Math.max(...started) - start).toBeLessThanOrEqual(11_500 + 10);
    expect(Math.max(...started) - start).toBeGreaterThanOrEqual(11_500);
  });

  it('holds the bound for any arrival pattern, qps and burst', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 80 }),
        async (qps, burst, arrivals) => {
          const clock = new ManualClock();
          const flow = createFlowControl({ qps, burst, maxInFlight: 1_000, clock });
          const started: number[] = [];
          const sorted = [...arrivals].sort((a, b) => a - b);
          const pending: Array<Promise<unknown>> = [];
          let previous = 0;
          for (const at of sorted) {
            await clock.advance(at - previous);
            previous = at;
            pending.push(flow.request(async () => started.push(clock.now())));
          }
          await runAll(clock, () => started.length === arrivals.length, 50);
          await Promise.all(pending);
          for (const windowMs of [1, 500, 1_000, 4_000])
            expect(busiestWindow(started, windowMs)).toBeLessThanOrEqual(burst + Math.ceil((qps * windowMs) / 1_000));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps at most maxInFlight requests unanswered, queues the rest in order, and counts both', async () => {
    const clock = new ManualClock();
    const waits: number[] = [];
    const flow = createFlowControl({ qps: 1_000, burst: 1_000, maxInFlight: 3, clock, onWait: (ms) => waits.push(ms) });
    const answers: Array<() => void> = [];
    const order: number[] = [];
    const requests = Array.from({ length: 8 }, (_, index) =>
      flow.request(
        () =>
          new Promise<void>((resolve) => {
            order.push(index);
            answers.push(resolve);
          }),
      ),
    );
    await flushMicrotasks();
    expect(flow.stats()).toEqual({ queued: 5, inFlight: 3 });
    expect(order).toEqual([0, 1, 2]);
    await clock.advance(250);
    answers.shift()?.();
    await flushMicrotasks();
    expect(flow.stats()).toEqual({ queued: 4, inFlight: 3 });
    expect(order).toEqual([0, 1, 2, 3]);
    while (answers.length > 0) {
      answers.shift()?.();
      await flushMicrotasks();
    }
    await Promise.all(requests);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(flow.stats()).toEqual({ queued: 0, inFlight: 0 });
    // The first three went at once; the fourth waited the 250 ms its slot was taken.
    expect(waits.slice(0, 4)).toEqual([0, 0, 0, 250]);
  });

  it('frees the slot of a request that fails', async () => {
    const flow = createFlowControl({ qps: 100, burst: 10, maxInFlight: 1, clock: new ManualClock() });
    await expect(flow.request(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await expect(flow.request(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(flow.stats()).toEqual({ queued: 0, inFlight: 0 });
  });

  it('makes watch starts take tokens without holding a slot', async () => {
    const clock = new ManualClock();
    const flow = createFlowControl({ qps: 2, burst: 1, maxInFlight: 1, clock });
    let hanging: (() => void) | undefined;
    const held = flow.request(() => new Promise<void>((resolve) => (hanging = resolve)));
    await flushMicrotasks();
    let watched = false;
    void flow.token().then(() => (watched = true));
    await flushMicrotasks();
    expect(flow.stats()).toEqual({ queued: 1, inFlight: 1 });
    await clock.advance(499);
    expect(watched).toBe(false);
    await clock.advance(1);
    expect(watched).toBe(true);
    hanging?.();
    await held;
  });

  it('rejects settings that would stop or unbound the client, naming each', () => {
    expect(flowControlProblems({ qps: 0, burst: 1.5, maxInFlight: 0, maxLowPriorityQueued: -1 })).toEqual([
      'qps 0: must be a number above 0',
      'burst 1.5: must be an integer ≥ 1',
      'max in flight 0: must be an integer ≥ 1',
      'max low-priority queued -1: must be an integer ≥ 0',
    ]);
    expect(flowControlProblems({ qps: 0.5, burst: 1, maxInFlight: 1, maxLowPriorityQueued: 0 })).toEqual([]);
    expect(() => createFlowControl({ qps: Number.NaN })).toThrow('flow control: qps NaN: must be a number above 0');
  });
});

describe('flow control: the low-priority lane (Events)', () => {
  /** A request that notes `name` when it is sent, at which virtual time. */
  const noting =
    (clock: ManualClock, sent: Array<readonly [string, number]>, name: string) => async (): Promise<string> => {
      sent.push([name, clock.now()]);
      return name;
    };

  it('gives tokens to waiting normal requests first, even those queued after a low one; low ones follow once none wait', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const flow = createFlowControl({ qps: 10, burst: 1, maxInFlight: 100, clock });
    const sent: Array<readonly [string, number]> = [];
    const requests = [
      flow.request(noting(clock, sent, 'normal-1')),
      flow.request(noting(clock, sent, 'low-1'), 'low'),
      flow.request(noting(clock, sent, 'normal-2')),
      flow.request(noting(clock, sent, 'normal-3')),
      flow.request(noting(clock, sent, 'low-2'), 'low'),
    ];
    await runAll(clock, () => sent.length === requests.length);
    await Promise.all(requests);
    expect(sent.map(([name, at]) => [name, at - start])).toEqual([
      ['normal-1', 0],
      ['normal-2', 100],
      ['normal-3', 200],
      ['low-1', 300],
      ['low-2', 400],
    ]);
    // Idle again: a low request with a whole token and a free slot goes at once.
    await clock.advance(1_000);
    await expect(flow.request(noting(clock, sent, 'low-3'), 'low')).resolves.toBe('low-3');
    expect(sent.at(-1)).toEqual(['low-3', start + 1_400]);
  });

  it('gives a freed in-flight slot to a waiting normal request before a low one queued earlier', async () => {
    const clock = new ManualClock();
    const flow = createFlowControl({ qps: 1_000, burst: 1_000, maxInFlight: 1, clock });
    const order: string[] = [];
    const answers: Array<() => void> = [];
    const held = (name: string) => () =>
      new Promise<void>((resolve) => {
        order.push(name);
        answers.push(resolve);
      });
    const requests = [
      flow.request(held('normal-1')),
      flow.request(held('low-1'), 'low'),
      flow.request(held('normal-2')),
    ];
    await flushMicrotasks();
    expect(flow.stats()).toEqual({ queued: 2, inFlight: 1 });
    while (order.length < 3 || answers.length > 0) {
      answers.shift()?.();
      await flushMicrotasks();
    }
    await Promise.all(requests);
    expect(order).toEqual(['normal-1', 'normal-2', 'low-1']);
    expect(flow.stats()).toEqual({ queued: 0, inFlight: 0 });
  });

  it('refuses the low request one past maxLowPriorityQueued at once, unsent; the waiting ones still go', async () => {
    const clock = new ManualClock();
    const flow = createFlowControl({ qps: 1, burst: 1, maxInFlight: 10, maxLowPriorityQueued: 3, clock });
    const sent: Array<readonly [string, number]> = [];
    const normal = flow.request(noting(clock, sent, 'normal'));
    const waiting = [1, 2, 3].map((n) => flow.request(noting(clock, sent, `low-${n}`), 'low'));
    let refusal: unknown;
    await flow.request(noting(clock, sent, 'low-4'), 'low').catch((error: unknown) => (refusal = error));
    expect(refusal).toBeInstanceOf(LowPriorityRefused);
    expect(String(refusal)).toContain('3 low-priority requests already wait');
    expect(flow.stats().queued).toBe(3);
    await runAll(clock, () => sent.length === 4);
    await Promise.all([normal, ...waiting]);
    expect(sent.map(([name]) => name)).toEqual(['normal', 'low-1', 'low-2', 'low-3']);
    // The lane drained: room again, and a whole token a second later.
    await clock.advance(1_000);
    await expect(flow.request(noting(clock, sent, 'low-5'), 'low')).resolves.toBe('low-5');
  });

  it('with no room for waiters, sends a low request only if it can go at once', async () => {
    const clock = new ManualClock();
    const flow = createFlowControl({ qps: 1, burst: 1, maxInFlight: 10, maxLowPriorityQueued: 0, clock });
    const sent: Array<readonly [string, number]> = [];
    await expect(flow.request(noting(clock, sent, 'low-1'), 'low')).resolves.toBe('low-1');
    await expect(flow.request(noting(clock, sent, 'low-2'), 'low')).rejects.toBeInstanceOf(LowPriorityRefused);
    expect(sent.map(([name]) => name)).toEqual(['low-1']);
  });

  it('holds burst + qps·t over both lanes together, and sends every low request once the normal ones are done', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 3_000 }), low: fc.boolean() }), {
          minLength: 1,
          maxLength: 80,
        }),
        async (qps, burst, arrivals) => {
          const clock = new ManualClock();
          const flow = createFlowControl({ qps, burst, maxInFlight: 1_000, clock });
          const started: number[] = [];
          const sorted = [...arrivals].sort((a, b) => a.at - b.at);
          const pending: Array<Promise<unknown>> = [];
          let previous = 0;
          for (const { at, low } of sorted) {
            await clock.advance(at - previous);
            previous = at;
            pending.push(flow.request(async () => started.push(clock.now()), low ? 'low' : 'normal'));
          }
          await runAll(clock, () => started.length === arrivals.length, 50);
          expect(started).toHaveLength(arrivals.length);
          await Promise.all(pending);
          for (const windowMs of [1, 500, 1_000, 4_000])
            expect(busiestWindow(started, windowMs)).toBeLessThanOrEqual(burst + Math.ceil((qps * windowMs) / 1_000));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('counts low requests waiting as queued, and tells onWait how long each waited', async () => {
    const clock = new ManualClock();
    const waits: number[] = [];
    const flow = createFlowControl({ qps: 10, burst: 1, maxInFlight: 10, clock, onWait: (ms) => waits.push(ms) });
    const requests = [flow.request(async () => 'normal'), flow.request(async () => 'low', 'low')];
    await flushMicrotasks();
    expect(flow.stats()).toEqual({ queued: 1, inFlight: 0 });
    await clock.advance(100);
    await Promise.all(requests);
    expect(waits).toEqual([0, 100]);
    expect(flow.stats()).toEqual({ queued: 0, inFlight: 0 });
  });
});
