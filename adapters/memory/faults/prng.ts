/** Seeded pseudo-random numbers (mulberry32): the memory cluster's only source of randomness, so runs replay. */

/** A stream of numbers in [0, 1); the same seed always yields the same stream. */
export type Random = () => number;

export const mulberry32 = (seed: number): Random => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** True with probability `rate`; draws exactly once so the stream stays aligned across runs. */
export const chance = (random: Random, rate: number): boolean => random() < rate;

/** An integer in [min, max]. */
export const between = (random: Random, min: number, max: number): number =>
  min + Math.floor(random() * (Math.max(max, min) - min + 1));

const hex = (random: Random, digits: number): string =>
  Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');

/** An RFC 4122 version-4 shaped UID, as the API server assigns to `metadata.uid`. */
export const uidFrom = (random: Random): string =>
  `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-${'89ab'[Math.floor(random() * 4)]}${hex(random, 3)}-${hex(random, 12)}`;
