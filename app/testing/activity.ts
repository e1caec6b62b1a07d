/**
 * What a controller is doing to the cluster right now, in real time: requests in flight, when
 * the last request and the last write arrived, what each write was. The cluster is wrapped, not
 * changed: the served endpoint calls the wrapper, so every HTTP request passes through it.
 */
import type { MemoryCluster } from '../../adapters/memory/index.js';
import { describeWrite } from './check-convergence.js';

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
};

type Task = () => Promise<unknown>;

const isTask = (value: unknown): value is Task => typeof value === 'function';

/** Wraps `cluster` so its calls are observed (a call returns a TaskEither: in flight while it runs). */
export const trackActivity = (cluster: MemoryCluster, now: () => number = () => performance.now()): Activity => {
  const writes: string[] = [];
  const seen = { inFlight: 0, lastRequestAt: -Infinity, lastWriteAt: -Infinity, writes };
  const observed =
    (task: Task): Task =>
    async () => {
      seen.inFlight++;
      try {
        return await task();
      } finally {
        seen.inFlight--;
      }
    };
  const proxy = new Proxy(cluster, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (!REQUESTS.includes(property)) return value.bind(target);
      return (...args: unknown[]): unknown => {
        seen.lastRequestAt = now();
        if (WRITES.includes(property)) {
          seen.lastWriteAt = now();
          seen.writes.push(describeWrite(String(property), args[0]));
        }
        const answer: unknown = Reflect.apply(value, target, args);
        return property !== 'watch' && isTask(answer) ? observed(answer) : answer;
      };
    },
  });
  return {
    cluster: proxy,
    inFlight: () => seen.inFlight,
    lastRequestAt: () => seen.lastRequestAt,
    lastWriteAt: () => seen.lastWriteAt,
    writes: () => [...seen.writes],
  };
};
