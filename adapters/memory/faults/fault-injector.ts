/**
 * Decides, from the seeded generator, which faults hit one call or one watch event. Every
 * matching rule draws exactly once per call, in profile order, so the same seed and the same
 * sequence of calls give the same failures.
 */
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { between, chance, type Random } from './prng.js';
import { matchesFault, matchesKind, type FaultProfile, type Verb } from './faults.js';
import type { EventFaults } from '../watch/index.js';
import { defined } from '../../../core/json/defined.js';

export type CallFaults = {
  readonly latencyMs: number;
  readonly error?: ClusterError;
  readonly afterCommit: boolean;
  readonly conflict: boolean;
};

export const decideCall = (
  random: Random,
  profile: FaultProfile,
  verb: Verb,
  group: string,
  kind: string,
): CallFaults => {
  const latencyMs = (profile.latency ?? [])
    .filter((rule) => matchesFault(rule, verb, group, kind))
    .reduce((total, rule) => total + (chance(random, rule.rate ?? 1) ? between(random, rule.minMs, rule.maxMs) : 0), 0);
  const hits = (profile.errors ?? []).filter(
    (rule) => matchesFault(rule, verb, group, kind) && chance(random, rule.rate),
  );
  const conflict =
    (profile.conflicts ?? []).filter((rule) => matchesFault(rule, verb, group, kind) && chance(random, rule.rate))
      .length > 0;
  const rule = hits[0];
  if (rule === undefined) return { latencyMs, afterCommit: false, conflict };
  const error = clusterError(rule.tag, rule.message ?? `injected ${rule.tag}`, {
    ...defined({ code: rule.code, retryAfterMs: rule.retryAfterMs }),
  });
  return { latencyMs, error, afterCommit: rule.afterCommit === true, conflict };
};

export const decideEvent = (random: Random, profile: FaultProfile, group: string, kind: string): EventFaults => {
  const watch = profile.watch;
  if (watch === undefined || !matchesKind(watch.kinds, group, kind))
    return { duplicate: false, close: false, expire: false };
  // The draw of the removed dropRate fault (no real-server counterpart), kept: a seed replays as before.
  random();
  return {
    duplicate: chance(random, watch.duplicateRate ?? 0),
    close: chance(random, watch.closeRate ?? 0),
    // Drawn only when set: profiles without it replay exactly as before it existed.
    expire: watch.expireRate !== undefined && chance(random, watch.expireRate),
  };
};

/** How long the server lets one watch run ([ms, 2·ms], drawn only when the profile sets it), or undefined: forever. */
export const decideWatchTimeout = (
  random: Random,
  profile: FaultProfile,
  group: string,
  kind: string,
): number | undefined => {
  const watch = profile.watch;
  if (watch?.serverTimeoutMs === undefined || !matchesKind(watch.kinds, group, kind)) return undefined;
  return between(random, watch.serverTimeoutMs, 2 * watch.serverTimeoutMs);
};
