/**
 * One step of a field path, as structured-merge-diff names them (docs/decisions/0027): a struct
 * or map field (`f:name`), a keyed list item (`k:{"name":"web"}`), a set item (`v:"a"`) or an
 * index (`i:0`, never produced for the kinds served). Serialized forms are the FieldsV1 keys and
 * the identity of an element (two elements are equal when their serializations are).
 */
import { isJsonArray, isJsonObject, parseJsonText, type JsonValue } from '../../../core/json/json.js';

export type KeyField = readonly [name: string, value: JsonValue];

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: ReadonlyArray<KeyField> }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export type Path = ReadonlyArray<PathElement>;

export const fieldElement = (name: string): PathElement => ({ kind: 'field', name });

/** Strings ordered as Go orders them (by UTF-8 bytes, that is by code point). */
export const compareText = (a: string, b: string): number => {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
};

const rank = (value: JsonValue): number => {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return 1;
  if (typeof value === 'boolean') return 2;
  if (isJsonArray(value)) return 3;
  return isJsonObject(value) ? 4 : 5;
};

/** structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null. */
export const compareValues = (a: JsonValue, b: JsonValue): number => {
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return Math.sign(byRank);
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (isJsonArray(a) && isJsonArray(b)) return compareLists(a, b);
  if (isJsonObject(a) && isJsonObject(b)) return compareMaps(a, b);
  return 0;
};

const compareLists = (a: ReadonlyArray<JsonValue>, b: ReadonlyArray<JsonValue>): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareValues(a[i] ?? null, b[i] ?? null);
    if (order !== 0) return order;
  }
  return Math.sign(a.length - b.length);
};

const compareMaps = (a: { readonly [key: string]: JsonValue }, b: { readonly [key: string]: JsonValue }): number =>
  compareKeyFields(
    Object.keys(a)
      .sort(compareText)
      .map((key) => [key, a[key] ?? null] as const),
    Object.keys(b)
      .sort(compareText)
      .map((key) => [key, b[key] ?? null] as const),
  );

const compareKeyFields = (a: ReadonlyArray<KeyField>, b: ReadonlyArray<KeyField>): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [nameA, valueA] = a[i] ?? ['', null];
    const [nameB, valueB] = b[i] ?? ['', null];
    const order = compareText(nameA, nameB) || compareValues(valueA, valueB);
    if (order !== 0) return order;
  }
  return Math.sign(a.length - b.length);
};

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** The order FieldsV1 lists elements in: fields by name, then keys, values and indexes. */
export const compareElements = (a: PathElement, b: PathElement): number => {
  if (a.kind !== b.kind) return Math.sign(KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  if (a.kind === 'field' && b.kind === 'field') return compareText(a.name, b.name);
  if (a.kind === 'key' && b.kind === 'key') return compareKeyFields(a.fields, b.fields);
  if (a.kind === 'value' && b.kind === 'value') return compareValues(a.value, b.value);
  return a.kind === 'index' && b.kind === 'index' ? Math.sign(a.index - b.index) : 0;
};

const keyObject = (fields: ReadonlyArray<KeyField>): string =>
  `{${fields.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}}`;

/** The FieldsV1 key of an element, which is also its identity. */
export const serializeElement = (element: PathElement): string => {
  switch (element.kind) {
    case 'field':
      return `f:${element.name}`;
    case 'key':
      return `k:${keyObject(element.fields)}`;
    case 'value':
      return `v:${JSON.stringify(element.value)}`;
    case 'index':
      return `i:${element.index}`;
  }
};

const parseJson = (text: string): JsonValue | undefined => {
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
};

/**
 * A FieldsV1 key back to its element; undefined for a kind of element this server does not know (skipped, as SMD does).
 */
export const parseElement = (text: string): PathElement | 'malformed' | undefined => {
  const body = text.slice(2);
  switch (text.slice(0, 2)) {
    case 'f:':
      return fieldElement(body);
    case 'v:': {
      const value = parseJson(body);
      return value === undefined ? 'malformed' : { kind: 'value', value };
    }
    case 'i:':
      return /^\d+$/.test(body) ? { kind: 'index', index: Number(body) } : 'malformed';
    case 'k:': {
      const value = parseJson(body);
      if (!isJsonObject(value)) return 'malformed';
      const fields = Object.keys(value)
        .sort(compareText)
        .map((name) => [name, value[name] ?? null] as const);
      return { kind: 'key', fields };
    }
    default:
      return undefined;
  }
};

/** A value as Go's `%v` of structured-merge-diff's value.ToString prints it (strings quoted). */
const valueText = (value: JsonValue): string => {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (isJsonArray(value)) return `[${value.map(valueText).join(',')}]`;
  if (isJsonObject(value))
    return Object.keys(value)
      .map((key) => `${key}=${valueText(value[key] ?? null)}`)
      .join('');
  return String(value);
};

/** A path as conflict messages print it: `.spec.containers[name="web"].image`. */
export const pathText = (path: Path): string =>
  path
    .map((element) => {
      switch (element.kind) {
        case 'field':
          return `.${element.name}`;
        case 'key':
          return `[${element.fields.map(([name, value]) => `${name}=${valueText(value)}`).join(',')}]`;
        case 'value':
          return `[=${valueText(element.value)}]`;
        case 'index':
          return `[${element.index}]`;
      }
    })
    .join('');
