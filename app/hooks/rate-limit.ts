/**
 * Per-client token buckets for the callback listener: a client (by remote address) may burst up
 * to `burst` requests, then `perSecond`; beyond that it gets 429 with `Retry-After`, before any
 * authentication work. Bounded memory: the least recently seen clients are forgotten first.
 */

export type RateLimit = {
  /** Requests a client may make at once. */
  readonly burst: number;
  /** Requests per second a client regains. */
  readonly perSecond: number;
  /** Clients remembered at most (the oldest are dropped, starting again with a full bucket). */
  readonly clients: number;
};

export const defaultRateLimit: RateLimit = { burst: 20, perSecond: 5, clients: 10_000 };

/** Whether a request may go on, else after how many whole seconds the client may try again. */
export type Admission = { readonly _tag: 'Allowed' } | { readonly _tag: 'Limited'; readonly retryAfterSeconds: number };

/** Token buckets keyed by client; `now` in milliseconds (the operator's clock, virtual in tests). */
export const createRateLimiter = (limit: RateLimit, now: () => number): ((client: string) => Admission) => {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (client) => {
    const at = now();
    const before = buckets.get(client);
    const tokens =
      before === undefined
        ? limit.burst
        : Math.min(limit.burst, before.tokens + ((at - before.at) / 1000) * limit.perSecond);
    buckets.delete(client); // re-inserted last: Map order is recency order
    if (tokens < 1) {
      buckets.set(client, { tokens, at });
      return { _tag: 'Limited', retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / limit.perSecond)) };
    }
    buckets.set(client, { tokens: tokens - 1, at });
    for (
      let oldest = buckets.keys().next();
      buckets.size > limit.clients && oldest.done !== true;
      oldest = buckets.keys().next()
    )
      buckets.delete(oldest.value);
    return { _tag: 'Allowed' };
  };
};
