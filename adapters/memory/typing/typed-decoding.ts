/**
 * Objects decoded into their Go types where they enter the memory API server, refused
 * the way kube-apiserver 1.36 refuses a wrong-typed field on each path (checked against it by
 * test/contract/contract-types.ts):
 * - create and update: 400 BadRequest, `ConfigMap in version "v1" cannot be handled as a
 *   ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`;
 * - merge and JSON patch: 422 Invalid on the field `patch`, naming the patched object and the
 *   same decoding error;
 * - server-side apply: 500 InternalError, `failed to create typed patch object (…)` for a
 *   wrong type in the applied configuration, `failed to convert new object (…)` for a number
 *   that is no integer or bytes that are no base64 in the merged object.
 * Decoding also stores what the server stores: `[]byte` re-encoded, quantities canonical
 * (core/canonical), a null map value or list item of a scalar type as its zero value ("" for
 * strings and bytes, "0" for quantities).
 * Of a custom resource only the metadata is decoded here (its schema is checked elsewhere).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import { refOf, versionOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { redactEchoedObjects } from '../../../core/sensitive/echo.js';
import {
  fitsInteger,
  objectStruct,
  goPlain,
  goStructName,
  goSyntax,
  goTypeName,
  jsonKind,
  type FieldType,
  type ListKey,
} from './builtin-field-types.js';
import { canonicalized } from '../../../core/canonical/canonical.js';
import { decodeGoBase64 } from '../../../core/canonical/go-base64.js';
import type { KindInfo } from '../kinds/index.js';

type Decoded = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string };

/**
 * Where a value sits, as `encoding/json` names it: the innermost struct and the JSON field path (no keys, no indices).
 */
type GoPlace = { readonly struct: string; readonly path: ReadonlyArray<string> };

const ok = (value: JsonValue): Decoded => ({ ok: true, value });

const typeError = (what: string, place: GoPlace, type: FieldType): Decoded => ({
  ok: false,
  message: `json: cannot unmarshal ${what} into Go struct field ${place.struct}.${place.path.join('.')} of type ${goTypeName(type)}`,
});

const int32Type: FieldType = { type: 'scalar', scalar: 'int32', goName: 'int32' };

/** Decodes items in order; the first error is the answer (the Go decoder reports the first it saved). */
const decodeAll = <K>(
  entries: ReadonlyArray<readonly [K, JsonValue]>,
  decode: (key: K, value: JsonValue) => Decoded,
): { readonly ok: true; readonly values: ReadonlyArray<readonly [K, JsonValue]> } | Extract<Decoded, { ok: false }> => {
  const values: Array<readonly [K, JsonValue]> = [];
  for (const [key, value] of entries) {
    const decoded = decode(key, value);
    if (!decoded.ok) return decoded;
    values.push([key, decoded.value]);
  }
  return { ok: true, values };
};

/** `value` decoded as `encoding/json` decodes it into `type` (null leaves the zero value). */
const goDecode = (type: FieldType, value: JsonValue, place: GoPlace): Decoded => {
  if (value === null) return ok(value);
  switch (type.type) {
    case 'scalar':
      if (type.scalar === 'string')
        return typeof value === 'string' ? ok(value) : typeError(jsonKind(value), place, type);
      if (type.scalar === 'bool')
        return typeof value === 'boolean' ? ok(value) : typeError(jsonKind(value), place, type);
      if (typeof value !== 'number') return typeError(jsonKind(value), place, type);
      return fitsInteger(value, type.scalar) ? ok(value) : typeError(`number ${String(value)}`, place, type);
    case 'bytes': {
      if (typeof value !== 'string') return typeError(jsonKind(value), place, type);
      const decoded = decodeGoBase64(value);
      return decoded.ok ? ok(decoded.canonical) : { ok: false, message: decoded.message };
    }
    case 'intOrString':
      if (typeof value === 'string') return ok(value);
      if (typeof value !== 'number') return typeError(jsonKind(value), place, int32Type);
      return fitsInteger(value, 'int32') ? ok(value) : typeError(`number ${String(value)}`, place, int32Type);
    case 'map': {
      if (!isJsonObject(value)) return typeError(jsonKind(value), place, type);
      const decoded = decodeAll(Object.entries(value), (_key, item) => element(type.values, item, place));
      return decoded.ok ? ok(objectFromEntries(decoded.values)) : decoded;
    }
    case 'list': {
      if (!isJsonArray(value)) return typeError(jsonKind(value), place, type);
      const decoded = decodeAll(
        value.map((item, i) => [i, item] as const),
        (_i, item) => element(type.items, item, place),
      );
      return decoded.ok ? ok(decoded.values.map(([, item]) => item)) : decoded;
    }
    case 'struct': {
      if (!isJsonObject(value)) return typeError(jsonKind(value), place, type);
      const inner = (key: string): GoPlace => ({
        struct: goStructName(type),
        path: [...(type.detached === true ? [] : place.path), key],
      });
      const decoded = decodeAll(Object.entries(value), (key, item) => {
        const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
        return field === undefined ? ok(item) : goDecode(field, item, inner(key));
      });
      return decoded.ok ? ok(withoutEmpty(type, decoded.values)) : decoded;
    }
  }
};

