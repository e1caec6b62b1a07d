/**
 * A bounded pool of isolated workers (isolated-worker.ts) answering jobs one at a time each, for
 * many owners (Applications) fairly: each owner has its own queue and the queues take turns, so an
 * owner with many or slow jobs delays another's by at most one job per worker. A worker that hits
 * a bound or crashes is terminated and replaced when next needed; deadlines count from the
 * moment a worker has loaded, never from its start.
 */
import type { Worker } from 'node:worker_threads';
import { ask, listen, spawnIsolated, type IsolationLimits, type Outcome } from './isolated-worker.js';

export type PoolOptions<A> = {
  readonly entry: URL;
  readonly limits: IsolationLimits;
  /** Workers at most (each one thread, one job at a time). */
  readonly size: number;
  /** The worker's message as an answer (decoded where it enters). */
  readonly decode: (message: unknown) => A;
  /** What a worker says once it has loaded. */
  readonly ready: unknown;
};

type Pending<A> = { readonly job: unknown; readonly resolve: (outcome: Outcome<A>) => void };

/** How long a worker may take to load its code (tsx compiling the sources is the slow case). */
const STARTUP_MS = 60_000;

export class WorkerPool<A> {
  private readonly idle: Array<Worker> = [];
  private running = 0;
  private readonly queues = new Map<string, Array<Pending<A>>>();
  private closed = false;

  constructor(private readonly options: PoolOptions<A>) {}

  /** Runs `job` for `owner` when a worker is free and its turn comes. Never rejects. */
  run(owner: string, job: unknown): Promise<Outcome<A>> {
    if (this.closed) return Promise.resolve({ _tag: 'Crashed', why: 'the pool is closed' });
    return new Promise((resolve) => {
      const queue = this.queues.get(owner) ?? [];
      queue.push({ job, resolve });
      this.queues.set(owner, queue);
      this.dispatch();
    });
  }

  /** Workers loaded or running a job (for tests and metrics). */
  get workers(): number {
    return this.idle.length + this.running;
  }

  /** Terminates every idle worker; running jobs end with their workers. Jobs still queued end `Crashed`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values())
      for (const pending of queue) pending.resolve({ _tag: 'Crashed', why: 'the pool is closed' });
    this.queues.clear();
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }

  /** The next job in turn: the first owner's, whose queue then goes to the back (Map keeps insertion order). */
  private next(): Pending<A> | undefined {
    for (const [owner, queue] of this.queues) {
      const pending = queue.shift();
      this.queues.delete(owner);
      if (queue.length > 0) this.queues.set(owner, queue);
      if (pending !== undefined) return pending;
    }
    return undefined;
  }

  private dispatch(): void {
    while (!this.closed && this.running < this.options.size && this.queues.size > 0) {
      const pending = this.next();
      if (pending === undefined) return;
      this.running += 1;
      void this.execute(pending);
    }
  }

  private async execute(pending: Pending<A>): Promise<void> {
    const worker = this.idle.pop() ?? (await this.started());
    const outcome =
      worker === undefined
        ? ({ _tag: 'Crashed', why: 'the worker did not start' } as const)
        : await ask(worker, pending.job, this.options.limits.timeoutMs, this.options.decode);
    this.running -= 1;
    // A worker that hit a bound or crashed is gone (`ask` terminated it): the next job starts a new one.
    if (worker !== undefined && outcome._tag === 'Answered' && !this.closed) this.idle.push(worker);
    else if (worker !== undefined && outcome._tag === 'Answered') void worker.terminate();
    pending.resolve(outcome);
    this.dispatch();
  }

  /** A new worker once it says it has loaded, or undefined when it does not within `STARTUP_MS`. */
  private async started(): Promise<Worker | undefined> {
    const worker = spawnIsolated(this.options.entry, this.options.limits);
    const loaded = await listen(worker, STARTUP_MS, (message) => message === this.options.ready);
    if (loaded._tag === 'Answered' && loaded.answer) {
      // An idle worker keeps no process alive; one that exits (killed from outside) is dropped, never handed a job.
      worker.unref();
      worker.once('exit', () => {
        const at = this.idle.indexOf(worker);
        if (at >= 0) this.idle.splice(at, 1);
      });
      return worker;
    }
    void worker.terminate();
    return undefined;
  }
}
