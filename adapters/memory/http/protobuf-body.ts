/**
 * Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), as
 * client-go's typed clients send them: `kubectl create namespace`, `create configmap` and `create
 * secret` post protobuf and do not fall back to JSON on a 415. Decoded here into the JSON object
 * the same request would carry, for the kinds those commands create; any other kind is refused
 * with 415 (kubectl's `create -f` and `apply` send JSON).
 *
 * The envelope (k8s.io/apimachinery runtime/serializer/protobuf): the magic `k8s\0`, then a
 * `runtime.Unknown` message {1: TypeMeta {1: apiVersion, 2: kind}, 2: raw (the object's message),
 * 3: contentEncoding, 4: contentType}. Field numbers below are those of the generated.proto files
 * of k8s.io/api core/v1 and k8s.io/apimachinery meta/v1.
 */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';

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
const numberOf = (field: Field): number => {
  if (typeof field.value !== 'bigint') throw new Malformed(`field ${field.number} is bytes, not a number`);
  return Number(BigInt.asIntN(64, field.value));
};

/** How one field number of a message becomes a JSON field. */
type FieldRule =
  | { readonly name: string; readonly type: 'string' | 'int' | 'bool' | 'time' }
  | { readonly name: string; readonly type: 'strings' }
  | { readonly name: string; readonly type: 'map'; readonly values: 'string' | 'base64' }
  | { readonly name: string; readonly type: 'message'; readonly schema: Schema; readonly repeated?: boolean };
type Schema = Readonly<Record<number, FieldRule>>;

const OWNER_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};
const OBJECT_META: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  11: { name: 'labels', type: 'map', values: 'string' },
  12: { name: 'annotations', type: 'map', values: 'string' },
  13: { name: 'ownerReferences', type: 'message', schema: OWNER_REFERENCE, repeated: true },
  14: { name: 'finalizers', type: 'strings' },
};
const METADATA: FieldRule = { name: 'metadata', type: 'message', schema: OBJECT_META };

/** The kinds `kubectl create <kind>` posts in protobuf, by `apiVersion/kind`. */
const KINDS: ReadonlyMap<string, Schema> = new Map<string, Schema>([
  [
    'v1/Namespace',
    {
      1: METADATA,
      2: { name: 'spec', type: 'message', schema: { 1: { name: 'finalizers', type: 'strings' } } },
      3: { name: 'status', type: 'message', schema: { 1: { name: 'phase', type: 'string' } } },
    },
  ],
  [
    'v1/ConfigMap',
    {
      1: METADATA,
      2: { name: 'data', type: 'map', values: 'string' },
      3: { name: 'binaryData', type: 'map', values: 'base64' },
      4: { name: 'immutable', type: 'bool' },
    },
  ],
  [
    'v1/Secret',
    {
      1: METADATA,
      2: { name: 'data', type: 'map', values: 'base64' },
      3: { name: 'type', type: 'string' },
      4: { name: 'stringData', type: 'map', values: 'string' },
      5: { name: 'immutable', type: 'bool' },
    },
  ],
  ['v1/ServiceAccount', { 1: METADATA, 4: { name: 'automountServiceAccountToken', type: 'bool' } }],
]);

/** A map entry message: {1: key, 2: value}. */
const mapEntry = (bytes: Buffer, values: 'string' | 'base64'): [string, string] => {
  let key = '';
  let value = '';
  for (const field of fieldsOf(bytes)) {
    if (field.number === 1) key = textOf(field);
    if (field.number === 2) value = values === 'string' ? textOf(field) : bytesOf(field).toString('base64');
  }
  return [key, value];
};

/** A meta/v1 Time message {1: seconds, 2: nanos}, as RFC 3339 with second precision; undefined for the zero time (JSON null). */
const timeOf = (bytes: Buffer): string | undefined => {
  const seconds = fieldsOf(bytes).find((f) => f.number === 1);
  if (seconds === undefined || numberOf(seconds) === 0) return undefined;
  return new Date(numberOf(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/**
 * A field holding its type's zero value: an empty string, bytes or message, a zero time, or the
 * number 0. Booleans are never zero here: every boolean of these kinds is a pointer in Go, written
 * only when set, so a false one was set to false.
 */
const isZero = (field: Field): boolean =>
  typeof field.value === 'bigint' ? field.value === 0n : field.value.length === 0;

/** The list a repeated field has gathered so far (none before its first element). */
const listAt = (object: JsonObject, name: string): ReadonlyArray<JsonValue> => {
  const gathered = object[name];
  return isJsonArray(gathered) ? gathered : [];
};

const messageOf = (bytes: Buffer, schema: Schema, path: string): JsonObject => {
  const object: Record<string, JsonValue> = {};
  for (const field of fieldsOf(bytes)) {
    const rule = schema[field.number];
    // Go's marshaller writes every non-pointer field, zero or not: a zero value is an absent field in JSON.
    if (rule?.type !== 'bool' && isZero(field)) continue;
    if (rule === undefined)
      throw new Malformed(`${path}: field ${field.number} is not one the in-memory API server decodes`);
    const at = `${path}.${rule.name}`;
    switch (rule.type) {
      case 'string':
        object[rule.name] = textOf(field);
        break;
      case 'int':
        object[rule.name] = numberOf(field);
        break;
      case 'bool':
        object[rule.name] = numberOf(field) !== 0;
        break;
      case 'time': {
        const time = timeOf(bytesOf(field));
        if (time !== undefined) object[rule.name] = time;
        break;
      }
      case 'strings':
        object[rule.name] = [...listAt(object, rule.name), textOf(field)];
        break;
      case 'map': {
        const [key, value] = mapEntry(bytesOf(field), rule.values);
        const entries = object[rule.name];
        object[rule.name] = { ...(isJsonObject(entries) ? entries : {}), [key]: value };
        break;
      }
      case 'message': {
        const decoded = messageOf(bytesOf(field), rule.schema, at);
        // A message of zero fields only (an unset status) is absent, as the same request in JSON would leave it.
        if (!rule.repeated && Object.keys(decoded).length === 0) break;
        object[rule.name] = rule.repeated ? [...listAt(object, rule.name), decoded] : decoded;
        break;
      }
    }
  }
  return object;
};

const unsupported = (what: string): ClusterError =>
  clusterError(
    'UnsupportedMediaType',
    `the in-memory API server reads protobuf bodies of v1 Namespace, ConfigMap, Secret and ServiceAccount only, not ${what}: send JSON (kubectl create -f or kubectl apply -f do)`,
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
    const schema = KINDS.get(`${apiVersion}/${kind}`);
    if (schema === undefined) return E.left(unsupported(`${apiVersion} ${kind}`));
    return E.right({ apiVersion, kind, ...messageOf(raw, schema, kind) });
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    return E.left(clusterError('BadRequest', `the protobuf request body is malformed: ${error.message}`));
  }
};
