/**
 * `metadata` as the API server manages it: system fields set on create and carried over on
 * update (clients cannot change uid, creationTimestamp, deletion fields or generation), unknown
 * members dropped, labels / annotations / owner references validated.
 */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import type { ObjectMeta } from '../../../core/model/resource.js';
import type { ErrorCause } from '../../../core/ports/errors.js';
import { isLabelValue, isQualifiedName } from './label-syntax.js';
import { defined } from '../../../core/json/defined.js';

const knownFields = new Set([
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  // A client's managedFields are input to the field manager (../field-manager), which writes the stored ones.
  'managedFields',
]);

/** Server-owned fields a client's body never sets. */
const systemFields = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** Kubernetes timestamps are RFC 3339 with second precision. */
export const timestamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Keeps only ObjectMeta's fields (selfLink, removed upstream, is dropped). */
export const pruneMeta = (meta: JsonObject): JsonObject =>
  objectFromEntries(
    Object.keys(meta)
      .filter((key) => knownFields.has(key))
      .map((key) => [key, getOwn(meta, key) ?? null] as const),
  );

export const withoutSystemFields = (meta: JsonObject): JsonObject =>
  objectFromEntries(Object.entries(meta).filter(([key]) => !systemFields.includes(key)));

/**
 * Metadata of a new object: client-set system fields dropped, then assigned by the server. Kinds
 * that keep no generation store whatever generation the client sent (kube-apiserver does not
 * clear it; only strategies that track one set it to 1).
 */
export const createdMeta = (
  meta: JsonObject,
  fields: { readonly uid: string; readonly now: number; readonly generation: boolean; readonly namespace?: string },
): ObjectMeta => {
  const { namespace: _ignored, ...rest } = withoutSystemFields(pruneMeta(meta));
  const sent = getOwn(meta, 'generation');
  // The pruned metadata keeps `name` (pruneMeta drops only unknown and system fields): an ObjectMeta.
  return {
    ...rest,
    ...defined({ namespace: fields.namespace }),
    uid: fields.uid,
    creationTimestamp: timestamp(fields.now),
    ...(fields.generation ? { generation: 1 } : typeof sent === 'number' ? { generation: sent } : {}),
  } as ObjectMeta;
};

/** Metadata after an update: the client's mutable fields over the stored system fields. */
export const updatedMeta = (current: ObjectMeta, candidate: JsonObject): ObjectMeta => {
  const carried = objectFromEntries(
    ['name', 'namespace', ...systemFields]
      .filter((key) => getOwn(current, key) !== undefined)
      .map((key) => [key, getOwn(current, key) ?? null] as const),
  );
  // The pruned metadata keeps `name` (pruneMeta drops only unknown and system fields): an ObjectMeta.
  return { ...withoutSystemFields(pruneMeta(candidate)), ...carried } as ObjectMeta;
};

/** Field causes for invalid labels, annotation keys and owner references. */
export const metaCauses = (meta: JsonObject): ReadonlyArray<ErrorCause> => [
  ...mapCauses(getOwn(meta, 'labels'), 'metadata.labels', true),
  ...mapCauses(getOwn(meta, 'annotations'), 'metadata.annotations', false),
  ...ownerCauses(getOwn(meta, 'ownerReferences')),
  ...finalizerCauses(getOwn(meta, 'finalizers')),
];

const invalid = (field: string, message: string): ErrorCause => ({ field, reason: 'FieldValueInvalid', message });

const mapCauses = (map: JsonValue | undefined, field: string, labels: boolean): ReadonlyArray<ErrorCause> => {
  if (map === undefined || map === null) return [];
  if (!isJsonObject(map)) return [invalid(field, 'must be a map of strings')];
  return Object.entries(map).flatMap(([key, value]) => [
    ...(isQualifiedName(key)
      ? []
      : [
          invalid(field, `Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.'`),
        ]),
    ...(typeof value !== 'string'
      ? [invalid(`${field}.${key}`, 'must be a string')]
      : labels && !isLabelValue(value)
        ? [invalid(`${field}.${key}`, `Invalid value: "${value}": a valid label must be 63 characters or less`)]
        : []),
  ]);
};

const ownerCauses = (owners: JsonValue | undefined): ReadonlyArray<ErrorCause> => {
  if (owners === undefined || owners === null) return [];
  if (!isJsonArray(owners)) return [invalid('metadata.ownerReferences', 'must be a list')];
  const missing = owners.flatMap((owner, i) =>
    ['apiVersion', 'kind', 'name', 'uid']
      .filter(
        (field) => !isJsonObject(owner) || typeof getOwn(owner, field) !== 'string' || getOwn(owner, field) === '',
      )
      .map((field) =>
        invalid(`metadata.ownerReferences[${i}].${field}`, `Invalid value: "": ${field} must not be empty`),
      ),
  );
  const controllers = owners.filter((owner) => isJsonObject(owner) && getOwn(owner, 'controller') === true).length;
  return controllers > 1
    ? [...missing, invalid('metadata.ownerReferences', 'Only one reference can have Controller set to true')]
    : missing;
};

const finalizerCauses = (finalizers: JsonValue | undefined): ReadonlyArray<ErrorCause> =>
  finalizers === undefined ||
  finalizers === null ||
  (isJsonArray(finalizers) && finalizers.every((f) => typeof f === 'string' && isQualifiedName(f)))
    ? []
    : [invalid('metadata.finalizers', 'each finalizer must be a qualified name')];
