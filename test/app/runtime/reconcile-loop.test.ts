/**
 * The reconcile loop alone, with virtual time: one reconcile per key at a time while other keys
 * run beside it, each outcome's next turn in the queue (backoff, the plan's delay, nothing),
 * keys not owned left alone, and the stop deadline after which writes in flight are refused.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  createMemoryCluster,
  flushMicrotasks,
  type MemoryCluster,
} from '../../../adapters/memory/index.js';
import type { ReconcileResult } from '../../../app/reconcile/reconcile-application.js';
import { silentLogger } from '../../../app/logging/logger.js';
import { NOT_OWNED, ReconcileLoop, type StepOutcome } from '../../../app/runtime/reconcile-loop.js';
import { requeueOf } from '../../../app/runtime/requeue.js';
import { WorkQueue } from '../../../app/runtime/work-queue.js';
import { fenced } from '../../../app/runtime/write-fence.js';
import {
  clusterError,
  decodeApplication,
  type Application,
  type Outcome,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf } from '../model/world.js';

/** Backoff without jitter: 100, 200, 400, … ms. */
const BACKOFF = { baseMs: 200, capMs: 60_000 };

type Call = { readonly key: string; readonly attempt: number; readonly at: number };

/**
 * What a script answers: a reconcile's result (its requeue decided as the applier does, by
 * `requeueOf` through `afterReconcile`), or an outcome that did nothing.
 */
type Scripted = ReconcileResult | Exclude<StepOutcome, { _tag: 'Reconciled' }>;

const outcomeOf = (scripted: Scripted): StepOutcome =>
  scripted._tag === 'NotOwned' || scripted._tag === 'Deferred'
    ? scripted
    : { _tag: 'Reconciled', requeue: requeueOf(scripted) };

const loopWith = (options: {
  readonly workers: number;
  readonly reconcile: (key: string, attempt: number) => Promise<Scripted>;
  readonly owns?: (key: string) => boolean;
}) => {
  const clock = new ManualClock(0);
  const queue = new WorkQueue(clock, { random: () => 0, backoff: BACKOFF });
  const refused: string[] = [];
  const calls: Call[] = [];
  const loop = new ReconcileLoop({
    queue,
    clock,
    logger: silentLogger,
    workers: options.workers,
    ownership: { owns: options.owns ?? (() => true), refused: (key) => refused.push(key) },
    reconcile: (key, attempt) => {
      calls.push({ key, attempt, at: clock.now() });
      return options.reconcile(key, attempt).then(outcomeOf);
    },
  });
  return { clock, queue, loop, refused, calls };
};

const application: Application = (() => {
  const decoded = decodeApplication(applicationOf({ namespace: 'default', name: 'shop', children: [] }));
  if (E.isLeft(decoded)) throw new Error('fixture does not decode');
  return decoded.right;
})();

/** A finished reconcile whose plan ends with `outcome` (and asks for `requeueAfterMs` when given). */
const done = (outcome: Outcome, requeueAfterMs?: number): ReconcileResult => ({
  _tag: 'Done',
  plan: { actions: [], status: {}, outcome, summary: { create: 0, patch: 0, delete: 0, conflict: 0 } },
  execution: { done: [], status: {}, application },
  statusWritten: false,
  status: {},
  ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
});

const AWAIT_CHANGE = done({ _tag: 'AwaitChange' });
const failed = (terminal: boolean, retryAfterMs?: number): ReconcileResult => ({
  _tag: 'Failed',
  error: clusterError('Internal', 'boom'),
  terminal,
  statusWritten: false,
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

/** Runs `ms` of virtual time in steps, letting the workers run in between. */
const run = async (clock: ManualClock, ms: number, step = 50): Promise<void> => {
  for (let t = 0; t < ms; t += step) {
    await flushMicrotasks();
    await clock.advance(step);
  }
  await flushMicrotasks();
};

/** A promise opened from outside. */
const gate = <T>() => {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

const configMap = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { written: 'yes' },
});

const exists = async (cluster: MemoryCluster, name: string): Promise<boolean> => {
  const read = await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name })();
  return E.isRight(read) && O.isSome(read.right);
};

