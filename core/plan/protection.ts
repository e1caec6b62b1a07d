/**
 * Per-resource protection (issue 22), a pass over the planner's decisions before they become a
 * plan (like `withRecreates`):
 * - `kreconcile.io/prune: disabled` on a live child: when it leaves the manifest or its
 *   Application is deleted, it is not deleted but orphaned: a guarded patch removes its owner
 *   marks (owner annotation, managed-by label, controller reference), so it stays, free of us.
 * - `kreconcile.io/apply: IfNotPresent` on a manifest resource: created when missing, never patched
 *   or recreated; an existing object that is not ours is left alone (no conflict).
 * - `kreconcile.io/apply: Ignore` on a manifest resource: never created, patched or recreated, and
 *   never a conflict.
 * Each write withheld by `apply` becomes a `skip` entry of the plan, so the plan shows the choice.
 */
import { getIn, isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import { escapePointerToken } from '../json/path.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE, OWNER_ANNOTATION } from '../model/application.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import { ownerMark, type Owner } from '../manifest/ownership.js';
import type {
  ConflictAction,
  CreateAction,
  DeleteAction,
  FieldChange,
  JsonPatchOperation,
  PatchAction,
  RecreateAction,
  SkipAction,
} from '../model/plan.js';

export const PRUNE_ANNOTATION = 'kreconcile.io/prune';
export const APPLY_ANNOTATION = 'kreconcile.io/apply';

/** How a manifest resource asks to be written: always (default), only when missing, or never. */
export type ApplyPolicy = 'Always' | 'IfNotPresent' | 'Ignore';

const annotation = (object: Resource | undefined, name: string): JsonValue | undefined =>
  object === undefined ? undefined : getIn(object, ['metadata', 'annotations', name]);

/** The apply policy a manifest resource asks for (anything but the two names is the default). */
export const applyPolicyOf = (resource: Resource | undefined): ApplyPolicy => {
  const value = annotation(resource, APPLY_ANNOTATION);
  return value === 'IfNotPresent' || value === 'Ignore' ? value : 'Always';
};

/** Whether a live child is kept (orphaned) instead of deleted. */
export const pruneDisabled = (live: Resource | undefined): boolean => annotation(live, PRUNE_ANNOTATION) === 'disabled';

const pointer = (...tokens: ReadonlyArray<string | number>): string =>
  tokens.map((token) => `/${escapePointerToken(String(token))}`).join('');

/**
 * The guarded JSON Patch removing our marks from `live`: each removal is preceded by a `test` of
 * the value it removes, so a mark changed meanwhile makes the patch fail instead of removing
 * someone else's data.
 */
const unmarkPatch = (
  live: Resource,
  owner: Owner,
): { readonly patch: ReadonlyArray<JsonPatchOperation>; readonly changes: ReadonlyArray<FieldChange> } => {
  const patch: JsonPatchOperation[] = [];
  const changes: FieldChange[] = [];
  const mark = ownerMark(owner);
  if (annotation(live, OWNER_ANNOTATION) === mark) {
    const path = pointer('metadata', 'annotations', OWNER_ANNOTATION);
    patch.push({ op: 'test', path, value: mark }, { op: 'remove', path });
    changes.push({ path: `metadata.annotations["${OWNER_ANNOTATION}"]`, from: mark });
  }
  if (getIn(live, ['metadata', 'labels', MANAGED_BY_LABEL]) === MANAGED_BY_VALUE) {
    const path = pointer('metadata', 'labels', MANAGED_BY_LABEL);
    patch.push({ op: 'test', path, value: MANAGED_BY_VALUE }, { op: 'remove', path });
    changes.push({ path: `metadata.labels["${MANAGED_BY_LABEL}"]`, from: MANAGED_BY_VALUE });
  }
  const references = getIn(live, ['metadata', 'ownerReferences']);
  const uid = owner.uid;
  if (isJsonArray(references) && uid !== undefined) {
    // Removed from the last index down, so the indices of those before stay valid.
    references
      .map((reference, index) => ({ reference, index }))
      .filter(({ reference }) => isJsonObject(reference) && reference.uid === uid)
      .reverse()
      .forEach(({ index }) => {
        patch.push(
          { op: 'test', path: pointer('metadata', 'ownerReferences', index, 'uid'), value: uid },
          { op: 'remove', path: pointer('metadata', 'ownerReferences', index) },
        );
        changes.push({ path: `metadata.ownerReferences[${index}]`, from: { uid } });
      });
  }
  return { patch, changes };
};

/** The orphaning patch replacing the deletion of a child under `kreconcile.io/prune: disabled`. */
export const orphanAction = (deletion: DeleteAction, live: Resource, owner: Owner): PatchAction => ({
  type: 'patch',
  ref: deletion.ref,
  ...unmarkPatch(live, owner),
  orphan: deletion.reason,
});

/** Deletions split into those that stand and orphanings (children under `prune: disabled`). */
export const withOrphans = (
  deletes: ReadonlyArray<DeleteAction>,
  liveOf: (ref: ObjectRef) => Resource | undefined,
  owner: Owner,
): { readonly deletes: ReadonlyArray<DeleteAction>; readonly orphans: ReadonlyArray<PatchAction> } => {
  const decided = deletes.map((deletion) => {
    const live = liveOf(deletion.ref);
    return {
      deletion,
      orphan: live !== undefined && pruneDisabled(live) ? orphanAction(deletion, live, owner) : undefined,
    };
  });
  return {
    deletes: decided.flatMap(({ deletion, orphan }) => (orphan === undefined ? [deletion] : [])),
    // An object with no mark left to remove needs no write.
    orphans: decided.flatMap(({ orphan }) => (orphan === undefined || orphan.patch.length === 0 ? [] : [orphan])),
  };
};

/** The planner's write decisions this pass filters. */
type Writes = {
  readonly creates: ReadonlyArray<CreateAction>;
  readonly patches: ReadonlyArray<PatchAction>;
  readonly recreates?: ReadonlyArray<RecreateAction>;
  readonly deletes: ReadonlyArray<DeleteAction>;
  /** Objects in the way of a creation that are not this Application's. */
  readonly conflicts?: ReadonlyArray<ConflictAction>;
};

/** The writes `policy` allows of those decided, and a `skip` entry for each one it withholds. */
const allowedBy = <A extends CreateAction | PatchAction | RecreateAction | ConflictAction>(
  actions: ReadonlyArray<A>,
  desiredOf: (ref: ObjectRef) => Resource | undefined,
  allows: (policy: ApplyPolicy) => boolean,
): { readonly allowed: ReadonlyArray<A>; readonly skips: ReadonlyArray<SkipAction> } => {
  const allowed: A[] = [];
  const skips: SkipAction[] = [];
  for (const action of actions) {
    const policy = applyPolicyOf(desiredOf(action.ref));
    if (policy === 'Always' || allows(policy)) allowed.push(action);
    else skips.push({ type: 'skip', ref: action.ref, apply: policy, withheld: action.type, changes: action.changes });
  }
  return { allowed, skips };
};

/**
 * `decided` with the protection annotations applied: creations of `Ignore` resources, patches and
 * recreations of `IfNotPresent` and `Ignore` resources withheld (`desiredOf` finds an action's
 * manifest resource) and listed in `skips`, as are conflicts with objects that are not ours under
 * either (nothing would be written to them, so nothing is taken over: they stall nothing), and
 * deletions of `prune: disabled` children turned into orphanings (`liveOf` finds the live child).
 */
export const withProtection = <D extends Writes>(
  decided: D,
  desiredOf: (ref: ObjectRef) => Resource | undefined,
  liveOf: (ref: ObjectRef) => Resource | undefined,
  owner: Owner,
): D & { readonly skips?: ReadonlyArray<SkipAction> } => {
  const creates = allowedBy(decided.creates, desiredOf, (policy) => policy !== 'Ignore');
  const patches = allowedBy(decided.patches, desiredOf, () => false);
  const recreates = allowedBy(decided.recreates ?? [], desiredOf, () => false);
  // An object that is not ours is only in the way of a write; where none would be made, it is left alone.
  const conflicts = allowedBy(decided.conflicts ?? [], desiredOf, () => false);
  const split = withOrphans(decided.deletes, liveOf, owner);
  const skips = [...creates.skips, ...patches.skips, ...recreates.skips, ...conflicts.skips];
  // Nothing protected: the decisions themselves (most plans).
  if (skips.length === 0 && split.orphans.length === 0 && split.deletes.length === decided.deletes.length)
    return decided;
  return {
    ...decided,
    creates: creates.allowed,
    patches: [...patches.allowed, ...split.orphans],
    ...(decided.recreates === undefined ? {} : { recreates: recreates.allowed }),
    deletes: split.deletes,
    ...(decided.conflicts === undefined ? {} : { conflicts: conflicts.allowed }),
    skips,
  };
};
