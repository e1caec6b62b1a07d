/**
 * Client-side flow control towards the API server: one token bucket (`qps` refill, `burst`
 * capacity) and one bound on requests in flight, shared by every client the adapter makes
 * (the operator's own, discovery, and every impersonating client), so a process never sends
 * more than `burst + qps·t` requests in any `t` seconds, whoever it acts as.
 *
 * A request first waits for an in-flight slot (FIFO), then for its token: taking the token last
 * keeps the starts paced even after a stall of the server has queued many requests behind the
 * slots (taking it first would let them all start at once when the slots free up). Watches hold
 * a connection for minutes: they take a token to start but no in-flight slot, as in client-go.
 *
 * Time comes from the injected clock, so tests count grants per virtual second instead of timing.
 */
import type { Watch } from '@kubernetes/client-node';
import type { Clock } from '../../core/ports/cluster.js';

export type FlowControlSettings = {
  /** Sustained requests per second (token refill rate); > 0. */
  readonly qps: number;
  /** Requests allowed at once after a quiet period (bucket size); an integer ≥ 1. */
  readonly burst: number;
  /** Requests (watches excluded) waiting for an answer at once; an integer ≥ 1. */
  readonly maxInFlight: number;
};

export type FlowControlOptions = Partial<FlowControlSettings> & {
  /** Where time comes from (default: wall time and host timers). */
  readonly clock?: Pick<Clock, 'now' | 'setTimer'>;
  /** Told how long each request waited before it was sent (ms, 0 when not held back): for metrics. */
  readonly onWait?: (waitedMs: number) => void;
};

/**
 * Twice controller-runtime's 20/30, which throttles an operator of a few hundred Applications,
 * and the defaults of Argo CD (50/100) and close to Flux's (50/300): a tenth of what one API
 * server admits by default (--max-requests-inflight 400), so several operators can share it.
 */
export const DEFAULT_FLOW_CONTROL: FlowControlSettings = { qps: 50, burst: 100, maxInFlight: 32 };

export type FlowControlStats = {
  /** Requests and watch starts waiting for a slot or a token now. */
  readonly queued: number;
  /** Requests sent and not yet answered. */
  readonly inFlight: number;
};

export type FlowControl = {
  readonly settings: FlowControlSettings;
  /** Runs `send` once a slot and a token are free; the slot is held until it settles. */
  request<A>(send: () => Promise<A>): Promise<A>;
  /** Resolves once a token is free (watch starts). */
  token(): Promise<void>;
  stats(): FlowControlStats;
};

/** What is wrong with the settings, if anything (one line each, naming the setting). */
export const flowControlProblems = (settings: FlowControlSettings): ReadonlyArray<string> => [
  ...(Number.isFinite(settings.qps) && settings.qps > 0 ? [] : [`qps ${settings.qps}: must be a number above 0`]),
  ...(Number.isInteger(settings.burst) && settings.burst >= 1
    ? []
    : [`burst ${settings.burst}: must be an integer ≥ 1`]),
  ...(Number.isInteger(settings.maxInFlight) && settings.maxInFlight >= 1
    ? []
    : [`max in flight ${settings.maxInFlight}: must be an integer ≥ 1`]),
];

// Not unref'd (unlike watch reconnect timers): a request waiting for its token is work the
// process still has to do, e.g. a CLI plan's last read.
const hostClock: Pick<Clock, 'now' | 'setTimer'> = {
  now: () => Date.now(),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};

/**
 * A token bucket by reservation (golang.org/x/time/rate's model, as client-go uses): every caller
 * takes a token at once, possibly driving the count below zero, and waits until the refill has
 * paid its debt. Grants are thus due in call order, at most `burst + qps·t` in any `t` seconds.
 */
const tokenBucket = (settings: FlowControlSettings, now: () => number): (() => number) => {
  let tokens = settings.burst;
  let last = now();
  return () => {
    const at = now();
    tokens = Math.min(settings.burst, tokens + (Math.max(0, at - last) * settings.qps) / 1_000);
    last = at;
    tokens -= 1;
    return tokens >= 0 ? 0 : Math.ceil((-tokens * 1_000) / settings.qps);
  };
};

/** Slots handed out in arrival order; `release` gives the slot to the longest waiter. */
const semaphore = (size: number) => {
  let used = 0;
  const waiters: Array<() => void> = [];
  return {
    acquire: (): Promise<void> => {
      if (used < size) {
        used++;
        return Promise.resolve();
      }
      return new Promise((resolve) => waiters.push(resolve));
    },
    release: (): void => {
      const next = waiters.shift();
      if (next === undefined) used--;
      else next();
    },
    used: () => used,
    waiting: () => waiters.length,
  };
};

/**
 * Builds the shared limiter.
 * Errors: throws on settings {@link flowControlProblems} rejects — a startup misconfiguration
 * the composition root reports once (the CLI checks its flags before).
 */
export const createFlowControl = (options: FlowControlOptions = {}): FlowControl => {
  const settings: FlowControlSettings = {
    qps: options.qps ?? DEFAULT_FLOW_CONTROL.qps,
    burst: options.burst ?? DEFAULT_FLOW_CONTROL.burst,
    maxInFlight: options.maxInFlight ?? DEFAULT_FLOW_CONTROL.maxInFlight,
  };
  const problems = flowControlProblems(settings);
  if (problems.length > 0) throw new Error(`flow control: ${problems.join('; ')}`);
  const clock = options.clock ?? hostClock;
  const reserve = tokenBucket(settings, () => clock.now());
  const slots = semaphore(settings.maxInFlight);
  let waitingForToken = 0;
  let sending = 0;
  // A metrics callback that throws must not strand the request behind it.
  const observe = (queuedAt: number): void => {
    try {
      options.onWait?.(clock.now() - queuedAt);
    } catch {
      // the wait is still granted
    }
  };

  const token = (queuedAt: number): Promise<void> => {
    const delay = reserve();
    if (delay === 0) {
      observe(queuedAt);
      return Promise.resolve();
    }
    waitingForToken++;
    return new Promise((resolve) => {
      clock.setTimer(delay, () => {
        waitingForToken--;
        observe(queuedAt);
        resolve();
      });
    });
  };

  return {
    settings,
    request: async (send) => {
      const queuedAt = clock.now();
      await slots.acquire();
      // token() never rejects: the slot is released only by the finally below.
      await token(queuedAt);
      sending++;
      try {
        return await send();
      } finally {
        sending--;
        slots.release();
      }
    },
    token: () => token(clock.now()),
    stats: () => ({ queued: slots.waiting() + waitingForToken, inFlight: sending }),
  };
};

/**
 * client-node's `Watch` whose every connection (first or resumed) waits for a token first, so
 * a reconnect storm after an API server restart is paced like any other requests.
 */
export const throttledWatch = (watch: Watch, flow: FlowControl): Watch => {
  const original = watch.watch.bind(watch);
  watch.watch = async (...args) => {
    await flow.token();
    return original(...args);
  };
  return watch;
};
