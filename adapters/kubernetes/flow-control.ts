/**
 * Client-side flow control towards the API server: one token bucket (`qps` refill, `burst`
 * capacity) and one bound on requests in flight, shared by every client the adapter makes
 * (the operator's own, discovery, every impersonating client, and the low-priority lane of
 * Events), so a process never sends more than `burst + qps·t` requests in any `t` seconds,
 * whoever it acts as.
 *
 * A request first waits for an in-flight slot (FIFO), then for its token: taking the token last
 * keeps the starts paced even after a stall of the server has queued many requests behind the
 * slots (taking it first would let them all start at once when the slots free up). Watches hold
 * a connection for minutes: they take a token to start but no in-flight slot, as in client-go.
 *
 * Low-priority requests (Events: best-effort, as client-go's event broadcaster treats them) draw
 * on the same slots and tokens, but only what normal requests leave: one starts only when no
 * normal request waits and a slot and a whole token are free now (it never runs the bucket into
 * debt a normal request would pay). At most `maxLowPriorityQueued` wait; one more is refused at
 * once, unsent ({@link LowPriorityRefused}), so a saturated budget drops Events instead of
 * delaying reconciles or holding memory without bound.
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
  /** Low-priority requests (Events) waiting at once; one more is refused unsent. An integer ≥ 0. */
  readonly maxLowPriorityQueued: number;
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
 * Low-priority waiters: client-go's event broadcaster queue (maxQueuedEvents 1000).
 */
export const DEFAULT_FLOW_CONTROL: FlowControlSettings = {
  qps: 50,
  burst: 100,
  maxInFlight: 32,
  maxLowPriorityQueued: 1_000,
};

export type FlowControlStats = {
  /** Requests and watch starts waiting for a slot or a token now (low-priority ones included). */
  readonly queued: number;
  /** Requests sent and not yet answered. */
  readonly inFlight: number;
};

/** `normal`: everything a reconcile waits for. `low`: best-effort (Events), sent with what normal requests leave. */
export type Priority = 'normal' | 'low';

/** A low-priority request refused unsent: `maxLowPriorityQueued` already wait. */
export class LowPriorityRefused extends Error {}

export type FlowControl = {
  readonly settings: FlowControlSettings;
  /**
   * Runs `send` once a slot and a token are free; the slot is held until it settles.
   * Errors: at `low` priority, rejects at once with {@link LowPriorityRefused}, `send` never called,
   * when `maxLowPriorityQueued` low-priority requests already wait.
   */
  request<A>(send: () => Promise<A>, priority?: Priority): Promise<A>;
  /** Resolves once a token is free (watch starts). */
  token(): Promise<void>;
  readonly stats: () => FlowControlStats;
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
  ...(Number.isInteger(settings.maxLowPriorityQueued) && settings.maxLowPriorityQueued >= 0
    ? []
    : [`max low-priority queued ${settings.maxLowPriorityQueued}: must be an integer ≥ 0`]),
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

type TokenBucket = {
  /** Takes a token, into debt if need be; answers the ms until the debt is paid (0: at once). */
  readonly reserve: () => number;
  /** The ms until a whole token is free without debt (0: one is free now); takes nothing. */
  readonly untilFree: () => number;
};

/**
 * A token bucket by reservation (golang.org/x/time/rate's model, as client-go uses): every caller
 * takes a token at once, possibly driving the count below zero, and waits until the refill has
 * paid its debt. Grants are thus due in call order, at most `burst + qps·t` in any `t` seconds.
 */
const tokenBucket = (settings: FlowControlSettings, now: () => number): TokenBucket => {
  let tokens = settings.burst;
  let last = now();
  const refill = (): void => {
    const at = now();
    tokens = Math.min(settings.burst, tokens + (Math.max(0, at - last) * settings.qps) / 1_000);
    last = at;
  };
  return {
    reserve: () => {
      refill();
      tokens -= 1;
      return tokens >= 0 ? 0 : Math.ceil((-tokens * 1_000) / settings.qps);
    },
    untilFree: () => {
      refill();
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1_000) / settings.qps);
    },
  };
};

