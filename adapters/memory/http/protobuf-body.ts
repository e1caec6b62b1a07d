/**
 * Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), as
 * client-go's typed clients send them: `kubectl create deployment|job|cronjob|service|namespace|
 * configmap|secret|…` post protobuf and do not fall back to JSON on a 415. Decoded here, for
 * every built-in kind, into the JSON object the same request would carry (what Go's
 * encoding/json writes for the decoded struct: omitempty fields left out when zero, others
 * written, nil lists and pointers as null), driven by the field table generated from k8s.io/api
 * (schemas/kubernetes-<minor>.protobuf.json, tools/k8s-go). A kind the table lacks (a custom
 * resource: client-go sends those as JSON) is refused with 415.
 *
 * The envelope (k8s.io/apimachinery runtime/serializer/protobuf): the magic `k8s\0`, then a
 * `runtime.Unknown` message {1: TypeMeta {1: apiVersion, 2: kind}, 2: raw (the object's message),
 * 3: contentEncoding, 4: contentType}.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  isJsonObject,
  jsonEqual,
  parseJsonText,
  setOwn,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { readProtobufTable, type ProtobufField, type ProtobufTable } from '../../schemas/builtin-protobuf.js';
import { goDuration, rfc3339 } from './protobuf-values.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** One field of a message: its number and its value (a varint as bigint, or bytes). */
type Field = { readonly number: number; readonly value: bigint | Buffer };

class Malformed extends Error {}

const varint = (bytes: Buffer, at: number): [bigint, number] => {
  let result = 0n;
  let shift = 0n;
  for (let i = at; i < bytes.length && shift < 70n; i++) {
    const byte = bytes[i] ?? 0;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, i + 1];
    shift += 7n;
  }
  throw new Malformed('truncated varint');
};

/** The fields of one message, in wire order (repeated fields appear once per element). */
const fieldsOf = (bytes: Buffer): ReadonlyArray<Field> => {
  const fields: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    const [key, next] = varint(bytes, at);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    at = next;
    if (wire === 0) {
      const [value, after] = varint(bytes, at);
      fields.push({ number, value });
      at = after;
    } else if (wire === 2) {
      const [length, after] = varint(bytes, at);
      const end = after + Number(length);
      if (end > bytes.length) throw new Malformed('a field runs past the end of the message');
      fields.push({ number, value: bytes.subarray(after, end) });
      at = end;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (at + size > bytes.length) throw new Malformed('truncated fixed-width field');
      fields.push({ number, value: bytes.subarray(at, at + size) });
      at += size;
    } else throw new Malformed(`unsupported wire type ${wire}`);
  }
  return fields;
};

const bytesOf = (field: Field): Buffer => {
  if (typeof field.value === 'bigint') throw new Malformed(`field ${field.number} is a number, not bytes`);
  return field.value;
};
const textOf = (field: Field): string => bytesOf(field).toString('utf8');
const varintOf = (field: Field): bigint => {
  if (typeof field.value !== 'bigint') throw new Malformed(`field ${field.number} is bytes, not a number`);
  return field.value;
};
const numberOf = (field: Field): number => Number(BigInt.asIntN(64, varintOf(field)));

/** The table, with each type's fields by number: read once when the module loads (the file is immutable). */
type Types = ReadonlyMap<string, ReadonlyArray<ProtobufField>>;
const loadTypes = (table: ProtobufTable): Types => new Map(Object.entries(table.types));
const TABLE = readProtobufTable();
const TYPES = loadTypes(TABLE);

/** Nesting allowed in a body: deeper than any built-in kind's types go. */
const MAX_DEPTH = 64;

const fixedOf = (field: Field, bits: 32 | 64): number => {
  const bytes = bytesOf(field);
  if (bytes.length !== bits / 8) throw new Malformed(`field ${field.number} is not a ${bits}-bit number`);
  return bits === 64 ? bytes.readDoubleLE(0) : bytes.readFloatLE(0);
};

/** A meta/v1 Time or MicroTime message {1: seconds, 2: nanos}; the zero time is JSON null. */
const timeOf = (bytes: Buffer, micro: boolean): JsonValue => {
  const fields = fieldsOf(bytes);
  const seconds =
    fields
      .filter((f) => f.number === 1)
      .map(numberOf)
      .pop() ?? 0;
  const nanos =
    fields
      .filter((f) => f.number === 2)
      .map(numberOf)
      .pop() ?? 0;
  return seconds === 0 && nanos === 0 ? null : rfc3339(seconds, micro ? nanos : 0, micro);
};