const isEmptyCollection = (value: JsonValue): boolean =>
  (isJsonArray(value) && value.length === 0) || (isJsonObject(value) && Object.keys(value).length === 0);

/**
 * The struct's fields as the server writes them back: an empty map or list in a described field
 * is omitted (`omitempty`, which every map and list field of the described types carries): a
 * Secret's `data: {}` or a ConfigMap's `labels: {}` is not stored.
 */
const withoutEmpty = (
  type: Extract<FieldType, { type: 'struct' }>,
  values: ReadonlyArray<readonly [string, JsonValue]>,
): JsonObject =>
  objectFromEntries(
    values.filter(([key, value]) => {
      const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
      return !(field !== undefined && (field.type === 'map' || field.type === 'list') && isEmptyCollection(value));
    }),
  );

/** The Go zero value a null map value or list item of a scalar type becomes (`"a": null` is stored as `"a": ""`). */
const zeroValue = (type: FieldType): JsonValue | undefined => {
  if (type.type === 'bytes') return '';
  if (type.type !== 'scalar') return undefined;
  return type.scalar === 'string' ? '' : type.scalar === 'bool' ? false : 0;
};

const element = (type: FieldType, item: JsonValue, place: GoPlace): Decoded =>
  item === null ? ok(zeroValue(type) ?? null) : goDecode(type, item, place);

const typeOf = (info: KindInfo) => objectStruct(info.group, info.kind, info.custom);

/**
 * Quantities and bytes as the server stores them (core/canonical/canonical.ts), or the error of
 * the first it cannot parse (`resource.Quantity`'s decoder stops the decoding with its own words).
 */
const storedForm = (info: KindInfo, object: JsonObject): E.Either<string, JsonObject> => {
  const { value, problems } = canonicalized(info.group, info.kind, object);
  const first = problems[0];
  return first === undefined ? E.right(value) : E.left(first.message);
};

/**
 * A sent `managedFields: []` decodes to an empty but non-nil list, which the stored form omits:
 * kept, as it asks the field manager to clear them (../field-manager).
 */
const withResetRequest = (sent: JsonObject, decoded: JsonObject): JsonObject => {
  const meta = getOwn(sent, 'metadata');
  const managed = isJsonObject(meta) ? getOwn(meta, 'managedFields') : undefined;
  const decodedMeta = getOwn(decoded, 'metadata');
  return isJsonArray(managed) && managed.length === 0 && isJsonObject(decodedMeta)
    ? { ...decoded, metadata: { ...decodedMeta, managedFields: [] } }
    : decoded;
};

/** The object decoded into its kind's Go type, or the decoding error's text. */
const decodedObject = (info: KindInfo, object: JsonObject): E.Either<string, JsonObject> => {
  const decoded = goDecode(typeOf(info), object, { struct: info.kind, path: [] });
  if (!decoded.ok) return E.left(decoded.message);
  return isJsonObject(decoded.value)
    ? E.map((stored: JsonObject) => withResetRequest(object, stored))(storedForm(info, decoded.value))
    : E.left('the object is not a JSON object');
};

