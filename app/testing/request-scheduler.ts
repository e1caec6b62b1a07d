/**
 * A deterministic scheduler of one controller's requests: every call the controller sends (over
 * the served endpoint) is held until the kit releases it, one at a time, chosen by a seeded draw
 * among the held calls sorted by what they are (verb, object, body), never by when their bytes
 * happened to arrive. With the controller's timers on the manual clock, a seed and path then
 * replay the same interleaving, hence the same faults. Guide: docs/testing.md, "Replays".
 */
import type { MemoryCluster } from '../../adapters/memory/index.js';
import { mulberry32 } from '../../adapters/memory/faults/prng.js';
import type { WatchHandle, WatchQuery, WatchSink } from '../../core/ports/cluster.js';
import { describeWrite } from './check-convergence.js';

const WRITES: ReadonlyArray<PropertyKey> = ['create', 'update', 'patch', 'delete', 'updateStatus', 'patchStatus'];
const CALLS: ReadonlyArray<PropertyKey> = [...WRITES, 'get', 'list', 'scopeOf'];

export type RequestScheduler = {
  /** The cluster the endpoint serves: the controller's calls through it are held until released. */
  readonly cluster: MemoryCluster;
  /** Calls held, not yet released. */
  held(): number;
  /** The most calls held at once so far. */
  mostHeld(): number;
  /** Calls released and not answered yet (waiting on injected latency, on the manual clock). */
  running(): number;
  /** Real time (performance.now) a call last arrived or was answered. */
  lastActivityAt(): number;
  /** How many times a call arrived or was answered so far (moves whenever the controller is active). */
  activity(): number;
  /** Releases one held call (the seeded choice); false when none is held. */
  releaseNext(): boolean;
  /** Every released call in release order, with its answer once it has one (`get v1 Secret ns/a → NotFound`). */
  trace(): ReadonlyArray<string>;
  /** Every write released so far, named. */
  writes(): ReadonlyArray<string>;
  /** From now on nothing is released: the run is over and its controller is left waiting. */
  freeze(): void;
  /**
   * The controller's instance crashed: its held calls are dropped, and from now on nothing it
   * sends is held, no answer and no watch event reaches it (a crashed process hears nothing).
   */
  kill(): void;
  /** The cluster for the controller's next instance (served on an endpoint of its own): its calls are held again. */
  nextInstance(): MemoryCluster;
};

type Held = { readonly key: string; readonly label: string; readonly release: () => void };

/**
 * Told of each write once the server answered it, before the answer goes to the live instance
 * that sent it (`index` 1-based, in release order over the run): the kit may kill the instance there.
 */
export type AnsweredWrite = (index: number, label: string) => void;

/** A stable text of a call's arguments, so two calls sort the same on every run. */
const argumentsKey = (args: ReadonlyArray<unknown>): string => {
  try {
    return JSON.stringify(args.filter((arg) => typeof arg !== 'function')) ?? '';
  } catch {
    return '';
  }
};

const watchLabel = (query: WatchQuery): string =>
  `watch ${query.apiVersion} ${query.kind} ${query.namespace ?? '*'} from ${query.resourceVersion ?? 'now'}`;

/** An answer as the cluster gives it (an Either), named: `ok`, `NotFound` for a read that found nothing, or the
 * error's tag (`Conflict`). */
export const outcome = (answer: unknown): string => {
  const field = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
  const tag = field(field(answer, 'left'), '_tag');
  if (typeof tag === 'string') return tag;
  // A read of an absent object answers `none` (absence is not an error on reads): on the wire a 404.
  return field(field(answer, 'right'), '_tag') === 'None' ? 'NotFound' : 'ok';
};

/** What one scheduler holds and has seen; its own, never shared between schedulers. */
type Holding = {
  readonly answeredWrite: AnsweredWrite;
  readonly held: Held[];
  readonly trace: string[];
  readonly writes: string[];
  readonly seen: {
    running: number;
    lastActivityAt: number;
    frozen: boolean;
    mostHeld: number;
    activity: number;
    /** The live instance of the controller; an instance whose number is below it crashed. */
    instance: number;
  };
};

const newHolding = (answeredWrite: AnsweredWrite): Holding => ({
  answeredWrite,
  held: [],
  trace: [],
  writes: [],
  seen: { running: 0, lastActivityAt: performance.now(), frozen: false, mostHeld: 0, activity: 0, instance: 0 },
});

