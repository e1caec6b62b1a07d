/**
 * `metadata.managedFields` kept on every write, as k8s.io/apiserver's field manager keeps them
 * (docs/decisions/0027): the manager identity (name, Apply or Update, the version for Update, the
 * subresource), server metadata never owned, the time of each manager's last change, Update
 * managers capped at ten (the oldest merged into `ancient-changes`), the managedFields a client
 * sends honoured (`[]` clears them; absent or unreadable keeps the stored ones), and an object
 * that was never tracked handed to `before-first-apply` on its first apply.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import { difference, EMPTY_FIELD_SET, fieldSetOfPaths, isEmptySet, union } from './field-set.js';
import {
  decodeManaged,
  EMPTY_MANAGED,
  encodeManaged,
  identityOf,
  isResetRequest,
  managerKey,
  type Managed,
  type VersionedSet,
} from './managed-fields.js';
import { fieldElement } from './path-element.js';
import { applyOwnership, updateOwnership, type Applied, type Conflicts, type UpdateScope } from './updater.js';

export type WriteScope = UpdateScope & {
  readonly subresource: string;
  /** The kind's empty object as the server decodes it (what a create changes from). */
  readonly empty: () => JsonObject;
  /** RFC 3339 time of the write (the server's clock). */
  readonly now: string;
};

/** Server metadata no manager owns (stripmeta.go). */
const STRIPPED = fieldSetOfPaths([
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'managedFields',
    'resourceVersion',
  ].map((name) => [fieldElement('metadata'), fieldElement(name)]),
]);

export const MAX_UPDATE_MANAGERS = 10;

const metadataOf = (object: JsonObject): JsonObject => {
  const metadata = getOwn(object, 'metadata');
  return isJsonObject(metadata) ? metadata : {};
};

const managedFieldsOf = (object: JsonObject): JsonValue | undefined => getOwn(metadataOf(object), 'managedFields');

/** The object without `metadata.managedFields` (what ownership is computed over). */
export const withoutManagedFields = (object: JsonObject): JsonObject => {
  const metadata = metadataOf(object);
  if (getOwn(metadata, 'managedFields') === undefined) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
};

const decodedOrEmpty = (entries: JsonValue | undefined): Managed => {
  const decoded = decodeManaged(entries);
  return E.isRight(decoded) ? decoded.right : EMPTY_MANAGED;
};

/**
 * Which managers a write starts from: the request's own managedFields when it sends readable ones (decodeLiveOrNew).
 */
const startingManagers = (scope: WriteScope, live: JsonObject, next: JsonObject): Managed => {
  if (scope.subresource !== '') return decodedOrEmpty(managedFieldsOf(live));
  const sent = managedFieldsOf(next);
  if (isResetRequest(sent)) return EMPTY_MANAGED;
  const decoded = decodeManaged(sent);
  return E.isRight(decoded) && decoded.right.fields.size > 0 ? decoded.right : decodedOrEmpty(managedFieldsOf(live));
};

const stripped = (sets: Map<string, VersionedSet>, key: string): Map<string, VersionedSet> => {
  const versioned = sets.get(key);
  if (versioned === undefined) return sets;
  const kept = difference(versioned.set, STRIPPED);
  if (isEmptySet(kept)) sets.delete(key);
  else sets.set(key, { ...versioned, set: kept });
  return sets;
};

const withManaged = (object: JsonObject, managed: Managed): JsonObject => {
  const { managedFields: _old, ...metadata } = metadataOf(object);
  const encoded = encodeManaged(managed);
  return { ...object, metadata: encoded === undefined ? metadata : { ...metadata, managedFields: encoded } };
};

const seconds = (time: string | undefined): number =>
  time === undefined ? 0 : Math.floor(Date.parse(time) / 1000) || 0;