/** create and update: a body that does not decode is a 400 naming the kind and version. */
export const decodeObject = (info: KindInfo, object: Resource): E.Either<ClusterError, Resource> =>
  E.bimap(
    (message: string) =>
      clusterError(
        'BadRequest',
        `${info.kind} in version "${versionOf(object.apiVersion)}" cannot be handled as a ${info.kind}: ${message}`,
      ),
    // Decoding keeps every member and checked apiVersion, kind and metadata: still a Resource.
    (decoded: JsonObject) => decoded as Resource,
  )(decodedObject(info, object));

/** Merge and JSON patch: the patched object decoded, or a 422 on the field `patch` when it does not decode. */
export const decodePatched = (info: KindInfo, document: JsonValue): E.Either<ClusterError, JsonValue> => {
  if (!isJsonObject(document)) return E.right(document);
  return E.bimap(
    (message: string) => {
      // As the Kubernetes adapter answers it: the quoted object cut out (it may hold Secret values, issue 19).
      const cause = redactEchoedObjects(
        `Invalid value: ${JSON.stringify(JSON.stringify(document))}: ${message}`,
        info.group === '' && info.kind === 'Secret',
      );
      return clusterError('Invalid', ` "" is invalid: patch: ${cause}`, {
        causes: [{ field: 'patch', reason: 'FieldValueInvalid', message: cause }],
      });
    },
    (decoded: JsonObject): JsonValue => decoded,
  )(decodedObject(info, document));
};

// ---- server-side apply: the applied configuration is typed by the structured-merge-diff schema

const smdTypeName = (value: JsonValue): string => {
  if (isJsonArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  return typeof value === 'boolean' ? 'bool' : typeof value;
};

/** `[port=80,protocol="TCP"]` for an associative list's item; `[i]` otherwise. */
const itemName = (keys: ReadonlyArray<ListKey> | undefined, item: JsonValue, index: number): string => {
  if (keys === undefined || !isJsonObject(item)) return `[${index}]`;
  const parts = keys.flatMap(({ field, default: fallback }) => {
    const value = getOwn(item, field) ?? fallback;
    return value === undefined
      ? []
      : [`${field}=${typeof value === 'string' ? JSON.stringify(value) : goPlain(value)}`];
  });
  return `[${parts.join(',')}]`;
};

/** Every wrong type in an applied configuration, as structured-merge-diff words it. */
const smdProblems = (type: FieldType, value: JsonValue, path: string): ReadonlyArray<string> => {
  if (value === null) return [];
  switch (type.type) {
    case 'scalar':
      if (type.scalar === 'string')
        return typeof value === 'string'
          ? []
          : [`${path}: expected string, got &value.valueUnstructured{Value:${goSyntax(value)}}`];
      if (type.scalar === 'bool')
        return typeof value === 'boolean' ? [] : [`${path}: expected boolean, got &{${goPlain(value)}}`];
      return typeof value === 'number' ? [] : [`${path}: expected numeric (int or float), got ${smdTypeName(value)}`];
    case 'bytes':
      return typeof value === 'string'
        ? []
        : [`${path}: expected string, got &value.valueUnstructured{Value:${goSyntax(value)}}`];
    case 'intOrString':
      return [];
    case 'map':
      return isJsonObject(value)
        ? Object.entries(value).flatMap(([key, item]) => smdProblems(type.values, item, `${path}.${key}`))
        : [`${path}: expected map, got &{${goPlain(value)}}`];
    case 'list':
      return isJsonArray(value)
        ? value.flatMap((item, i) => smdProblems(type.items, item, `${path}${itemName(type.keys, item, i)}`))
        : [`${path}: expected list, got &{${goPlain(value)}}`];
    case 'struct':
      return isJsonObject(value)
        ? Object.entries(value).flatMap(([key, item]) => {
            const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
            return field === undefined ? [] : smdProblems(field, item, `${path}.${key}`);
          })
        : [`${path}: expected map, got &{${goPlain(value)}}`];
  }
};

const stringOr = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

/** `(namespace/name; group/version, Kind=Kind)` of the applied configuration, as the apply handler names it. */
const appliedName = (info: KindInfo, object: JsonObject): string => {
  const meta = getOwn(object, 'metadata');
  const field = (key: string): string => stringOr(isJsonObject(meta) ? getOwn(meta, key) : undefined);
  const groupVersion = `${info.group}/${versionOf(stringOr(getOwn(object, 'apiVersion')))}`;
  return `(${field('namespace')}/${field('name')}; ${groupVersion}, Kind=${info.kind})`;
};

/** Apply: an applied configuration with a wrong-typed field is a 500 (`failed to create typed patch object`). */
export const checkAppliedTypes = (info: KindInfo, body: Resource): E.Either<ClusterError, Resource> => {
  // The server lists them in Go's map order, which differs from run to run; sorted here, its most frequent order.
  const problems = [...smdProblems(typeOf(info), body, '')].sort();
  if (problems.length === 0) return E.right(body);
  const listed = problems.length === 1 ? problems[0] : `errors:\n  ${problems.join('\n  ')}`;
  return E.left(
    clusterError('Internal', `failed to create typed patch object ${appliedName(info, body)}: ${listed}`, {
      ref: refOf(body),
    }),
  );
};

type Converted = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string };

