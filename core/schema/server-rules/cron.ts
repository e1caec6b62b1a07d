/**
 * A CronJob's `spec.schedule` and `spec.timeZone` as kube-apiserver 1.36 validates them
 * (pkg/apis/batch/validation: `validateScheduleFormat`, `validateTimeZone`): the schedule is
 * parsed by robfig/cron v3's standard parser (five fields, or a descriptor such as `@hourly`), and
 * `TZ=`/`CRON_TZ=` in it is refused in favour of `timeZone`. The messages are the parser's own,
 * word for word, as the server reports them. Pure.
 */

type Bounds = { readonly min: number; readonly max: number; readonly names?: ReadonlyMap<string, number> };

const namesFrom = (names: ReadonlyArray<string>, first: number): ReadonlyMap<string, number> =>
  new Map(names.map((name, i) => [name, first + i]));

/** minute, hour, day of month, month, day of week: robfig/cron's bounds (day of week 0–6, Sunday 0). */
const FIELDS: ReadonlyArray<Bounds> = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: namesFrom(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'], 1),
  },
  { min: 0, max: 6, names: namesFrom(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'], 0) },
];

const DESCRIPTORS: ReadonlySet<string> = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);

/** Go's `time.ParseDuration` syntax (`@every 1h30m`). */
const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

/** `strconv.Atoi` then robfig's check: a non-negative decimal integer. */
const parseInt = (text: string): number | string => {
  if (!/^[-+]?\d+$/.test(text))
    return `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
  const value = Number(text);
  return value < 0 ? `negative number (${value}) not allowed: ${text}` : value;
};

const parseIntOrName = (text: string, bounds: Bounds): number | string =>
  bounds.names?.get(text.toLowerCase()) ?? parseInt(text);

type Range = { readonly start: number; readonly end: number; readonly step: number };

/** `*`, `?`, `N`, `N-M`, each with an optional `/step`: robfig's `getRange`, its errors word for word. */
const parseRange = (expr: string, bounds: Bounds): Range | string => {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  const low = lowAndHigh[0] ?? '';
  const star = low === '*' || low === '?';
  if (!star && lowAndHigh.length > 2) return `too many hyphens: ${expr}`;
  const start = star ? bounds.min : parseIntOrName(low, bounds);
  if (typeof start === 'string') return start;
  const high = lowAndHigh[1];
  const end = star ? bounds.max : high === undefined ? start : parseIntOrName(high, bounds);
  if (typeof end === 'string') return end;
  if (rangeAndStep.length > 2) return `too many slashes: ${expr}`;
  const stepText = rangeAndStep[1];
  const step = stepText === undefined ? 1 : parseInt(stepText);
  if (typeof step === 'string') return step;
  // robfig: "N/step" means "N-max/step".
  const last = stepText !== undefined && lowAndHigh.length === 1 ? bounds.max : end;
  return { start, end: last, step };
};

const rangeProblem = (expr: string, bounds: Bounds): string | undefined => {
  const range = parseRange(expr, bounds);
  if (typeof range === 'string') return range;
  if (range.start < bounds.min) return `beginning of range (${range.start}) below minimum (${bounds.min}): ${expr}`;
  if (range.end > bounds.max) return `end of range (${range.end}) above maximum (${bounds.max}): ${expr}`;
  if (range.start > range.end) return `beginning of range (${range.start}) beyond end of range (${range.end}): ${expr}`;
  return range.step === 0 ? `step of range should be a positive number: ${expr}` : undefined;
};

const descriptorProblem = (spec: string): string | undefined => {
  if (DESCRIPTORS.has(spec)) return undefined;
  if (spec.startsWith('@every ')) {
    const duration = spec.slice('@every '.length);
    return GO_DURATION.test(duration)
      ? undefined
      : `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(duration)}`;
  }
  return `unrecognized descriptor: ${spec}`;
};

/** robfig/cron's standard parser: the problem of a schedule, or `undefined` when it parses. */
const parseProblem = (schedule: string): string | undefined => {
  if (schedule.length === 0) return 'empty spec string';
  // A `TZ=` prefix is refused below in any case; the rest is parsed as robfig would after it.
  const spec = /^(CRON_)?TZ=/.test(schedule) ? schedule.slice(schedule.indexOf(' ') + 1).trim() : schedule;
  if (spec.startsWith('@')) return descriptorProblem(spec);
  const fields = spec.split(/\s+/).filter((field) => field !== '');
  if (fields.length !== FIELDS.length)
    return `expected exactly ${FIELDS.length} fields, found ${fields.length}: [${fields.join(' ')}]`;
  for (const [i, field] of fields.entries()) {
    const bounds = FIELDS[i];
    if (bounds === undefined) continue;
    for (const expr of field.split(',').filter((part) => part !== '')) {
      const problem = rangeProblem(expr, bounds);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
};

/** Every problem the API server finds in a new CronJob's schedule (the parser's first, then `TZ`). */
export const scheduleProblems = (schedule: string): ReadonlyArray<string> => {
  const parsed = parseProblem(schedule);
  return [
    ...(parsed === undefined ? [] : [parsed]),
    ...(schedule.includes('TZ') ? ['cannot use TZ or CRON_TZ in schedule, use timeZone field instead'] : []),
  ];
};

/** A part of a time zone name as the server allows it (`validTimeZoneCharacters`). */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/**
 * Whether the IANA database names this zone exactly (Go's `time.LoadLocation` is case-sensitive;
 * ICU is not, so a name it knows only in another case is refused).
 */
const isKnownZone = (zone: string): boolean => {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
  } catch {
    return false;
  }
};

/** The problem the API server finds in a CronJob's `spec.timeZone`, or `undefined`. */
export const timeZoneProblem = (zone: string): string | undefined => {
  if (zone.length === 0) return 'timeZone must be nil or non-empty string';
  if (zone.toLowerCase() === 'local')
    return 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones';
  const parts = zone.split('/');
  const malformed = parts.some(
    (part) => part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part),
  );
  return malformed || !isKnownZone(zone) ? `unknown time zone ${zone}` : undefined;
};
