/**
 * The string formats kube-apiserver checks in a CRD schema (kube-openapi's format registry);
 * an unknown format, as there, checks nothing. Each check is a bounded scan: fixed patterns
 * with no nested repetition (linear in the input), never a tenant's expression.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const MAC = /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/;
const DURATION_PART = /^\s*(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s|m|h|d|w)/;

const validDate = (year: string, month: string, day: string): boolean => {
  const m = Number(month);
  const d = Number(day);
  const days = new Date(Date.UTC(Number(year), m, 0)).getUTCDate();
  return m >= 1 && m <= 12 && d >= 1 && d <= days;
};

const isDate = (value: string): boolean => {
  const match = DATE.exec(value);
  return match !== null && validDate(match[1] ?? '', match[2] ?? '', match[3] ?? '');
};

const isDateTime = (value: string): boolean => {
  const match = DATE_TIME.exec(value);
  if (match === null || !validDate(match[1] ?? '', match[2] ?? '', match[3] ?? '')) return false;
  return Number(match[4]) < 24 && Number(match[5]) < 60 && Number(match[6]) < 60;
};

const isIpv4 = (value: string): boolean => {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
};

const isIpv6 = (value: string): boolean => {
  if (!/^[0-9a-fA-F:.]{2,45}$/.test(value)) return false;
  const lastColon = value.lastIndexOf(':');
  const tail = value.slice(lastColon + 1);
  const embedded = tail.includes('.');
  if (embedded && !isIpv4(tail)) return false;
  const head = embedded ? value.slice(0, lastColon + 1) + '0:0' : value;
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  if (!groups.every((list) => list.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group)))) return false;
  const count = groups.reduce((sum, list) => sum + list.length, 0);
  return halves.length === 2 ? count < 8 : count === 8;
};

const isCidr = (value: string): boolean => {
  const slash = value.indexOf('/');
  const address = value.slice(0, slash);
  const bits = value.slice(slash + 1);
  if (slash < 0 || !/^\d{1,3}$/.test(bits)) return false;
  if (isIpv4(address)) return Number(bits) <= 32;
  return isIpv6(address) && Number(bits) <= 128;
};

const isHostname = (value: string): boolean =>
  value.length <= 255 &&
  value
    .split('.')
    .every(
      (label) =>
        label.length >= 1 &&
        label.length <= 63 &&
        /^[\p{L}\p{N}\p{S}]([\p{L}\p{N}\p{S}-]*[\p{L}\p{N}\p{S}])?$/u.test(label),
    );

const isEmail = (value: string): boolean => {
  const at = value.lastIndexOf('@');
  return at > 0 && !/\s/.test(value) && isHostname(value.slice(at + 1).replace(/^\[|\]$/g, ''));
};

const isDuration = (value: string): boolean => {
  let rest = value.trim();
  if (rest === '') return false;
  for (let guard = 0; rest !== '' && guard < 64; guard++) {
    const match = DURATION_PART.exec(rest);
    if (match === null) return false;
    rest = rest.slice(match[0].length).trim();
  }
  return rest === '';
};

const isBase64 = (value: string): boolean => /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0;

const CHECKS: Readonly<Record<string, (value: string) => boolean>> = {
  date: isDate,
  'date-time': isDateTime,
  datetime: isDateTime,
  byte: isBase64,
  ipv4: isIpv4,
  ipv6: isIpv6,
  cidr: isCidr,
  mac: (value) => MAC.test(value),
  uuid: (value) => UUID.test(value),
  uuid3: (value) => UUID.test(value) && /^.{8}-?.{4}-?3/.test(value),
  uuid4: (value) => UUID.test(value) && /^.{8}-?.{4}-?4.{3}-?[89aAbB]/.test(value),
  uuid5: (value) => UUID.test(value) && /^.{8}-?.{4}-?5.{3}-?[89aAbB]/.test(value),
  hostname: isHostname,
  email: isEmail,
  duration: isDuration,
  hexcolor: (value) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value),
  bsonobjectid: (value) => /^[0-9a-fA-F]{24}$/.test(value),
};

/** Whether a string has the format; formats the server does not check always pass. */
export const hasFormat = (format: string, value: string): boolean => CHECKS[format]?.(value) ?? true;