describe('ReconcileLoop', () => {
  it('runs different keys side by side but never one key twice at once: a key queued while in flight runs again after it', async () => {
    const running = new Map<string, number>();
    let mostAtOnce = 0;
    const finish = new Map<string, Array<() => void>>();
    const { queue, loop, calls } = loopWith({
      workers: 3,
      reconcile: async (key) => {
        running.set(key, (running.get(key) ?? 0) + 1);
        mostAtOnce = Math.max(mostAtOnce, running.get(key) ?? 0);
        const finished = gate<void>();
        finish.set(key, [...(finish.get(key) ?? []), () => finished.open()]);
        await finished.promise;
        running.set(key, (running.get(key) ?? 0) - 1);
        return AWAIT_CHANGE;
      },
    });
    loop.start();
    queue.add('default/a');
    queue.add('default/b');
    await flushMicrotasks();
    expect([...loop.inFlight].sort()).toEqual(['default/a', 'default/b']);
    // A third worker is idle, and 'a' is queued again while it runs: the idle worker must not take it.
    queue.add('default/a');
    queue.add('default/a');
    await flushMicrotasks();
    expect(calls.map((c) => c.key)).toEqual(['default/a', 'default/b']);
    finish.get('default/a')?.shift()?.();
    await flushMicrotasks();
    expect(calls.map((c) => c.key)).toEqual(['default/a', 'default/b', 'default/a']);
    finish.get('default/a')?.shift()?.();
    finish.get('default/b')?.shift()?.();
    await flushMicrotasks();
    expect(loop.inFlight.size).toBe(0);
    expect(mostAtOnce).toBe(1);
    expect(loop.concurrentReconciles).toBe(0);
    expect(await loop.stop(0)).toBe(true);
  });

  it('a deferred reconcile frees its worker for other keys, its key queued again once what it waits for is ready, not counted as a failed attempt', async () => {
    const ready = gate<void>();
    let waiting = true;
    const { queue, loop, calls } = loopWith({
      workers: 1,
      reconcile: async (key) =>
        key === 'default/waits' && waiting ? { _tag: 'Deferred', until: ready.promise } : AWAIT_CHANGE,
    });
    loop.start();
    queue.add('default/waits');
    queue.add('default/other');
    await flushMicrotasks();
    // The one worker went on to the other key; the deferred one is neither queued nor in flight.
    expect(calls.map((c) => c.key)).toEqual(['default/waits', 'default/other']);
    expect([...loop.deferred]).toEqual(['default/waits']);
    expect(queue.depth).toBe(0);
    // Queued again meanwhile (an event): deferred again, still one wait.
    queue.add('default/waits');
    await flushMicrotasks();
    expect([...loop.deferred]).toEqual(['default/waits']);
    waiting = false;
    ready.open();
    await flushMicrotasks();
    expect(calls.map((c) => `${c.key}#${c.attempt}`)).toEqual([
      'default/waits#1',
      'default/other#1',
      'default/waits#1',
      'default/waits#1',
    ]);
    expect(loop.deferred.size).toBe(0);
    expect(await loop.stop(0)).toBe(true);
  });

  it('abandons reconciles still running at the stop deadline: their writes are refused, never sent', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const queue = new WorkQueue(clock, { random: () => 0 });
    const proceed = gate<void>();
    let write: E.Either<unknown, unknown> | undefined;
    const loop: ReconcileLoop = new ReconcileLoop({
      queue,
      clock,
      logger: silentLogger,
      workers: 1,
      ownership: { owns: () => true, refused: () => undefined },
      reconcile: async () => {
        await proceed.promise;
        write = await fenced(cluster, () => loop.mayWrite(), 'abandoned').create(configMap('late'))();
        return outcomeOf(AWAIT_CHANGE);
      },
    });
    loop.start();
    queue.add('default/shop');
    await flushMicrotasks();
    let stopped: boolean | undefined;
    void loop.stop(5_000).then((finished) => {
      stopped = finished;
    });
    await clock.advance(4_999);
    expect(stopped).toBeUndefined();
    expect(loop.mayWrite()).toBe(true);
    await clock.advance(1);
    await flushMicrotasks();
    expect(stopped).toBe(false);
    expect(loop.mayWrite()).toBe(false);
    proceed.open();
    await flushMicrotasks();
    await cluster.settle();
    expect(write !== undefined && E.isLeft(write)).toBe(true);
    expect(await exists(cluster, 'late')).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it('lets reconciles that finish before the deadline write, and resolves true with no timer left', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const queue = new WorkQueue(clock, { random: () => 0 });
    const loop: ReconcileLoop = new ReconcileLoop({
      queue,
      clock,
      logger: silentLogger,
      workers: 2,
      ownership: { owns: () => true, refused: () => undefined },
      reconcile: async (key) => {
        await clock.sleep(2_000);
        await fenced(cluster, () => loop.mayWrite(), 'abandoned').create(configMap(key.split('/')[1] ?? ''))();
        return outcomeOf(AWAIT_CHANGE);
      },
    });
    loop.start();
    queue.add('default/one');
    queue.add('default/two');
    await flushMicrotasks();
    let stopped: boolean | undefined;
    void loop.stop(5_000).then((finished) => {
      stopped = finished;
    });
    await run(clock, 2_000);
    expect(stopped).toBe(true);
    expect(loop.mayWrite()).toBe(true);
    expect(await exists(cluster, 'one')).toBe(true);
    expect(await exists(cluster, 'two')).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it("gives each key its next turn from the outcome: backoff after failures, the plan's delay, nothing after success or a terminal failure", async () => {
    const script = new Map<string, ReconcileResult[]>([
      ['default/flaky', [failed(false), failed(false), failed(false), AWAIT_CHANGE]],
      ['default/slow-api', [failed(false, 5_000), AWAIT_CHANGE]],
      ['default/waiting', [done({ _tag: 'RequeueAfter', ms: 30_000, reason: 'NotReady' }, 30_000), AWAIT_CHANGE]],
      ['default/stalled', [failed(true)]],
    ]);
    const { clock, queue, loop, calls } = loopWith({
      workers: 2,
      reconcile: async (key) => script.get(key)?.shift() ?? AWAIT_CHANGE,
    });
    loop.start();
    for (const key of script.keys()) queue.add(key);
    await run(clock, 120_000, 100);
    const of = (key: string) => calls.filter((c) => c.key === key).map(({ attempt, at }) => ({ attempt, at }));
    // Backoff 100, 200, 400 ms (no jitter), attempts counted since the last success.
    expect(of('default/flaky')).toEqual([
      { attempt: 1, at: 0 },
      { attempt: 2, at: 100 },
      { attempt: 3, at: 300 },
      { attempt: 4, at: 700 },
    ]);
    // Retry-After beats the (shorter) backoff.
    expect(of('default/slow-api')).toEqual([
      { attempt: 1, at: 0 },
      { attempt: 2, at: 5_000 },
    ]);
    // The plan's requeue, after a success: attempt 1 again.
    expect(of('default/waiting')).toEqual([
      { attempt: 1, at: 0 },
      { attempt: 1, at: 30_000 },
    ]);
    expect(of('default/stalled')).toEqual([{ attempt: 1, at: 0 }]);
    expect(queue.has('default/stalled')).toBe(false);
    expect(queue.attempts('default/flaky')).toBe(0);
    await loop.stop(0);
  });

  it('retries a kind the server does not serve yet soon, then less often, never later than the plan says', async () => {
    const unknownKind = done({ _tag: 'RequeueAfter', ms: 1_000, reason: 'UnknownKind' });
    const { clock, queue, loop, calls } = loopWith({ workers: 1, reconcile: async () => unknownKind });
    loop.start();
    queue.add('default/widget');
    await run(clock, 6_000, 50);
    const gaps = calls.slice(1).map((c, i) => c.at - (calls[i]?.at ?? 0));
    expect(gaps.slice(0, 5)).toEqual([100, 200, 400, 800, 1_000]);
    expect(gaps.every((gap) => gap <= 1_000)).toBe(true);
    await loop.stop(0);
  });

  it('never reconciles a key this replica does not own; keys refused (before or during a reconcile) are reported', async () => {
    let ownsShop = true;
    const { queue, loop, calls, refused } = loopWith({
      workers: 1,
      owns: (key) => key !== 'default/theirs' && (key !== 'default/shop' || ownsShop),
      reconcile: async (key) => {
        if (key === 'default/shop') {
          ownsShop = false;
          return NOT_OWNED;
        }
        return AWAIT_CHANGE;
      },
    });
    loop.start();
    queue.add('default/theirs');
    queue.add('default/shop');
    queue.add('default/mine');
    await flushMicrotasks();
    await flushMicrotasks();
    expect(calls.map((c) => c.key)).toEqual(['default/shop', 'default/mine']);
    expect(refused).toEqual(['default/theirs', 'default/shop']);
    queue.add('default/shop');
    await flushMicrotasks();
    expect(calls.map((c) => c.key)).toEqual(['default/shop', 'default/mine']);
    expect(refused).toEqual(['default/theirs', 'default/shop', 'default/shop']);
    await loop.stop(0);
  });

  it('a reconcile that crashes (a defect) is retried with backoff while the worker goes on with other keys', async () => {
    let crashes = 1;
    const { clock, queue, loop, calls } = loopWith({
      workers: 1,
      reconcile: async (key) => {
        if (key === 'default/buggy' && crashes-- > 0) throw new Error('defect');
        return AWAIT_CHANGE;
      },
    });
    loop.start();
    queue.add('default/buggy');
    queue.add('default/fine');
    await run(clock, 1_000);
    expect(calls.map(({ key, attempt, at }) => `${key}#${attempt}@${at}`)).toEqual([
      'default/buggy#1@0',
      'default/fine#1@0',
      'default/buggy#2@100',
    ]);
    await loop.stop(0);
  });
});