/**
 * The merged object as the unstructured converter turns it into the Go type: a number that is no
 * integer cannot fill an integer field, bytes must be base64; an integer out of an int32's range
 * wraps around (the converter narrows int64 without a check: 4294967298 is stored as 2).
 */
const converted = (type: FieldType, value: JsonValue): Converted => {
  if (value === null) return { ok: true, value };
  switch (type.type) {
    case 'scalar':
      if (typeof value !== 'number' || type.scalar === 'string' || type.scalar === 'bool') return { ok: true, value };
      if (!Number.isInteger(value)) return { ok: false, message: `cannot convert float64 to ${type.scalar}` };
      return { ok: true, value: type.scalar === 'int32' ? value | 0 : value };
    case 'intOrString':
      return typeof value === 'number' && Number.isInteger(value)
        ? { ok: true, value: value | 0 }
        : { ok: true, value };
    case 'bytes': {
      if (typeof value !== 'string') return { ok: true, value };
      const decoded = decodeGoBase64(value);
      return decoded.ok
        ? { ok: true, value: decoded.canonical }
        : { ok: false, message: `error decoding from json: ${decoded.message}` };
    }
    case 'map':
    case 'struct': {
      if (!isJsonObject(value)) return { ok: true, value };
      const fieldType = (key: string): FieldType | undefined =>
        type.type === 'map' ? type.values : Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
      const decoded = decodeAll(Object.entries(value), (key, item) => {
        const inner = fieldType(key);
        return inner === undefined ? ok(item) : converted(inner, item);
      });
      if (!decoded.ok) return decoded;
      return ok(type.type === 'struct' ? withoutEmpty(type, decoded.values) : objectFromEntries(decoded.values));
    }
    case 'list': {
      if (!isJsonArray(value)) return { ok: true, value };
      const decoded = decodeAll(
        value.map((item, i) => [i, item] as const),
        (_i, item) => converted(type.items, item),
      );
      return decoded.ok ? ok(decoded.values.map(([, item]) => item)) : decoded;
    }
  }
};

/**
 * Apply: the merged object converted to the kind's Go type, or a 500 (`failed to convert new
 * object`, named after the applied configuration `body` as the server names it).
 */
export const convertApplied = (
  info: KindInfo,
  body: Resource,
  merged: JsonValue,
): E.Either<ClusterError, JsonValue> => {
  if (!isJsonObject(merged)) return E.right(merged);
  const result = converted(typeOf(info), merged);
  const stored: Converted =
    result.ok && isJsonObject(result.value)
      ? E.match(
          (message: string): Converted => ({ ok: false, message }),
          (value: JsonObject): Converted => ({ ok: true, value }),
        )(storedForm(info, result.value))
      : result;
  if (stored.ok) return E.right(stored.value);
  const groupVersion = `${info.group}/${versionOf(body.apiVersion)}`;
  return E.left(
    clusterError(
      'Internal',
      `failed to convert new object ${appliedName(info, body)} to proper version: unable to convert unstructured object to ${groupVersion}, Kind=${info.kind}: ${stored.message}`,
      { ref: refOf(body) },
    ),
  );
};
