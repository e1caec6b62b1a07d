/**
 * Per-resource protection (issue 22), a pass over the planner's decisions before they become a
 * plan (like `withRecreates`):
 * - `kreconcile.io/prune: disabled` on a live child: when it leaves the manifest or its
 *   Application is deleted, it is not deleted but orphaned: a guarded patch removes its owner
 *   marks (owner annotation, managed-by label, controller reference), so it stays, free of us.
 * - `kreconcile.io/apply: IfNotPresent` on a manifest resource: created when missing, never patched
 *   or recreated.
 * - `kreconcile.io/apply: Ignore` on a manifest resource: never created, patched or recreated.
 */
import { getIn, isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import { escapePointerToken } from '../json/path.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE, OWNER_ANNOTATION } from '../model/application.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import { ownerMark, type Owner } from './ownership.js';
import type {
  CreateAction,
  DeleteAction,
  FieldChange,
  JsonPatchOperation,
  PatchAction,
  RecreateAction,
} from './types.js';

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
};

/**
 * `decided` with the protection annotations applied: creations of `Ignore` resources, patches and
 * recreations of `IfNotPresent` and `Ignore` resources dropped (`desiredOf` finds an action's
 * manifest resource), and deletions of `prune: disabled` children turned into orphanings
 * (`liveOf` finds the live child).
 */
export const withProtection = <D extends Writes>(
  decided: D,
  desiredOf: (ref: ObjectRef) => Resource | undefined,
  liveOf: (ref: ObjectRef) => Resource | undefined,
  owner: Owner,
): D => {
  const written = (policy: ApplyPolicy): boolean => policy === 'Always';
  const creates = decided.creates.filter((action) => applyPolicyOf(desiredOf(action.ref)) !== 'Ignore');
  const patches = decided.patches.filter((action) => written(applyPolicyOf(desiredOf(action.ref))));
  const recreates = decided.recreates?.filter((action) => written(applyPolicyOf(desiredOf(action.ref))));
  const split = withOrphans(decided.deletes, liveOf, owner);
  // Nothing protected: the decisions themselves (most plans).
  if (
    creates.length === decided.creates.length &&
    patches.length === decided.patches.length &&
    recreates?.length === decided.recreates?.length &&
    split.orphans.length === 0 &&
    split.deletes.length === decided.deletes.length
  )
    return decided;
  return {
    ...decided,
    creates,
    patches: [...patches, ...split.orphans],
    ...(recreates === undefined ? {} : { recreates }),
    deletes: split.deletes,
  };
};
