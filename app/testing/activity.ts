/**
 * What a controller is doing to the cluster right now, in real time: requests in flight, when
 * the last request and the last write arrived, what each write was. The cluster is wrapped, not
 * changed: the served endpoint calls the wrapper, so every HTTP request passes through it.
 */
import type { MemoryCluster } from '../../adapters/memory/index.js';
import { describeWrite } from './check-convergence.js';
import { outcome } from './request-scheduler.js';

const WRITES: ReadonlyArray<PropertyKey> = ['create', 'update', 'patch', 'delete', 'updateStatus', 'patchStatus'];
const REQUESTS: ReadonlyArray<PropertyKey> = [...WRITES, 'get', 'list', 'watch', 'scopeOf'];

export type Activity = {
  /** The cluster the endpoint serves: every request through it is tracked. */
  readonly cluster: MemoryCluster;
  inFlight(): number;
  /** Real time (performance.now) of the last request and the last write; -Infinity before any. */
  lastRequestAt(): number;
  lastWriteAt(): number;
  /** Every write so far, named (`patch v1 ConfigMap default/a`). */
  writes(): ReadonlyArray<string>;
  /** Every answered call, named with its answer (`get v1 Secret ns/a → NotFound`), in the order answered. */
  trace(): ReadonlyArray<string>;
  /** The most calls in flight at once so far (above 1: the controller sends them concurrently). */
  mostInFlight(): number;
};

type Task = () => Promise<unknown>;

/**
 * Told of each write as it arrives (`index` 1-based, over the run): what it returns runs once the
 * server has answered the write, before the answer goes back (the kit kills the controller there).
 */
export type WriteHook = (index: number, label: string) => (() => Promise<void>) | undefined;

const isTask = (value: unknown): value is Task => typeof value === 'function';

/** What the tracker has seen so far. */
type Seen = {
  inFlight: number;
  mostInFlight: number;
  lastRequestAt: number;
  lastWriteAt: number;
  readonly writes: string[];
  readonly trace: string[];
};

/** `task`, counted in flight while it runs, its answer traced; `beforeAnswer` runs before the answer goes back. */
const observed =
  (seen: Seen, task: Task, label: string, beforeAnswer?: () => Promise<void>): Task =>
  async () => {
    seen.inFlight++;
    seen.mostInFlight = Math.max(seen.mostInFlight, seen.inFlight);
    try {
      const answer = await task();
      seen.trace.push(`${label} → ${outcome(answer)}`);
      await beforeAnswer?.();
      return answer;
    } finally {
      seen.inFlight--;
    }
  };

/** Wraps `cluster` so its calls are observed (a call returns a TaskEither: in flight while it runs). */
export const trackActivity = (
  cluster: MemoryCluster,
  now: () => number = () => performance.now(),
  onWrite: WriteHook = () => undefined,
): Activity => {
  const seen: Seen = {
    inFlight: 0,
    mostInFlight: 0,
    lastRequestAt: -Infinity,
    lastWriteAt: -Infinity,
    writes: [],
    trace: [],
  };
  const proxy = new Proxy(cluster, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (!REQUESTS.includes(property)) {
        const bound: unknown = value.bind(target);
        return bound;
      }
      return (...args: unknown[]): unknown => {
        seen.lastRequestAt = now();
        const label =
          property === 'scopeOf' ? `discover ${args.map(String).join(' ')}` : describeWrite(String(property), args[0]);
        const write = WRITES.includes(property);
        if (write) seen.lastWriteAt = now();
        const beforeAnswer = write ? onWrite(seen.writes.push(label), label) : undefined;
        const answer: unknown = Reflect.apply(value, target, args);
        return property !== 'watch' && isTask(answer) ? observed(seen, answer, label, beforeAnswer) : answer;
      };
    },
  });
  return {
    cluster: proxy,
    inFlight: () => seen.inFlight,
    lastRequestAt: () => seen.lastRequestAt,
    lastWriteAt: () => seen.lastWriteAt,
    writes: () => [...seen.writes],
    trace: () => [...seen.trace],
    mostInFlight: () => seen.mostInFlight,
  };
};
