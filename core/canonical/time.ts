/**
 * `metav1.Time` and `metav1.MicroTime` as kube-apiserver 1.36 stores them: parsed as RFC 3339
 * (any offset), written back in UTC — a `Time` to the second (fractions are cut, not rounded), a
 * `MicroTime` with exactly six fraction digits, which it also requires when parsing.
 * `2000-01-01T00:00:00.306388+02:00` is stored as `1999-12-31T22:00:00.306388Z` (MicroTime).
 */
import type { QuantityResult as Stored } from './quantity.js';

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The instant in UTC, `YYYY-MM-DDTHH:MM:SS` plus the fraction as written, or `undefined` when it is no valid time. */
const utcOf = (text: string): { readonly seconds: string; readonly fraction: string } | undefined => {
  const match = SHAPE.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zone = 'Z'] = match;
  const [y, mo, d, h, mi, s] = [Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second)];
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(local);
  // Go refuses a day, hour, minute or second out of range (no leap seconds, no 24:00).
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return undefined;
  const utc = new Date(local - offsetMinutes * 60_000);
  const seconds = `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())}T${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}`;
  return { seconds, fraction: fraction.slice(1) };
};

const refused = (text: string, layout: string): Stored => ({
  ok: false,
  message: `parsing time ${JSON.stringify(text)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(text)} as ${JSON.stringify(layout)}`,
});

/** A `metav1.Time` as stored (`null` stays null: the zero time). */
export const canonicalTime = (value: unknown): Stored | { readonly ok: true; readonly value: null } => {
  if (value === null) return { ok: true, value: null };
  if (typeof value !== 'string') return refused(JSON.stringify(value), RFC3339);
  const utc = utcOf(value);
  return utc === undefined ? refused(value, RFC3339) : { ok: true, value: `${utc.seconds}Z` };
};

/** A `metav1.MicroTime` as stored: exactly six fraction digits in, UTC with six digits out. */
export const canonicalMicroTime = (value: unknown): Stored | { readonly ok: true; readonly value: null } => {
  if (value === null) return { ok: true, value: null };
  if (typeof value !== 'string') return refused(JSON.stringify(value), RFC3339_MICRO);
  const utc = utcOf(value);
  return utc === undefined || utc.fraction.length !== 6
    ? refused(value, RFC3339_MICRO)
    : { ok: true, value: `${utc.seconds}.${utc.fraction}Z` };
};