/** Holds one call; `run` gets its index in the trace once it is released. */
const hold = (holding: Holding, key: string, label: string, run: (index: number) => void): void => {
  const { held, trace, seen } = holding;
  seen.lastActivityAt = performance.now();
  seen.activity++;
  held.push({ key, label, release: () => run(trace.push(label) - 1) });
  seen.mostHeld = Math.max(seen.mostHeld, held.length);
};

/** A held request/response call: sent when released, its answer written into the trace. */
const heldCall =
  (holding: Holding, instance: number, property: string, task: () => Promise<unknown>, args: ReadonlyArray<unknown>) =>
  (): Promise<unknown> =>
    new Promise((resolve) => {
      const { trace, writes, seen } = holding;
      // a crashed instance's call is never answered
      if (seen.instance !== instance) return;
      const label =
        property === 'scopeOf' ? `discover ${args.map(String).join(' ')}` : describeWrite(property, args[0]);
      hold(holding, `${label} ${argumentsKey(args)}`, label, (index) => {
        const written = WRITES.includes(property) ? writes.push(label) : undefined;
        seen.running++;
        const answered = task();
        answered
          .then(
            (answer) => {
              trace[index] = `${label} → ${outcome(answer)}`;
              if (seen.instance === instance && written !== undefined) holding.answeredWrite(written, label);
              // not when the kit killed the instance on this write
              if (seen.instance === instance) resolve(answer);
            },
            // settled with the task itself: it rejects the call with the task's own reason
            () => seen.instance === instance && resolve(answered),
          )
          .finally(() => {
            seen.running--;
            seen.lastActivityAt = performance.now();
            seen.activity++;
          });
      });
    });

/** A held watch: opened when released, unless the controller stopped it while it waited. */
const heldWatch =
  (holding: Holding, cluster: MemoryCluster, instance: number) =>
  (query: WatchQuery, sink: WatchSink): WatchHandle => {
    const state: { handle?: WatchHandle; stopped: boolean } = { stopped: false };
    const label = watchLabel(query);
    const alive = (): boolean => holding.seen.instance === instance;
    // what the stream sends a crashed instance is lost
    const guarded: WatchSink = {
      event: (event) => alive() && sink.event(event),
      closed: (error) => alive() && sink.closed(error),
    };
    if (alive())
      hold(holding, `${label} ${argumentsKey([query])}`, label, () => {
        if (!state.stopped) state.handle = cluster.watch(query, guarded);
      });
    return {
      stop: () => {
        state.stopped = true;
        state.handle?.stop();
      },
    };
  };

/** `cluster` with its calls and watches held; every other property passes through. */
const holdingCluster = (cluster: MemoryCluster, holding: Holding, instance: number): MemoryCluster =>
  new Proxy(cluster, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'watch') return heldWatch(holding, cluster, instance);
      if (!CALLS.includes(property)) {
        const bound: unknown = value.bind(target);
        return bound;
      }
      return (...args: unknown[]): unknown => {
        const answer: unknown = Reflect.apply(value, target, args);
        return typeof answer === 'function'
          ? heldCall(
              holding,
              instance,
              String(property),
              // the TaskEither the cluster answered with, run as `answer()` runs it (no `this`)
              () => Promise.resolve<unknown>(Reflect.apply(answer, undefined, [])),
              args,
            )
          : answer;
      };
    },
  });

/** Holds `cluster`'s calls for a seeded, one-at-a-time release; `answeredWrite` is told of each answered write. */
export const scheduleRequests = (
  cluster: MemoryCluster,
  seed: number,
  answeredWrite: AnsweredWrite = () => undefined,
): RequestScheduler => {
  const random = mulberry32(seed ^ 0x2545f491);
  const holding = newHolding(answeredWrite);
  const { held, trace, writes, seen } = holding;
  return {
    cluster: holdingCluster(cluster, holding, 0),
    held: () => held.length,
    mostHeld: () => seen.mostHeld,
    running: () => seen.running,
    lastActivityAt: () => seen.lastActivityAt,
    activity: () => seen.activity,
    releaseNext: () => {
      if (seen.frozen || held.length === 0) return false;
      // Sorted by what the calls are, never by when they arrived, so a seed replays the same choice.
      held.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const [chosen] = held.splice(Math.floor(random() * held.length), 1);
      chosen?.release();
      return chosen !== undefined;
    },
    trace: () => [...trace],
    writes: () => [...writes],
    freeze: () => {
      seen.frozen = true;
    },
    kill: () => {
      seen.instance++;
      held.length = 0;
    },
    nextInstance: () => holdingCluster(cluster, holding, seen.instance),
  };
};
