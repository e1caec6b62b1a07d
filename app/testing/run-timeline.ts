/**
 * What a controller run reports besides its verdict: the kit's own events (faults the server
 * injected, restarts, phases) with the time they happened, and a fingerprint of the stored
 * objects to tell when anything changed. Shared by the process and the in-process runners.
 */
import type { MemoryCluster } from '../../adapters/memory/index.js';

/** The events of one run, with their time since `began` on `now` (real or the run's clock). */
export type Timeline = {
  readonly now: () => number;
  readonly began: number;
  readonly events: string[];
  omitted: number;
};

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

export const timeline = (now: () => number): Timeline => ({ now, began: now(), events: [], omitted: 0 });

export const note = (line: Timeline, what: string): void => {
  line.events.push(`${what} at ${seconds(line.now() - line.began)}`);
};

/** Adds to the timeline each fault the server injected since the last look (at most `limit` entries). */
export const faultWatcher = (cluster: MemoryCluster, line: Timeline, limit = 40): (() => void) => {
  let seen = new Map<string, number>();
  let omitted = 0;
  return () => {
    const now = cluster.injectedFaults();
    for (const [fault, count] of now) {
      const added = count - (seen.get(fault) ?? 0);
      if (added <= 0) continue;
      if (line.events.length < limit) note(line, added === 1 ? fault : `${fault} ×${added}`);
      else omitted += added;
    }
    seen = new Map(now);
    line.omitted = omitted;
  };
};

/** `timeline (…): a at 0.10 s; b at 0.20 s`, with the count of faults left out. */
export const timelineText = (line: Timeline, clock: string): string =>
  `timeline (${clock} since the controller started): ${line.events.join('; ')}` +
  (line.omitted === 0 ? '' : `; ${line.omitted} more faults not listed`);

/** A fingerprint of every stored object (resourceVersions move on every change). */
export const fingerprint = (cluster: MemoryCluster): string =>
  cluster
    .objects()
    .map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion ?? ''}`)
    .join(',');
