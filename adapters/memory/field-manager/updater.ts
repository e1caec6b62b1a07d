/**
 * Ownership moved by a write, as structured-merge-diff's merge.Updater moves it (one API version:
 * the memory server converts no objects between versions). An Update takes the fields it changed
 * from everyone else; an Apply merges the configuration over the live object, removes what the
 * applier applied last time and applies no more (unless someone else owns it), and fails with the
 * conflicts when it changes a field another manager owns (unless forced, which takes them).
 */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonObject, jsonEqual, type JsonObject } from '../../../core/json/json.js';
import {
  difference,
  EMPTY_FIELD_SET,
  intersection,
  isEmptySet,
  recursiveDifference,
  union,
  type FieldSet,
} from './field-set.js';
import type { VersionedSet } from './managed-fields.js';
import type { TypeRef } from './schema-types.js';
import { compareValues } from './typed-compare.js';
import { fieldSetOf, namedFieldsAsMembers, removeFields } from './typed-fields.js';
import { mergeValues } from './typed-merge.js';

export type ManagerSets = ReadonlyMap<string, VersionedSet>;

/** What a write works on: the kind's type, the version written, the fields the write may not touch (reset fields). */
export type UpdateScope = { readonly type: TypeRef; readonly version: string; readonly ignored: FieldSet };

/** Fields other managers own that the write changes, by manager key. */
export type Conflicts = ReadonlyMap<string, FieldSet>;

type Changes = { readonly added: FieldSet; readonly removed: FieldSet; readonly modified: FieldSet };

const changesBetween = (scope: UpdateScope, live: JsonObject, next: JsonObject): Changes => {
  const compared = compareValues(live, next, scope.type);
  return {
    added: recursiveDifference(compared.added, scope.ignored),
    removed: recursiveDifference(compared.removed, scope.ignored),
    modified: recursiveDifference(compared.modified, scope.ignored),
  };
};

const withoutEmpty = (sets: Map<string, VersionedSet>): Map<string, VersionedSet> => {
  for (const [key, versioned] of sets) if (isEmptySet(versioned.set)) sets.delete(key);
  return sets;
};

/**
 * The other managers after a change: what it removed is nobody's, what it changed is no longer theirs (Left unless
 * forced).
 */
const takeChanged = (
  changes: Changes,
  managers: ManagerSets,
  writer: string,
  force: boolean,
): E.Either<Conflicts, Map<string, VersionedSet>> => {
  const changed = union(changes.modified, changes.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [key, versioned] of managers) {
    if (key === writer) continue;
    const conflict = intersection(versioned.set, changed);
    if (!isEmptySet(conflict)) conflicts.set(key, conflict);
  }
  if (!force && conflicts.size > 0) return E.left(conflicts);
  const out = new Map(managers);
  for (const [key, versioned] of managers) {
    if (key === writer) continue;
    const kept = difference(difference(versioned.set, conflicts.get(key) ?? EMPTY_FIELD_SET), changes.removed);
    out.set(key, { ...versioned, set: kept });
  }
  return E.right(withoutEmpty(out));
};

/** An Update by `writer`: it owns what it changed, on top of what it owned and still exists. */
export const updateOwnership = (
  scope: UpdateScope,
  live: JsonObject,
  next: JsonObject,
  managers: ManagerSets,
  writer: string,
): { readonly managers: Map<string, VersionedSet>; readonly changed: FieldSet } => {
  const changes = changesBetween(scope, live, next);
  const taken = takeChanged(changes, managers, writer, true);
  const out = E.isRight(taken) ? taken.right : new Map(managers);
  const previous = managers.get(writer)?.set ?? EMPTY_FIELD_SET;
  const changed = recursiveDifference(union(changes.modified, changes.added), scope.ignored);
  const owned = union(difference(previous, changes.removed), changed);
  out.set(writer, { set: owned, apiVersion: scope.version, applied: false });
  return { managers: withoutEmpty(out), changed };
};

/** What an Apply stores, and who owns what after it; `object` undefined when the object does not change. */
export type Applied = { readonly object: JsonObject | undefined; readonly managers: Map<string, VersionedSet> };

/** An Apply by `applier` of `config` over `live`. */
export const applyOwnership = (
  scope: UpdateScope,
  live: JsonObject,
  config: JsonObject,
  managers: ManagerSets,
  applier: string,
  force: boolean,
): E.Either<Conflicts, Applied> => {
  const mergedValue = mergeValues(live, config, scope.type);
  const merged = isJsonObject(mergedValue) ? mergedValue : {};
  const last = managers.get(applier)?.set;
  const withApplier = new Map(managers);
  withApplier.set(applier, {
    set: recursiveDifference(fieldSetOf(config, scope.type), scope.ignored),
    apiVersion: scope.version,
    applied: true,
  });
  const applying = withApplier.get(applier)?.set ?? EMPTY_FIELD_SET;
  // Nothing applied last time is left out now: nothing to remove (the steady state of a controller).
  const next =
    last === undefined || isEmptySet(difference(last, applying))
      ? merged
      : pruned(scope.type, merged, withApplier, last);
  return E.map((after: Map<string, VersionedSet>): Applied => ({
    object: jsonEqual(live, next) ? undefined : next,
    managers: after,
  }))(takeChanged(changesBetween(scope, live, next), withApplier, applier, force));
};

const namedSet = (type: TypeRef, value: JsonObject): FieldSet => namedFieldsAsMembers(fieldSetOf(value, type), type);

const removed = (type: TypeRef, value: JsonObject, remove: FieldSet): JsonObject => {
  const left = removeFields(value, remove, type);
  return isJsonObject(left) ? left : {};
};

/**
 * The merged object without what the applier applied last time and no longer does: fields of
 * its last set go unless a manager (the applier's new set included) owns them; what nobody owns
 * below them (defaults) goes with them.
 */
const pruned = (type: TypeRef, merged: JsonObject, managers: ManagerSets, last: FieldSet): JsonObject => {
  const lastNamed = namedFieldsAsMembers(last, type);
  const mergedSet = namedSet(type, merged);
  const withoutLast = namedSet(type, removed(type, merged, lastNamed));
  const owned = namedFieldsAsMembers(
    [...managers.values()].reduce((all, versioned) => union(all, versioned.set), EMPTY_FIELD_SET),
    type,
  );
  const keptOwned = namedSet(type, removed(type, merged, difference(mergedSet, union(withoutLast, owned))));
  return removed(type, merged, intersection(difference(mergedSet, keptOwned), lastNamed));
};
