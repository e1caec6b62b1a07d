/**
 * One operator replica's view of the world, for leadership tests: its own wall clock (skewed by
 * `skewMs`, which may be stepped), a network that can be cut (`partitioned`), and a process that can
 * be paused as by SIGSTOP (`pause`: its timers, watch events and answers wait until `resume`; time
 * goes on meanwhile) or killed as by SIGKILL (`kill`: nothing of it ever runs again).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { clusterError, type Clock, type Cluster, type ClusterError } from '../../../core/internal.js';

export class Replica {
  partitioned = false;
  paused = false;
  killed = false;
  /** Writes that reached the API server (every kind, the Lease included), as `verb Kind name`. */
  readonly writes: string[] = [];
  private deferred: Array<() => void> = [];
  private held: Array<() => void> = [];
  readonly clock: Clock;
  readonly cluster: Cluster;

  constructor(
    shared: Clock,
    server: Cluster,
    public skewMs = 0,
  ) {
    this.clock = {
      now: () => shared.now() + this.skewMs,
      setTimer: (ms, callback) => shared.setTimer(ms, () => this.run(callback)),
      sleep: (ms) =>
        new Promise((resolve) => {
          shared.setTimer(ms, () => this.run(() => resolve()));
        }),
    };
    const call =
      <T>(write: string | undefined, task: TE.TaskEither<ClusterError, T>): TE.TaskEither<ClusterError, T> =>
      async () => {
        if (this.partitioned)
          return E.left(clusterError('Unavailable', 'connect ECONNREFUSED (partitioned)', { code: 0 }));
        if (write !== undefined) this.writes.push(write);
        const answer = await task();
        // A paused process sent its request before it stopped; it sees the answer when it resumes.
        if (!this.paused) return answer;
        // A killed process never sees its answers (the promise stays pending, as its code is gone).
        return new Promise((resolve) => {
          if (!this.killed) this.held.push(() => resolve(answer));
        });
      };
    this.cluster = {
      get: (ref) => call(undefined, server.get(ref)),
      list: (query) => call(undefined, server.list(query)),
      watch: (query, sink) =>
        server.watch(query, {
          event: (event) => this.run(() => sink.event(event)),
          closed: (error) => this.run(() => sink.closed(error)),
        }),
      scopeOf: (apiVersion, kind) => call(undefined, server.scopeOf(apiVersion, kind)),
      create: (object, options) =>
        call(`create ${object.kind} ${object.metadata.name}`, server.create(object, options)),
      update: (object, options) =>
        call(`update ${object.kind} ${object.metadata.name}`, server.update(object, options)),
      patch: (ref, patch, options) => call(`patch ${ref.kind} ${ref.name}`, server.patch(ref, patch, options)),
      delete: (ref, options) => call(`delete ${ref.kind} ${ref.name}`, server.delete(ref, options)),
      updateStatus: (object) =>
        call(`updateStatus ${object.kind} ${object.metadata.name}`, server.updateStatus(object)),
      patchStatus: (ref, patch) => call(`patchStatus ${ref.kind} ${ref.name}`, server.patchStatus(ref, patch)),
    };
  }

  pause(): void {
    this.paused = true;
  }

  /** SIGKILL: what it was waiting for never arrives; its open requests still reach the server. */
  kill(): void {
    this.killed = true;
    this.paused = true;
    this.deferred = [];
    this.held = [];
  }

  /**
   * SIGCONT: what waited arrives at once — timers and watch events first, or (`answersFirst`) the answers it was
   * waiting for.
   */
  resume(answersFirst = false): void {
    if (this.killed) return;
    this.paused = false;
    const work = answersFirst ? [...this.held, ...this.deferred] : [...this.deferred, ...this.held];
    this.deferred = [];
    this.held = [];
    for (const run of work) run();
  }

  private run(callback: () => void): void {
    if (this.killed) return;
    if (this.paused) this.deferred.push(callback);
    else callback();
  }
}

/**
 * Tells apart work started from different timer callbacks: each callback of `clock` runs in a fresh
 * async context that everything it starts inherits (awaits included). A leadership term's workers
 * start from the elector's timer, so every write they send carries that term's context number
 * (`current()`), whichever term is current when it is sent.
 */
export const timerContexts = (
  clock: Clock,
): { readonly clock: Clock; readonly current: () => number | undefined; run<T>(work: () => T): T } => {
  const storage = new AsyncLocalStorage<number>();
  let next = 0;
  return {
    clock: {
      now: () => clock.now(),
      setTimer: (ms, callback) => clock.setTimer(ms, () => storage.run(++next, callback)),
      sleep: (ms) => clock.sleep(ms),
    },
    current: () => storage.getStore(),
    run: (work) => storage.run(++next, work),
  };
};
