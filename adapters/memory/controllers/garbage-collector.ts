/**
 * The ownerReference garbage collector (kube-controller-manager's), one pass at a time:
 * dependents whose owners are all gone are deleted (in the background, or in the foreground
 * when an owner is being deleted that way), dangling references next to live owners are
 * removed, `orphan` owners release their dependents, `foregroundDeletion` owners wait for
 * their blocking dependents. Owners are matched by kind, name and UID, as the real one does.
 */
import { groupOf, type OwnerReference, type Resource } from '../../../core/model/resource.js';
import {
  deleteStored,
  FOREGROUND_FINALIZER,
  isDeleting,
  ORPHAN_FINALIZER,
  systemWrite,
  withoutFinalizer,
} from '../verbs/index.js';
import type { KindInfo } from '../kinds/index.js';
import { storageKey, type ServerState } from '../server-state.js';

type OwnerState = 'present' | 'absent' | 'foreground' | 'unknown';

type Stored = { readonly info: KindInfo; readonly object: Resource };

const ownersOf = (object: Resource): ReadonlyArray<OwnerReference> => object.metadata.ownerReferences ?? [];

const storedEntries = (state: ServerState): ReadonlyArray<Stored> =>
  [...state.objects.values()].flatMap((object) => {
    const info = state.registry.byGroupKind(groupOf(object.apiVersion), object.kind);
    return info === undefined ? [] : [{ info, object }];
  });

const ownerState = (state: ServerState, dependent: Resource, owner: OwnerReference): OwnerState => {
  const info = state.registry.byGroupKind(groupOf(owner.apiVersion), owner.kind);
  if (info === undefined) return 'unknown';
  const found = state.objects.get(
    storageKey(info, info.scope === 'Cluster' ? undefined : dependent.metadata.namespace, owner.name),
  );
  if (found === undefined || found.metadata.uid !== owner.uid) return 'absent';
  return isDeleting(found) && (found.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER)
    ? 'foreground'
    : 'present';
};

const withoutOwners =
  (uids: ReadonlyArray<string>) =>
  (object: Resource): Resource => {
    const { ownerReferences, ...rest } = object.metadata;
    const left = (ownerReferences ?? []).filter((owner) => !uids.includes(owner.uid));
    return { ...object, metadata: { ...rest, ...(left.length > 0 ? { ownerReferences: left } : {}) } };
  };

/** Deletes dependents without a live owner; drops dangling references of dependents that keep one. */
const collectDependent = (state: ServerState, { info, object }: Stored): boolean => {
  const owners = ownersOf(object);
  if (owners.length === 0 || isDeleting(object)) return false;
  const states = owners.map((owner) => ownerState(state, object, owner));
  if (states.includes('unknown')) return false;
  if (states.every((s) => s === 'absent' || s === 'foreground')) {
    deleteStored(state, info, object, states.includes('foreground') ? 'Foreground' : 'Background');
    return true;
  }
  const dangling = owners.filter((_, i) => states[i] === 'absent').map((owner) => owner.uid);
  // A dependent kept alive by another owner stops blocking a foreground deletion.
  const unblock = owners
    .filter((owner, i) => states[i] === 'foreground' && owner.blockOwnerDeletion === true)
    .map((owner) => owner.uid);
  return (
    (dangling.length > 0 || unblock.length > 0) &&
    systemWrite(state, info, object, (o) => unblocked(unblock)(withoutOwners(dangling)(o)))
  );
};

const unblocked =
  (uids: ReadonlyArray<string>) =>
  (object: Resource): Resource => ({
    ...object,
    metadata: {
      ...object.metadata,
      ...(object.metadata.ownerReferences === undefined
        ? {}
        : {
            ownerReferences: object.metadata.ownerReferences.map((owner) =>
              uids.includes(owner.uid) ? { ...owner, blockOwnerDeletion: false } : owner,
            ),
          }),
    },
  });

const dependentsOf = (entries: ReadonlyArray<Stored>, owner: Resource): ReadonlyArray<Stored> =>
  entries.filter(({ object }) => ownersOf(object).some((ref) => ref.uid === owner.metadata.uid));

/** An owner deleted with `Orphan`: its dependents lose the reference, then the owner goes. */
const orphanDependents = (state: ServerState, entries: ReadonlyArray<Stored>, { info, object }: Stored): boolean => {
  const uid = object.metadata.uid ?? '';
  dependentsOf(entries, object).forEach((dependent) =>
    systemWrite(state, dependent.info, dependent.object, withoutOwners([uid])),
  );
  return systemWrite(state, info, object, withoutFinalizer(ORPHAN_FINALIZER));
};

const blocks = (dependent: Resource, owner: Resource): boolean =>
  ownersOf(dependent).some((ref) => ref.uid === owner.metadata.uid && ref.blockOwnerDeletion === true);

/**
 * An owner deleted with `Foreground`: it goes once no dependent blocks it (dependents are deleted by collectDependent).
 */
const finishForeground = (state: ServerState, entries: ReadonlyArray<Stored>, { info, object }: Stored): boolean =>
  !dependentsOf(entries, object).some((dependent) => blocks(dependent.object, object)) &&
  systemWrite(state, info, object, withoutFinalizer(FOREGROUND_FINALIZER));

/** One pass; returns whether it changed anything (then another pass follows). */
export const collectGarbage = (state: ServerState): boolean => {
  const entries = storedEntries(state);
  const deleting = entries.filter(({ object }) => isDeleting(object));
  const orphaned = deleting
    .filter(({ object }) => (object.metadata.finalizers ?? []).includes(ORPHAN_FINALIZER))
    .map((owner) => orphanDependents(state, entries, owner));
  const foreground = deleting
    .filter(({ object }) => (object.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER))
    .map((owner) => finishForeground(state, entries, owner));
  let collected = false;
  for (const entry of entries) {
    const now = state.objects.get(storageKey(entry.info, entry.object.metadata.namespace, entry.object.metadata.name));
    if (now !== undefined) collected = collectDependent(state, { info: entry.info, object: now }) || collected;
  }
  return [...orphaned, ...foreground, collected].some(Boolean);
};
