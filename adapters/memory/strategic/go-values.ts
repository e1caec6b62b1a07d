/**
 * JSON values as Go's `encoding/json` decodes them into `interface{}` and as `fmt` prints them:
 * the strategic merge patch's errors quote the patch with `%v` (`map[image:nginx]`), and its
 * merges compare element types the way `reflect.TypeOf` does (an int64 is not a float64).
 */

/** A JSON value the merge may change in place: private copies only (see `working`). */
export type Value = null | boolean | number | string | Value[] | Obj;
export type Obj = { [key: string]: Value };

export const isObj = (value: Value | undefined): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `reflect.TypeOf(v).String()` of a decoded JSON value (integers decode as int64: PreserveInts). */
export const goType = (value: Value | undefined): string => {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object') return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
};

/** `%v` of a float64: shortest digits, exponent below 1e-4 and from 1e21, two exponent digits at least. */
const goFloat = (value: number): string => {
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e21)) {
    const [digits = '', exponent = '0'] = value.toExponential().split('e');
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${digits}e${sign}${exponent.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(value);
};

/** `fmt.Sprintf("%v", v)`: maps with sorted keys, slices space-separated, nil as `<nil>`. */
export const goFormat = (value: Value | undefined): string => {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (typeof value === 'object')
    return `map[${Object.keys(value)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => `${key}:${goFormat(value[key])}`)
      .join(' ')}]`;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  return String(value);
};

/** `fmt.Sprintf("%s", v)`: a string as it is, anything else as Go's `%!s(type=value)`. */
export const goString = (value: Value | undefined): string =>
  typeof value === 'string'
    ? value
    : value === null || value === undefined
      ? '%!s(<nil>)'
      : `%!s(${goType(value)}=${goFormat(value)})`;

/** `%s` of `reflect.TypeOf(v)`, as mergepatch.ErrBadArgType prints it (nil has no type). */
export const goTypeName = (value: Value | undefined): string =>
  value === null || value === undefined ? '%!s(<nil>)' : goType(value);

/**
 * `==` of two `interface{}` values holding decoded JSON: scalars by value (the JSON text cannot
 * tell int64 from float64 here, so numbers compare by value); maps and slices are never equal
 * (Go panics on them, a request no client sends).
 */
export const goEqual = (a: Value | undefined, b: Value | undefined): boolean =>
  (a === null || typeof a !== 'object') && a === b;

/** A private, mutable copy of a JSON value (own-property semantics: `__proto__` stays data). */
export const working = (value: unknown): Value => {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string')
    return value;
  if (Array.isArray(value)) return value.map(working);
  const copy: Obj = {};
  if (typeof value === 'object')
    for (const [key, member] of Object.entries(value)) setMember(copy, key, working(member));
  return copy;
};

/** Sets an own member; `__proto__` by definition, where assignment would change the prototype. */
export const setMember = (target: Obj, key: string, value: Value): void => {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
};

export const hasMember = (target: Obj, key: string): boolean => Object.prototype.hasOwnProperty.call(target, key);

/** An own member, never one from the prototype chain. */
export const member = (target: Obj, key: string): Value | undefined =>
  hasMember(target, key) ? target[key] : undefined;
