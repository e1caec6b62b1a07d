/**
 * `metadata.managedFields` read and written as k8s.io/apimachinery's managedfields package does:
 * one entry per manager identity (name, operation, apiVersion for Update, subresource), its
 * field set in FieldsV1 and its time; entries sorted by operation, time, manager, apiVersion and
 * subresource; no entry with an empty set.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  parseJsonText,
  type JsonObject,
  type JsonValue,
} from '../../../core/json/json.js';
import { jsonText } from '../../../core/json/text.js';
import { isEmptySet, type FieldSet } from './field-set.js';
import { decodeFieldsV1, encodeFieldsV1 } from './fields-v1.js';
import { compareText } from './path-element.js';
import { defined } from '../../../core/json/defined.js';

export type Operation = 'Apply' | 'Update';

export type ManagerIdentity = {
  readonly manager: string;
  readonly operation: Operation;
  /** Only Update identities carry their version: one applier is one manager whatever version it applies at. */
  readonly apiVersion?: string;
  readonly subresource?: string;
};

export type VersionedSet = { readonly set: FieldSet; readonly apiVersion: string; readonly applied: boolean };

/** Field sets and times by manager key (managerKey). */
export type Managed = {
  readonly fields: ReadonlyMap<string, VersionedSet>;
  readonly times: ReadonlyMap<string, string>;
};

export const EMPTY_MANAGED: Managed = { fields: new Map(), times: new Map() };

/** The identity as one string, the JSON the server keys managers by (BuildManagerIdentifier). */
export const managerKey = (identity: ManagerIdentity): string =>
  JSON.stringify({
    ...(identity.manager === '' ? {} : { manager: identity.manager }),
    operation: identity.operation,
    ...(identity.operation === 'Update' && identity.apiVersion ? { apiVersion: identity.apiVersion } : {}),
    ...(identity.subresource ? { subresource: identity.subresource } : {}),
  });

const text = (entry: JsonObject, key: string): string => {
  const value = getOwn(entry, key);
  return typeof value === 'string' ? value : '';
};

/** The identity a key names (keys are only ever built by managerKey). */
export const identityOf = (key: string): ManagerIdentity => {
  const parsed = parseJsonText(key);
  const entry = isJsonObject(parsed) ? parsed : {};
  return {
    manager: text(entry, 'manager'),
    operation: text(entry, 'operation') === 'Apply' ? 'Apply' : 'Update',
    ...(text(entry, 'apiVersion') === '' ? {} : { apiVersion: text(entry, 'apiVersion') }),
    ...(text(entry, 'subresource') === '' ? {} : { subresource: text(entry, 'subresource') }),
  };
};

const decodeEntry = (entry: JsonValue, index: number): E.Either<string, readonly [string, VersionedSet, string]> => {
  if (!isJsonObject(entry)) return E.left(`managed fields entry ${index} is not an object`);
  const operation = text(entry, 'operation');
  if (operation !== 'Apply' && operation !== 'Update') return E.left('operation must be `Apply` or `Update`');
  const apiVersion = text(entry, 'apiVersion');
  if (apiVersion === '') return E.left('apiVersion must not be empty');
  const fieldsType = text(entry, 'fieldsType');
  if (fieldsType !== 'FieldsV1')
    return E.left(
      fieldsType === ''
        ? `missing fieldsType in managed fields entry ${index}`
        : `invalid fieldsType "${fieldsType}" in managed fields entry ${index}`,
    );
  const identity: ManagerIdentity = {
    manager: text(entry, 'manager'),
    operation,
    apiVersion,
    subresource: text(entry, 'subresource'),
  };
  return E.map(
    (set: FieldSet) =>
      [managerKey(identity), { set, apiVersion, applied: operation === 'Apply' }, text(entry, 'time')] as const,
  )(decodeFieldsV1(getOwn(entry, 'fieldsV1')));
};

/** A `metadata.managedFields` value read (Left: why not; absent is no managers). */
export const decodeManaged = (entries: JsonValue | undefined): E.Either<string, Managed> => {
  if (entries === undefined || entries === null) return E.right(EMPTY_MANAGED);
  if (!isJsonArray(entries)) return E.left('managedFields must be a list');
  const fields = new Map<string, VersionedSet>();
  const times = new Map<string, string>();
  for (const [index, entry] of entries.entries()) {
    const decoded = decodeEntry(entry, index);
    if (E.isLeft(decoded)) return decoded;
    const [key, set, time] = decoded.right;
    fields.set(key, set);
    if (time === '') times.delete(key);
    else times.set(key, time);
  }
  return E.right({ fields, times });
};

/** `managedFields: []` (or one empty entry) in a request clears what the server tracked. */
export const isResetRequest = (entries: JsonValue | undefined): boolean =>
  isJsonArray(entries) &&
  (entries.length === 0 || (entries.length === 1 && isJsonObject(entries[0]) && Object.keys(entries[0]).length === 0));

const seconds = (time: string | undefined): number =>
  time === undefined ? 0 : Math.floor(Date.parse(time) / 1000) || 0;

type Encoded = { readonly identity: ManagerIdentity; readonly time: string | undefined; readonly entry: JsonObject };

const order = (a: Encoded, b: Encoded): number =>
  compareText(a.identity.operation, b.identity.operation) ||
  Math.sign(seconds(a.time) - seconds(b.time)) ||
  compareText(a.identity.manager, b.identity.manager) ||
  compareText(jsonText(getOwn(a.entry, 'apiVersion')), jsonText(getOwn(b.entry, 'apiVersion'))) ||
  compareText(a.identity.subresource ?? '', b.identity.subresource ?? '');

/** The `metadata.managedFields` value of `managed`; undefined when nobody manages anything. */
export const encodeManaged = (managed: Managed): ReadonlyArray<JsonObject> | undefined => {
  const encoded = [...managed.fields]
    .filter(([, versioned]) => !isEmptySet(versioned.set))
    .map(([key, versioned]): Encoded => {
      const identity = identityOf(key);
      const time = managed.times.get(key);
      const entry: JsonObject = {
        ...(identity.manager === '' ? {} : { manager: identity.manager }),
        operation: versioned.applied ? 'Apply' : 'Update',
        apiVersion: versioned.apiVersion,
        ...defined({ time }),
        fieldsType: 'FieldsV1',
        fieldsV1: encodeFieldsV1(versioned.set),
        ...(identity.subresource ? { subresource: identity.subresource } : {}),
      };
      return { identity, time, entry };
    });
  return encoded.length === 0 ? undefined : encoded.sort(order).map(({ entry }) => entry);
};
