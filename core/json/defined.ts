/**
 * The one way to build an object with optional fields (issue 40 item 5): `defined({ a, b: c.b })` keeps the
 * fields whose value is defined, so an absent value is an absent key. JSON output, deep equality and
 * `in`/`Object.keys` checks never see `key: undefined`, which the types allow without exactOptionalPropertyTypes.
 *
 * It replaces `...(a === undefined ? {} : { a })` spreads. A conditional spread stays only where the field's
 * value is computed from the tested one (`...(x === undefined ? {} : { y: f(x) })`): there `f` must not run on
 * `undefined`. Lint (tools/lint/no-module-state.js, rule `prefer-defined`) refuses the other kind.
 */
/** `T` with each field optional and never `undefined`. */
export type Defined<T> = { [K in keyof T]?: NonNullable<T[K]> | (T[K] & null) };

export const defined = <T extends object>(fields: T): Defined<T> => {
  const kept: Defined<T> = {};
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
};