/** The last value of field `number` in a small message (Quantity, IntOrString, RawExtension, Duration). */
const lastOf = (bytes: Buffer, number: number): Field | undefined =>
  fieldsOf(bytes)
    .filter((f) => f.number === number)
    .pop();

const intOrString = (bytes: Buffer): JsonValue => {
  const type = lastOf(bytes, 1);
  if (type !== undefined && numberOf(type) === 1) {
    const text = lastOf(bytes, 3);
    return text === undefined ? '' : textOf(text);
  }
  const value = lastOf(bytes, 2);
  return value === undefined ? 0 : numberOf(value);
};

/** RawExtension and FieldsV1 carry JSON bytes: the JSON they hold, null when empty. */
const rawJson = (bytes: Buffer, path: string): JsonValue => {
  const raw = lastOf(bytes, 1);
  if (raw === undefined || bytesOf(raw).length === 0) return null;
  try {
    return parseJsonText(textOf(raw));
  } catch {
    throw new Malformed(`${path}: the embedded object is not JSON`);
  }
};

/** The JSON of one element on the wire, by the table's element name. */
const elementOf = (field: Field, element: string, path: string, depth: number): JsonValue => {
  switch (element) {
    case 'string':
      return textOf(field);
    case 'bool':
      return varintOf(field) !== 0n;
    case 'int':
      return numberOf(field);
    case 'uint':
      return Number(BigInt.asUintN(64, varintOf(field)));
    case 'float64':
    case 'float32':
      return fixedOf(field, element === 'float64' ? 64 : 32);
    case 'bytes':
      return bytesOf(field).toString('base64');
    case 'time':
    case 'microtime':
      return timeOf(bytesOf(field), element === 'microtime');
    case 'duration': {
      const nanoseconds = lastOf(bytesOf(field), 1);
      return goDuration(nanoseconds === undefined ? 0n : BigInt.asIntN(64, varintOf(nanoseconds)));
    }
    case 'quantity': {
      const text = lastOf(bytesOf(field), 1);
      return text === undefined ? '0' : textOf(text);
    }
    case 'intorstring':
      return intOrString(bytesOf(field));
    case 'raw':
      return rawJson(bytesOf(field), path);
    default:
      return messageOf(bytesOf(field), element, path, depth + 1);
  }
};

/** What encoding/json writes for a field the message does not carry (nil, or the type's zero value). */
const zeroOf = (spec: ProtobufField, path: string, depth: number): JsonValue => {
  const [, , element, flags] = spec;
  if (/[plm]/.test(flags)) return null;
  switch (element) {
    case 'string':
      return '';
    case 'int':
    case 'uint':
    case 'float64':
    case 'float32':
    case 'intorstring':
      return 0;
    case 'bool':
      return false;
    case 'bytes':
    case 'time':
    case 'microtime':
    case 'raw':
      return null;
    case 'duration':
      return '0s';
    case 'quantity':
      return '0';
    default:
      return messageOf(Buffer.alloc(0), element, path, depth + 1);
  }
};

const SCALARS: ReadonlySet<string> = new Set(['string', 'bool', 'int', 'uint', 'float64', 'float32', 'bytes']);

/**
 * Whether omitempty can leave the field out: pointers, lists, maps and scalars (never a struct, a Time or a Quantity).
 */
const omittable = ([, , element, flags]: ProtobufField): boolean => /[plm]/.test(flags) || SCALARS.has(element);

/** Whether omitempty leaves a written value out: "", 0, false, an empty list or map, nil. */
const isEmpty = (value: JsonValue): boolean =>
  value === '' || value === 0 || value === false || value === null || (Array.isArray(value) && value.length === 0);

/** A map entry message {1: key, 2: value}. */
const mapEntry = (field: Field, element: string, path: string, depth: number): [string, JsonValue] => {
  const entry = fieldsOf(bytesOf(field));
  const key = entry.filter((f) => f.number === 1).pop();
  const value = entry.filter((f) => f.number === 2).pop();
  const name = key === undefined ? '' : typeof key.value === 'bigint' ? String(numberOf(key)) : textOf(key);
  return [
    name,
    value === undefined
      ? zeroOf([2, name, element, ''], `${path}.${name}`, depth)
      : elementOf(value, element, `${path}.${name}`, depth),
  ];
};

/** Repeated scalars may come packed (one length-delimited run of varints). */
const unpacked = (field: Field, element: string): ReadonlyArray<Field> => {
  if (typeof field.value === 'bigint' || !['int', 'uint', 'bool'].includes(element)) return [field];
  const values: Field[] = [];
  for (let at = 0; at < field.value.length;) {
    const [value, next] = varint(field.value, at);
    values.push({ number: field.number, value });
    at = next;
  }
  return values;
};

