/**
 * `resource.Quantity` as kube-apiserver 1.36 reads and writes it (k8s.io/apimachinery
 * pkg/api/resource, quantity.go, amount.go, suffix.go): a quantity is parsed when the object is
 * decoded and serialised again when it is stored, so `1000m` is stored as `"1"`, `1024Mi` as
 * `"1Gi"`, `0.5` as `"500m"` and the number `2` as `"2"`. Exact arithmetic (bigint), so the answer
 * is the server's for every value the server accepts, including its quirks:
 * - a value the parser already finds canonical keeps its text as written (`+1`, `01`, `1E3`, `500Mi`);
 * - values are rounded up (away from zero) to a multiple of 1n, binary ones capped at 2^63-1;
 * - a decimal exponent with no SI suffix (`1000E` = 10^21) loses its suffix (stored `"1"`), as Go
 *   ignores the failed suffix lookup.
 * Pure: no I/O, no module state beyond constant tables.
 */

/** How the quantity was written, which decides how it is written back. */
type Format = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** A parsed quantity: sign × magnitude × 10^exp10, its format, and the text kept verbatim (if any). */
type Parsed = {
  readonly negative: boolean;
  readonly magnitude: bigint;
  readonly exp10: number;
  readonly format: Format;
  readonly verbatim?: string;
};

/** The errors `ParseQuantity` returns, word for word (the API server reports them as they are). */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";
const NUMERIC_ERROR = 'unable to parse numeric part of quantity';

export type QuantityResult =
  { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string };

const failed = (message: string): QuantityResult => ({ ok: false, message });

type Scanned = {
  readonly negative: boolean;
  /** Integer digits, leading zeros stripped ("0" when none are left). */
  readonly num: string;
  /** Fraction digits as written. */
  readonly denom: string;
  readonly suffix: string;
  /** Whether any digit was written before the suffix (`.Ki` has none). */
  readonly hasDigits: boolean;
};

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';
const SUFFIX_CHARS = 'eEinumkKMGTP';

/** The scanner of `parseQuantityString`: sign, digits, fraction, suffix; `undefined` when the text does not match. */
const scan = (text: string): Scanned | undefined => {
  let pos = 0;
  const negative = text[0] === '-';
  if (text[0] === '-' || text[0] === '+') pos = 1;
  while (pos < text.length && text[pos] === '0') pos += 1;
  if (pos === text.length) return { negative, num: '0', denom: '', suffix: '', hasDigits: true };
  const numStart = pos;
  while (isDigit(text[pos])) pos += 1;
  const num = pos === numStart ? '0' : text.slice(numStart, pos);
  let denom = '';
  if (text[pos] === '.') {
    const denomStart = pos + 1;
    pos = denomStart;
    while (isDigit(text[pos])) pos += 1;
    denom = text.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && SUFFIX_CHARS.includes(text.charAt(pos))) pos += 1;
  if (text[pos] === '-' || text[pos] === '+') pos += 1;
  while (isDigit(text[pos])) pos += 1;
  if (pos !== text.length) return undefined;
  return { negative, num, denom, suffix: text.slice(suffixStart), hasDigits: /[0-9]/.test(text.slice(0, suffixStart)) };
};

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);

type Interpreted = { readonly base: 2 | 10; readonly exponent: number; readonly format: Format };

/** `strconv.ParseInt(s, 10, 64)` then `int32(…)`: the exponent of `1e…`, wrapped as Go wraps it. */
const goExponent = (digits: string): number | undefined => {
  if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
  const parsed = BigInt(digits);
  if (parsed < -(2n ** 63n) || parsed >= 2n ** 63n) return undefined;
  return Number(BigInt.asIntN(32, parsed));
};