/** At most ten Update managers: the oldest are merged, per version, into `ancient-changes` (capmanagers.go). */
const capped = (managed: Managed, max: number): Managed => {
  const updaters = [...managed.fields].filter(([, versioned]) => !versioned.applied).map(([key]) => key);
  if (updaters.length <= max) return managed;
  const times = new Map(managed.times);
  const fields = new Map(managed.fields);
  updaters.sort((a, b) => seconds(times.get(a)) - seconds(times.get(b)) || (a < b ? -1 : a > b ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  let count = updaters.length;
  for (const key of updaters) {
    if (count <= max) break;
    const versioned = fields.get(key);
    if (versioned === undefined) continue;
    const bucket = managerKey({ manager: 'ancient-changes', operation: 'Update', apiVersion: versioned.apiVersion });
    const first = firstByVersion.get(versioned.apiVersion);
    if (first === undefined) {
      firstByVersion.set(versioned.apiVersion, key);
      continue;
    }
    if (!fields.has(bucket)) moveManager(fields, times, first, bucket);
    const into = fields.get(bucket)?.set ?? EMPTY_FIELD_SET;
    fields.set(bucket, { ...versioned, set: union(versioned.set, into) });
    fields.delete(key);
    const time = times.get(key);
    if (time === undefined) times.delete(bucket);
    else times.set(bucket, time);
    count--;
  }
  return { fields, times };
};

const moveManager = (fields: Map<string, VersionedSet>, times: Map<string, string>, from: string, to: string): void => {
  const versioned = fields.get(from);
  if (versioned !== undefined) fields.set(to, versioned);
  fields.delete(from);
  times.delete(to);
};

/**
 * The managedFields an Update by `manager` of `live` into `next` leaves (`live` undefined: a
 * create, from the kind's empty object); undefined for none. An existing object nobody tracks
 * stays untracked (skipnonapplied.go).
 */
export const trackUpdate = (
  scope: WriteScope,
  live: JsonObject | undefined,
  next: JsonObject,
  manager: string,
): ReadonlyArray<JsonObject> | undefined => {
  const managed = startingManagers(scope, live ?? {}, next);
  if (managed.fields.size === 0 && live !== undefined) return undefined;
  const from = live === undefined ? scope.empty() : withoutManagedFields(live);
  return encodeManaged(updated(scope, from, withoutManagedFields(next), managed, manager));
};

const updated = (scope: WriteScope, live: JsonObject, next: JsonObject, managed: Managed, manager: string): Managed => {
  const key = managerKey({
    manager: manager === '' ? 'unknown' : manager,
    operation: 'Update',
    apiVersion: scope.version,
    subresource: scope.subresource,
  });
  const { managers, changed } = updateOwnership(scope, live, next, managed.fields, key);
  const fields = stripped(managers, key);
  const times = new Map(managed.times);
  // The manager's time moves when the write changed a field it can own (not only removed some).
  if (!isEmptySet(difference(changed, STRIPPED))) times.set(key, scope.now);
  return capped({ fields, times }, MAX_UPDATE_MANAGERS);
};

/** The object an Apply by `manager` of `config` over `live` stores, with its managedFields; Left: the conflicts. */
export const trackApply = (
  scope: WriteScope,
  live: JsonObject,
  config: JsonObject,
  manager: string,
  force: boolean,
): E.Either<Conflicts, JsonObject> => {
  const bareLive = withoutManagedFields(live);
  const tracked = decodedOrEmpty(managedFieldsOf(live));
  // An object nobody tracks: what it holds so far is `before-first-apply`'s (an Update from the empty object).
  const managed =
    tracked.fields.size === 0 ? updated(scope, scope.empty(), bareLive, EMPTY_MANAGED, 'before-first-apply') : tracked;
  const key = managerKey({ manager, operation: 'Apply', subresource: scope.subresource });
  return E.map((applied: Applied) => {
    const times = new Map(managed.times);
    if (applied.object !== undefined) times.set(key, scope.now);
    const fields = stripped(applied.managers, key);
    return withManaged(applied.object ?? bareLive, { fields, times });
  })(applyOwnership(scope, bareLive, withoutManagedFields(config), managed.fields, key, force));
};

/** How a conflicting manager is named in the 409 (printManager in conflict.go). */
export const managerText = (key: string): string => {
  const identity = identityOf(key);
  const name = `${JSON.stringify(identity.manager)}${identity.subresource ? ` with subresource ${JSON.stringify(identity.subresource)}` : ''}`;
  return identity.operation === 'Update' ? `${name} using ${identity.apiVersion ?? ''}` : name;
};