/** Slots handed out in arrival order; `release` gives the slot to the longest waiter. */
type Semaphore = {
  readonly acquire: () => Promise<void>;
  /** Takes a slot now if one is free and nobody waits for it; whether it did. */
  readonly tryAcquire: () => boolean;
  readonly release: () => void;
  readonly used: () => number;
};

const semaphore = (size: number): Semaphore => {
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
    tryAcquire: (): boolean => {
      if (used >= size || waiters.length > 0) return false;
      used++;
      return true;
    },
    release: (): void => {
      const next = waiters.shift();
      if (next === undefined) used--;
      else next();
    },
    used: () => used,
  };
};

/** What both lanes share: the settings, the clock, the bucket, the in-flight slots and the wait metric. */
type SharedParts = {
  readonly settings: FlowControlSettings;
  readonly clock: Pick<Clock, 'now' | 'setTimer'>;
  readonly bucket: TokenBucket;
  readonly slots: Semaphore;
  /** Reports how long a request waited (a metrics callback that throws must not strand the request behind it). */
  readonly observe: (queuedAt: number) => void;
};

/** Requests sent and not yet answered, each on a slot it holds until it settles. */
type InFlight = {
  /** Sends on a slot already held, frees it after, then calls `released` (who may take it next). */
  readonly send: <A>(send: () => Promise<A>, released: () => void) => Promise<A>;
  readonly count: () => number;
};

const inFlight = (slots: Semaphore): InFlight => {
  let sending = 0;
  return {
    send: async (send, released) => {
      sending++;
      try {
        return await send();
      } finally {
        sending--;
        slots.release();
        released();
      }
    },
    count: () => sending,
  };
};

/** A low-priority request waiting: started (slot and token taken) by the lane, never by its caller. */
type LowWaiter = { readonly queuedAt: number; readonly start: () => void };

/**
 * The low-priority lane (Events): its waiters start only while no normal request waits and a slot
 * and a whole token are free now; at most `maxLowPriorityQueued` wait.
 */
type LowLane = {
  readonly request: <A>(send: () => Promise<A>) => Promise<A>;
  /**
   * Starts waiting low-priority requests while nothing normal waits and a slot and a whole token
   * are free; called at every change that can free them (a slot released, a normal request granted,
   * a low one queued, the lane's timer).
   */
  readonly pump: () => void;
  readonly queued: () => number;
};

const lowLane = (parts: SharedParts, sent: InFlight, normalWaiting: () => number): LowLane => {
  const { settings, clock, bucket, slots } = parts;
  const low: LowWaiter[] = [];
  /** The lane's one timer, armed for when the next whole token is free. */
  let lowTimer: (() => void) | undefined;
  const pump = (): void => {
    while (low.length > 0 && normalWaiting() === 0 && lowTimer === undefined) {
      const wait = bucket.untilFree();
      if (wait > 0) {
        lowTimer = clock.setTimer(wait, () => {
          lowTimer = undefined;
          pump();
        });
        return;
      }
      if (!slots.tryAcquire()) return;
      bucket.reserve();
      low.shift()?.start();
    }
  };
  /**
   * Whether a low-priority request would start at once, the lane empty (then the bound on waiters does not apply to
   * it).
   */
  const mayStartNow = (): boolean =>
    normalWaiting() === 0 && lowTimer === undefined && slots.used() < settings.maxInFlight && bucket.untilFree() === 0;
  const request = <A>(send: () => Promise<A>): Promise<A> => {
    const mustWait = low.length > 0 || !mayStartNow();
    if (mustWait && low.length >= settings.maxLowPriorityQueued)
      return Promise.reject(
        new LowPriorityRefused(
          `not sent: ${low.length} low-priority requests already wait for client flow control (qps ${settings.qps}, burst ${settings.burst})`,
        ),
      );
    const queuedAt = clock.now();
    return new Promise<A>((resolve, reject) => {
      low.push({
        queuedAt,
        start: () => {
          parts.observe(queuedAt);
          sent.send(send, pump).then(resolve, reject);
        },
      });
      pump();
    });
  };
  return { request, pump, queued: () => low.length };
};

