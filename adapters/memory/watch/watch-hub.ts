/**
 * Watch streams: each watcher has its own queue, delivered in order on a later microtask (never
 * inside the write that caused it), with periodic bookmarks and seeded event faults. `closed`
 * is called at most once and never after `stop()`.
 */
import type { Clock, WatchEvent, WatchHandle, WatchSink } from '../../../core/ports/cluster.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import type { HistoryEntry } from './event-history.js';
import { deepCopy } from '../json/index.js';
import { eventFor, type WatchScope } from './watch-filter.js';

/** What the seeded faults do to one event of a stream (decided by faults/fault-injector.ts). */
export type EventFaults = {
  readonly duplicate: boolean;
  readonly close: boolean;
  readonly expire: boolean;
};

export type StartOptions = { readonly allowBookmarks: boolean; readonly group: string; readonly kind: string };

/** A watch that is open for the client but not yet serving (request latency, checks). */
export type PendingWatch = {
  readonly handle: WatchHandle;
  start(scope: WatchScope, initial: ReadonlyArray<WatchEvent>, options: StartOptions): void;
  fail(error: ClusterError): void;
};

export type WatchHub = {
  open(sink: WatchSink): PendingWatch;
  publish(entry: HistoryEntry): void;
  /**
   * Connection loss (restart): queued events are lost; a sink that models a connection
   * (`connectionLost`, the HTTP endpoint) is cut as a TCP connection is, every other stream
   * closes with `error` (what an in-process client sees once it tries to resume).
   */
  closeAll(error: ClusterError): void;
  /** Compaction overtook every watcher: each stream delivers what it has, then ends with `error` (410 Gone). */
  expireAll(error: ClusterError): void;
  /** The kind is no longer served: streams deliver what they have, then end cleanly. */
  endKind(groupKind: string): void;
};

export type WatchHubDeps = {
  readonly clock: Clock;
  readonly bookmarkIntervalMs: number;
  readonly resourceVersion: () => number;
  readonly eventFaults: (group: string, kind: string) => EventFaults;
  /** An expire fault hit: the change log forgets every version so far (resuming from one is Gone). */
  readonly expired: () => ClusterError;
  /**
   * When the server ends a new watch of `group/kind` (its request timeout), undefined: never.
   * `serverPicks`: the watch is a connection whose client set no timeout of its own.
   */
  readonly serverTimeout: (group: string, kind: string, serverPicks: boolean) => number | undefined;
  /** The server ended a watch on its timeout (counted as a fault). */
  readonly timedOut: () => void;
};

type Watcher = {
  readonly sink: WatchSink;
  state: 'pending' | 'open' | 'closing' | 'done';
  queue: WatchEvent[];
  scheduled: boolean;
  error?: ClusterError;
  /** The connection was lost (restart): no final event, no clean end. */
  lost?: boolean;
  scope?: WatchScope;
  options?: StartOptions;
  cancelBookmarks?: () => void;
  cancelTimeout?: () => void;
};

/**
 * A sink behind a connection (the HTTP endpoint's): it can be cut instead of told why the stream
 * ended, and `serverPicksTimeout` when its client sent no `timeoutSeconds` (kube-apiserver then
 * ends it after its min-request-timeout with jitter). `serving` is called when the watch starts serving (its request
 * passed the server's faults and checks): until then a failure is the request's answer, not an event of the stream.
 */
export type ConnectionSink = WatchSink & {
  connectionLost(): void;
  readonly serverPicksTimeout: boolean;
  serving?(): void;
};

const servesAConnection = (sink: WatchSink): sink is WatchSink & Required<Pick<ConnectionSink, 'serving'>> =>
  'serving' in sink && typeof sink.serving === 'function';

const announceServing = (sink: WatchSink): void => {
  if (servesAConnection(sink)) sink.serving();
};

const serverPicksTimeout = (sink: WatchSink): boolean =>
  'serverPicksTimeout' in sink && sink.serverPicksTimeout === true;

const hasConnection = (sink: WatchSink): sink is WatchSink & Pick<ConnectionSink, 'connectionLost'> =>
  'connectionLost' in sink && typeof sink.connectionLost === 'function';

const cutConnection = (sink: WatchSink): boolean => {
  if (!hasConnection(sink)) return false;
  sink.connectionLost();
  return true;
};

const copyEvent = (event: WatchEvent): WatchEvent =>
  event.type === 'BOOKMARK' ? { ...event } : { type: event.type, object: deepCopy(event.object) };

/** Delivery of one watcher's queue on a later microtask, and its closing (at most one `closed`). */
type Delivery = {
  readonly enqueue: (watcher: Watcher, event: WatchEvent) => void;
  readonly close: (watcher: Watcher, error: ClusterError | undefined, dropQueued: boolean) => void;
};

