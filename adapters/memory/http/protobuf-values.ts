/** Go's JSON renderings of the protobuf values that are not plain scalars: meta/v1 Time and MicroTime, Duration. */

/** `2026-01-02T03:04:05Z` (Time: seconds) or `2026-01-02T03:04:05.123456Z` (MicroTime), in UTC. */
export const rfc3339 = (seconds: number, nanos: number, micro: boolean): string => {
  const text = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  return micro ? `${text}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${text}Z`;
};

const UNITS: ReadonlyArray<readonly [string, bigint]> = [
  ['ns', 1n],
  ['µs', 1_000n],
  ['ms', 1_000_000n],
];

/** A number of a unit with its fraction, trailing zeros dropped: 1500000 ns in ms → `1.5`. */
const fraction = (value: bigint, unit: bigint): string => {
  const whole = value / unit;
  const rest = (value % unit)
    .toString()
    .padStart(unit.toString().length - 1, '0')
    .replace(/0+$/, '');
  return rest === '' ? whole.toString() : `${whole}.${rest}`;
};

/** time.Duration.String(): `1h2m3.5s`, `1.5ms`, `0s`. */
export const goDuration = (nanoseconds: bigint): string => {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const magnitude = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (magnitude < 1_000_000_000n) {
    const [unit, size] = [...UNITS].reverse().find(([, size]) => magnitude >= size) ?? ['ns', 1n];
    return `${sign}${fraction(magnitude, size)}${unit}`;
  }
  const hours = magnitude / 3_600_000_000_000n;
  const minutes = (magnitude / 60_000_000_000n) % 60n;
  const seconds = fraction(magnitude % 60_000_000_000n, 1_000_000_000n);
  return `${sign}${hours > 0n ? `${hours}h` : ''}${hours > 0n || minutes > 0n ? `${minutes}m` : ''}${seconds}s`;
};
