/** What bench/fleet.bench.ts passes to a contender process (bench/fleet-contender.ts) and reads back from it. */
import * as t from 'io-ts';

export const ContenderArgs = t.intersection([
  t.type({
    mode: t.keyof({ operator: null, direct: null }),
    kubeconfig: t.string,
    namespace: t.string,
    shape: t.keyof({ flux: null, argo: null }),
    count: t.number,
    workers: t.number,
    qps: t.number,
    burst: t.number,
  }),
  t.partial({ resync: t.boolean }),
]);
export type ContenderArgs = t.TypeOf<typeof ContenderArgs>;

/** `process.memoryUsage()` figures, in bytes. */
export const MemoryFigures = t.type({
  rss: t.number,
  heapTotal: t.number,
  heapUsed: t.number,
  external: t.number,
  arrayBuffers: t.number,
});
export type MemoryFigures = t.TypeOf<typeof MemoryFigures>;

/**
 * Timed rounds of the real-server resync comparison (resync and bare plan, alternating which goes
 * first, after one untimed round of each):
 * each phase's time varies with where a major collection falls (docs/performance.md), so the ratio
 * is the median of the per-round ratios, as `measurePair` takes it (bench/measure.ts).
 */
export const RESYNC_ROUNDS = 7;

export const ContenderResult = t.intersection([
  t.type({ elapsedMs: t.number, requests: t.number, maxRssBytes: t.number }),
  t.partial({
    /** RSS after a full collection before the first request: node, the Kubernetes client and kreconcile loaded. */
    rssBeforeBytes: t.number,
    /** RSS after a full collection once every object was ready. */
    rssReadyBytes: t.number,
    /** V8 heap in use after that collection: what the process holds, where RSS also counts pages V8 keeps. */
    heapReadyBytes: t.number,
    /** Medians over the resync rounds (`RESYNC_ROUNDS`), each of its own column. */
    resyncMs: t.number,
    barePlanMs: t.number,
    reconciles: t.number,
    /** Each round's resync time over the bare plan right after it, in round order. */
    resyncRoundRatios: t.array(t.number),
    /** CPU time (user + system) of the contender process from its first request until ready. */
    cpuMs: t.number,
    /** `process.memoryUsage()` after a full collection before the first request. */
    memoryBefore: MemoryFigures,
    /** The largest value of each figure, sampled every 100 ms while the contender ran (each figure's own maximum). */
    memoryPeak: MemoryFigures,
  }),
]);
export type ContenderResult = t.TypeOf<typeof ContenderResult>;