const delivery = (watchers: Set<Watcher>): Delivery => {
  const drain = (watcher: Watcher): void => {
    watcher.scheduled = false;
    while (watcher.state !== 'done') {
      const event = watcher.queue.shift();
      if (event === undefined) break;
      watcher.sink.event(event);
    }
    if (watcher.state !== 'closing') return;
    watcher.state = 'done';
    watchers.delete(watcher);
    if (watcher.lost === true && cutConnection(watcher.sink)) return;
    if (watcher.error === undefined) watcher.sink.closed();
    else watcher.sink.closed(watcher.error);
  };
  const schedule = (watcher: Watcher): void => {
    if (watcher.scheduled) return;
    watcher.scheduled = true;
    queueMicrotask(() => drain(watcher));
  };
  return {
    enqueue: (watcher, event) => {
      if (watcher.state !== 'open') return;
      watcher.queue.push(event);
      schedule(watcher);
    },
    close: (watcher, error, dropQueued) => {
      if (watcher.state === 'closing' || watcher.state === 'done') return;
      watcher.cancelBookmarks?.();
      watcher.cancelTimeout?.();
      if (dropQueued) watcher.queue = [];
      watcher.state = 'closing';
      if (error !== undefined) watcher.error = error;
      schedule(watcher);
    },
  };
};

/** What happens to an open stream: events with their seeded faults, periodic bookmarks, the server's timeout. */
type Streams = Delivery & {
  readonly deliver: (watcher: Watcher, event: WatchEvent) => void;
  readonly armBookmarks: (watcher: Watcher) => void;
  readonly armTimeout: (watcher: Watcher, options: StartOptions) => void;
};

const streams = (deps: WatchHubDeps, watchers: Set<Watcher>): Streams => {
  const { enqueue, close } = delivery(watchers);
  const armBookmarks = (watcher: Watcher): void => {
    watcher.cancelBookmarks = deps.clock.setTimer(deps.bookmarkIntervalMs, () => {
      if (watcher.state !== 'open') return;
      enqueue(watcher, { type: 'BOOKMARK', resourceVersion: String(deps.resourceVersion()) });
      armBookmarks(watcher);
    });
  };
  const armTimeout = (watcher: Watcher, options: StartOptions): void => {
    const ms = deps.serverTimeout(options.group, options.kind, serverPicksTimeout(watcher.sink));
    if (ms === undefined || watcher.state !== 'open') return;
    watcher.cancelTimeout = deps.clock.setTimer(ms, () => {
      if (watcher.state !== 'open') return;
      deps.timedOut();
      close(watcher, undefined, false);
    });
  };
  const deliver = (watcher: Watcher, event: WatchEvent): void => {
    const { options } = watcher;
    // Only started watchers (they have options) are in `watchers`: an unstarted one gets no events.
    if (options === undefined) return;
    const faults = deps.eventFaults(options.group, options.kind);
    enqueue(watcher, event);
    if (faults.duplicate) enqueue(watcher, copyEvent(event));
    if (faults.close) close(watcher, undefined, false);
    if (faults.expire) close(watcher, deps.expired(), false);
  };
  return { enqueue, close, deliver, armBookmarks, armTimeout };
};

/** A new watcher, open for the client but serving nothing until `start`. */
const pendingWatch = (parts: Streams, watchers: Set<Watcher>, sink: WatchSink): PendingWatch => {
  const watcher: Watcher = { sink, state: 'pending', queue: [], scheduled: false };
  watchers.add(watcher);
  return {
    handle: {
      stop: () => {
        watcher.state = 'done';
        watcher.queue = [];
        watcher.cancelBookmarks?.();
        watcher.cancelTimeout?.();
        watchers.delete(watcher);
      },
    },
    start: (scope, initial, options) => {
      if (watcher.state !== 'pending') return;
      watcher.state = 'open';
      watcher.scope = scope;
      watcher.options = options;
      announceServing(watcher.sink);
      initial.forEach((event) => parts.deliver(watcher, event));
      // A close fault on an initial event may already have ended the stream.
      if (options.allowBookmarks && (watcher.state as Watcher['state']) === 'open') parts.armBookmarks(watcher);
      parts.armTimeout(watcher, options);
    },
    fail: (error) => parts.close(watcher, error, true),
  };
};

export const createWatchHub = (deps: WatchHubDeps): WatchHub => {
  const watchers = new Set<Watcher>();
  const parts = streams(deps, watchers);
  const { close } = parts;
  return {
    open: (sink) => pendingWatch(parts, watchers, sink),
    publish: (entry) => {
      for (const watcher of [...watchers]) {
        if (watcher.state !== 'open' || watcher.scope === undefined) continue;
        const event = eventFor(watcher.scope, entry);
        if (event !== undefined) parts.deliver(watcher, event);
      }
    },
    closeAll: (error) =>
      [...watchers].forEach((watcher) => {
        if (watcher.state === 'open' || watcher.state === 'pending') watcher.lost = true;
        close(watcher, error, true);
      }),
    expireAll: (error) => [...watchers].forEach((watcher) => close(watcher, error, false)),
    endKind: (groupKind) =>
      [...watchers].filter((w) => w.scope?.groupKind === groupKind).forEach((w) => close(w, undefined, false)),
  };
};