const interpret = (suffix: string): Interpreted | undefined => {
  const decimal = DECIMAL_SUFFIXES.get(suffix);
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES.get(suffix);
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const exponent = goExponent(suffix.slice(1));
    return exponent === undefined ? undefined : { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
};

const INT64_MAX = 2n ** 63n - 1n;
/** Digits the int64 fast path takes (`maxInt64Factors`). */
const MAX_INT64_FACTORS = 18;
const NANO = -9;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * The fast path of `ParseQuantity` (an int64 mantissa at a scale of at least nano), or `undefined`
 * when the value needs the arbitrary-precision path. It also decides whether the text is kept.
 */
const fastPath = (text: string, scanned: Scanned, how: Interpreted): Parsed | undefined => {
  const { num, denom, negative } = scanned;
  const binary = how.format === 'BinarySI';
  if (binary && (how.exponent < 0 || denom.length > 0)) return undefined;
  const precision = binary
    ? 15 - num.length - Math.trunc((how.exponent * 3) / 10) - 1
    : MAX_INT64_FACTORS - (num.length + denom.length);
  const scale = binary ? 0 : how.exponent - denom.length;
  if (precision < 0 || scale < NANO) return undefined;
  const shifted = num + denom;
  const value = BigInt(shifted);
  const magnitude = binary ? value << BigInt(how.exponent) : value;
  if (magnitude > INT64_MAX) return undefined;
  const kept = binary ? (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  return { negative, magnitude, exp10: scale, format: how.format, ...(kept ? { verbatim: text } : {}) };
};

/**
 * `magnitude × 10^exp10` rounded up to a whole number of units of 10^unit (away from zero: the magnitude is positive).
 */
const roundUpTo = (
  magnitude: bigint,
  exp10: number,
  unit: number,
): { magnitude: bigint; exp10: number; exact: boolean } => {
  if (exp10 >= unit || magnitude === 0n) return { magnitude, exp10, exact: true };
  const shift = unit - exp10;
  // Beyond its digits the value is below one unit: it rounds up to exactly one.
  if (shift > magnitude.toString().length) return { magnitude: 1n, exp10: unit, exact: false };
  const divisor = pow10(shift);
  const quotient = magnitude / divisor;
  const exact = magnitude % divisor === 0n;
  return { magnitude: exact ? quotient : quotient + 1n, exp10: unit, exact };
};

/** Compares `magnitude × 10^exp10` with an integer bound (both non-negative). */
const compareWith = (magnitude: bigint, exp10: number, bound: bigint): number => {
  if (magnitude === 0n) return bound === 0n ? 0 : -1;
  const digits = magnitude.toString().length;
  const boundDigits = bound.toString().length;
  if (digits + exp10 > boundDigits + 1) return 1;
  if (digits + exp10 < -1) return bound === 0n ? 1 : -1;
  const left = exp10 >= 0 ? magnitude * pow10(exp10) : magnitude;
  const right = exp10 >= 0 ? bound : bound * pow10(-exp10);
  return left === right ? 0 : left > right ? 1 : -1;
};

/**
 * The arbitrary-precision path of `ParseQuantity`: exact value, rounded up to 1n, binary capped at
 * 2^63-1; the number as written must hold a digit (`inf.Dec` refuses `.` and `-`).
 */
const slowPath = (scanned: Scanned, how: Interpreted): Parsed | string => {
  if (!scanned.hasDigits) return NUMERIC_ERROR;
  const digits = BigInt(scanned.num + scanned.denom);
  const exact =
    how.base === 10
      ? { magnitude: digits, exp10: how.exponent - scanned.denom.length }
      : { magnitude: digits << BigInt(how.exponent), exp10: -scanned.denom.length };
  const rounded = roundUpTo(exact.magnitude, exact.exp10, NANO);
  const binary = how.format === 'BinarySI';
  const capped =
    binary && compareWith(rounded.magnitude, rounded.exp10, INT64_MAX) > 0
      ? { magnitude: INT64_MAX, exp10: 0 }
      : rounded;
  const belowOne = capped.magnitude !== 0n && compareWith(capped.magnitude, capped.exp10, 1n) < 0;
  return {
    negative: scanned.negative,
    magnitude: capped.magnitude,
    exp10: capped.exp10,
    format: binary && belowOne ? 'DecimalSI' : how.format,
  };
};

/** `ParseQuantity`: the parsed quantity, or the server's error. */
const parse = (text: string): Parsed | string => {
  if (text.length === 0) return QUANTITY_FORMAT_ERROR;
  if (text === '0') return { negative: false, magnitude: 0n, exp10: 0, format: 'DecimalSI', verbatim: text };
  const scanned = scan(text);
  if (scanned === undefined) return QUANTITY_FORMAT_ERROR;
  const how = interpret(scanned.suffix);
  if (how === undefined) return SUFFIX_ERROR;
  return fastPath(text, scanned, how) ?? slowPath(scanned, how);
};

/** Moves factors of 10 from the magnitude into the exponent, then lowers the exponent to a multiple of 3. */
const engineering = (magnitude: bigint, exp10: number): { readonly digits: bigint; readonly exponent: number } => {
  let digits = magnitude;
  let exponent = exp10;
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent += 1;
  }
  const over = ((exponent % 3) + 3) % 3;
  return { digits: digits * pow10(over), exponent: exponent - over };
};

const DECIMAL_SUFFIX_OF: ReadonlyMap<number, string> = new Map([...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]));
const BINARY_SUFFIX_OF: ReadonlyMap<number, string> = new Map([...BINARY_SUFFIXES].map(([s, e]) => [e, s]));

const sign = (negative: boolean): string => (negative ? '-' : '');

const decimalText = (parsed: Parsed, format: 'DecimalSI' | 'DecimalExponent'): string => {
  const { digits, exponent } = engineering(parsed.magnitude, parsed.exp10);
  // An exponent with no SI suffix gets none (Go ignores the failed lookup): the value changes, as on the server.
  const suffix =
    format === 'DecimalSI' ? (DECIMAL_SUFFIX_OF.get(exponent) ?? '') : exponent === 0 ? '' : `e${exponent}`;
  return `${sign(parsed.negative)}${digits.toString()}${suffix}`;
};