/** The JSON of one field from its occurrences on the wire; undefined when encoding/json would leave it out. */
const fieldValue = (
  spec: ProtobufField,
  occurrences: ReadonlyArray<Field>,
  path: string,
  depth: number,
): JsonValue | undefined => {
  const [, name, element, flags] = spec;
  const at = `${path}.${name}`;
  if (occurrences.length === 0)
    return (flags.includes('o') && omittable(spec)) || flags.includes('z') ? undefined : zeroOf(spec, at, depth);
  if (flags.includes('m')) {
    const entries: Record<string, JsonValue> = {};
    for (const field of occurrences) {
      const [key, value] = mapEntry(field, element, at, depth);
      setOwn(entries, key, value);
    }
    return entries;
  }
  if (flags.includes('l'))
    return occurrences
      .flatMap((field) => unpacked(field, element))
      .map((field) => elementOf(field, element, at, depth));
  const last = occurrences.at(-1);
  const value = last === undefined ? null : elementOf(last, element, at, depth);
  if (flags.includes('p')) return value;
  if (flags.includes('o') && omittable(spec) && isEmpty(value)) return undefined;
  if (flags.includes('z') && jsonEqual(value, zeroOf(spec, at, depth))) return undefined;
  return value;
};

/** A message of a table type as encoding/json writes its struct; a list wrapper (ExtraValue) as its list. */
const messageOf = (bytes: Buffer, type: string, path: string, depth: number): JsonObject | JsonValue => {
  if (depth > MAX_DEPTH) throw new Malformed(`${path}: nested deeper than ${MAX_DEPTH} messages`);
  const specs = TYPES.get(type);
  if (specs === undefined) throw new Malformed(`${path}: no protobuf type ${type}`);
  const fields = fieldsOf(bytes);
  const object: Record<string, JsonValue> = {};
  for (const spec of specs) {
    const occurrences = fields.filter((field) => field.number === spec[0]);
    if (spec[3].includes('w')) return fieldValue([spec[0], spec[1], spec[2], 'l'], occurrences, path, depth) ?? [];
    if (spec[3].includes('i')) {
      // An inlined struct (a Volume's VolumeSource): its own message on the wire, its members in the parent's JSON.
      const last = occurrences.at(-1);
      const inline =
        last === undefined
          ? zeroOf([spec[0], spec[1], spec[2], ''], path, depth)
          : elementOf(last, spec[2], path, depth);
      if (isJsonObject(inline)) for (const [key, value] of Object.entries(inline)) setOwn(object, key, value);
      continue;
    }
    const value = fieldValue(spec, occurrences, path, depth);
    if (value !== undefined) setOwn(object, spec[1], value);
  }
  return object;
};

const unsupported = (what: string): ClusterError =>
  clusterError(
    'UnsupportedMediaType',
    `the in-memory API server reads protobuf bodies of Kubernetes' built-in kinds only, not ${what}: send JSON (client-go sends custom resources as JSON)`,
    { code: 415 },
  );

/**
 * The JSON object a protobuf request body stands for. Errors: 400 for a body that is not a
 * Kubernetes protobuf envelope or is malformed; 415 for a kind this server does not decode.
 */
export const decodeProtobufBody = (body: Buffer): E.Either<ClusterError, JsonObject> => {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC))
    return E.left(clusterError('BadRequest', 'the protobuf request body does not start with the k8s\\0 envelope'));
  try {
    let apiVersion = '';
    let kind = '';
    let raw: Buffer = Buffer.alloc(0);
    for (const field of fieldsOf(body.subarray(MAGIC.length))) {
      if (field.number === 1)
        for (const meta of fieldsOf(bytesOf(field))) {
          if (meta.number === 1) apiVersion = textOf(meta);
          if (meta.number === 2) kind = textOf(meta);
        }
      if (field.number === 2) raw = bytesOf(field);
    }
    const type = TABLE.kinds[apiVersion]?.[kind];
    if (type === undefined) return E.left(unsupported(`${apiVersion} ${kind}`));
    const object = messageOf(raw, type, kind, 0);
    if (!isJsonObject(object)) throw new Malformed(`${kind} is not an object`);
    return E.right({ apiVersion, kind, ...object });
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    return E.left(clusterError('BadRequest', `the protobuf request body is malformed: ${error.message}`));
  }
};