/** The normal lane: a slot (FIFO), then a token, then the send; the low lane yields to its waiters. */
type NormalLane = {
  readonly request: <A>(send: () => Promise<A>) => Promise<A>;
  /** Resolves once a token is due (watch starts: a token, no slot). */
  readonly token: () => Promise<void>;
  /** Requests and watch starts from their call until their token is granted. */
  readonly waiting: () => number;
};

const normalLane = (parts: SharedParts, sent: InFlight, low: () => LowLane): NormalLane => {
  const { clock, bucket, slots } = parts;
  let waiting = 0;
  const granted = (queuedAt: number): void => {
    waiting--;
    parts.observe(queuedAt);
    low().pump();
  };
  /** Reserves a normal request's token; resolves when it is due. */
  const token = (queuedAt: number): Promise<void> => {
    const delay = bucket.reserve();
    if (delay === 0) {
      granted(queuedAt);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      clock.setTimer(delay, () => {
        granted(queuedAt);
        resolve();
      });
    });
  };
  const request = async <A>(send: () => Promise<A>): Promise<A> => {
    const queuedAt = clock.now();
    waiting++;
    await slots.acquire();
    // token() never rejects: the slot is released only by the in-flight send.
    await token(queuedAt);
    return sent.send(send, () => low().pump());
  };
  return {
    request,
    token: () => {
      waiting++;
      return token(clock.now());
    },
    waiting: () => waiting,
  };
};

/** The settings asked for, each defaulted; throws on what {@link flowControlProblems} rejects. */
const settingsOf = (options: FlowControlOptions): FlowControlSettings => {
  const settings: FlowControlSettings = {
    qps: options.qps ?? DEFAULT_FLOW_CONTROL.qps,
    burst: options.burst ?? DEFAULT_FLOW_CONTROL.burst,
    maxInFlight: options.maxInFlight ?? DEFAULT_FLOW_CONTROL.maxInFlight,
    maxLowPriorityQueued: options.maxLowPriorityQueued ?? DEFAULT_FLOW_CONTROL.maxLowPriorityQueued,
  };
  const problems = flowControlProblems(settings);
  if (problems.length > 0) throw new Error(`flow control: ${problems.join('; ')}`);
  return settings;
};

const sharedParts = (options: FlowControlOptions): SharedParts => {
  const settings = settingsOf(options);
  const clock = options.clock ?? hostClock;
  return {
    settings,
    clock,
    bucket: tokenBucket(settings, () => clock.now()),
    slots: semaphore(settings.maxInFlight),
    observe: (queuedAt) => {
      try {
        options.onWait?.(clock.now() - queuedAt);
      } catch {
        // the wait is still granted
      }
    },
  };
};

/**
 * Flow control as a value of named parts: the token bucket, the in-flight semaphore and what is
 * sent on it, and the two lanes. The lanes name each other only through the functions they are
 * given: the normal lane wakes the low one; the low one yields while normal requests wait.
 */
type FlowControlParts = SharedParts & {
  readonly inFlight: InFlight;
  readonly lanes: { readonly normal: NormalLane; readonly low: LowLane };
};

const flowControlParts = (options: FlowControlOptions): FlowControlParts => {
  const shared = sharedParts(options);
  const sent = inFlight(shared.slots);
  const normal: NormalLane = normalLane(shared, sent, () => low);
  const low: LowLane = lowLane(shared, sent, () => normal.waiting());
  return { ...shared, inFlight: sent, lanes: { normal, low } };
};

/**
 * Builds the shared limiter from its parts ({@link FlowControlParts}).
 * Errors: throws on settings {@link flowControlProblems} rejects — a startup misconfiguration
 * the composition root reports once (the CLI checks its flags before).
 */
export const createFlowControl = (options: FlowControlOptions = {}): FlowControl => {
  const { settings, inFlight: sent, lanes } = flowControlParts(options);
  return {
    settings,
    request: (send, priority = 'normal') => (priority === 'low' ? lanes.low.request(send) : lanes.normal.request(send)),
    token: () => lanes.normal.token(),
    stats: () => ({ queued: lanes.normal.waiting() + lanes.low.queued(), inFlight: sent.count() }),
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