/** `CanonicalizeBytes`: the text `MarshalJSON` writes for a quantity it did not keep verbatim. */
const canonicalText = (parsed: Parsed): string => {
  if (parsed.magnitude === 0n) return '0';
  if (parsed.format !== 'BinarySI') return decimalText(parsed, parsed.format);
  // Below 1024 in magnitude, or not a whole number: written as decimal SI (no rounding, no confusion).
  if (compareWith(parsed.magnitude, parsed.exp10, 1024n) < 0) return decimalText(parsed, 'DecimalSI');
  const whole = roundUpTo(parsed.magnitude, parsed.exp10, 0);
  if (!whole.exact) return decimalText(parsed, 'DecimalSI');
  let amount = whole.magnitude * pow10(whole.exp10);
  let bits = 0;
  while (amount % 1024n === 0n) {
    amount /= 1024n;
    bits += 10;
  }
  return `${sign(parsed.negative)}${amount.toString()}${BINARY_SUFFIX_OF.get(bits) ?? ''}`;
};

/** Go's `unicode.IsSpace` (what `strings.TrimSpace` trims). */
const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/**
 * The JSON text `UnmarshalJSON` sees for a value: a string's quotes are stripped but its escapes
 * are not undone (the client sends `JSON.stringify`'s text), any other value is read as written.
 */
const rawText = (value: unknown): string => {
  const json = JSON.stringify(value) ?? 'null';
  return typeof value === 'string' ? json.slice(1, -1) : json;
};

/**
 * Characters JSON writes as they are and Go never trims: a string of only these is its own raw text (most quantities).
 */
const PLAIN = /^[0-9A-Za-z.+-]*$/;

const isPlainText = (value: unknown): value is string => typeof value === 'string' && PLAIN.test(value);

const MILLI = -3;

/**
 * `Quantity.RoundUp(-3)`, which core/v1's defaulting (`SetDefaults_ResourceList`) applies to every
 * value of a resource list: a value written at a finer scale than milli is rounded up (away from
 * zero) to a whole number of milli-units, and its text is no longer kept (`1500u` → `2m`).
 */
const roundedUpToMilli = (parsed: Parsed): Parsed => {
  if (parsed.exp10 >= MILLI) return parsed;
  const rounded = roundUpTo(parsed.magnitude, parsed.exp10, MILLI);
  return { negative: parsed.negative, magnitude: rounded.magnitude, exp10: rounded.exp10, format: parsed.format };
};

/**
 * The text kube-apiserver stores for a JSON value decoded into a `resource.Quantity`, or its
 * error (`null` is the zero quantity, stored as `"0"`). `resourceList`: the value is one of a
 * core/v1 `ResourceList` (container limits and requests, quotas, capacities), which defaulting
 * rounds up to milli-units.
 */
export const canonicalQuantity = (value: unknown, resourceList = false): QuantityResult => {
  if (value === null) return { ok: true, value: '0' };
  const text = isPlainText(value) ? value : rawText(value).replace(GO_SPACE, '');
  return isStoredAsWritten(text) ? { ok: true, value: text } : parsedCanonical(text, resourceList);
};

/**
 * Whether `text` is one of the quantities most manifests write, which the server stores as written,
 * answered without parsing: a whole number from 1, no leading zero, with a decimal SI suffix
 * from milli to peta (or none) and no trailing `000` (the parser keeps such text verbatim, and
 * milli needs no rounding), or from 1 to 1023 with a binary suffix (already the canonical
 * multiple of 1024). Anything else is parsed.
 */
const isStoredAsWritten = (text: string): boolean => {
  if (COMMON_DECIMAL.test(text)) return !digitsOf(text).endsWith('000');
  return COMMON_BINARY.test(text) && Number(text.slice(0, -2)) <= 1023;
};

const COMMON_DECIMAL = /^[1-9][0-9]{0,14}[mkMGTP]?$/;
const COMMON_BINARY = /^[1-9][0-9]{0,3}[KMGTP]i$/;

/** The digits of a `COMMON_DECIMAL` text (its suffix, if any, is one letter). */
const digitsOf = (text: string): string => {
  const last = text.charCodeAt(text.length - 1);
  return last >= 48 && last <= 57 ? text : text.slice(0, -1);
};

/** What `canonicalQuantity` answers for `text` by parsing it as the server does (exported for its test). */
export const parsedCanonical = (text: string, resourceList: boolean): QuantityResult => {
  const parsed = parse(text);
  if (typeof parsed === 'string') return failed(parsed);
  const stored = resourceList ? roundedUpToMilli(parsed) : parsed;
  return { ok: true, value: stored.verbatim ?? canonicalText(stored) };
};
