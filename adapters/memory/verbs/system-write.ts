/**
 * Writes made by the server's own controllers (garbage collector, namespace and CRD cleanup): no client rules apply.
 */
import { jsonEqual } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { commitPut } from './commit.js';
import type { KindInfo } from '../kinds/index.js';
import type { ServerState } from '../server-state.js';
import { isDeleting, isFinalized, removeStored } from './write-common.js';

/**
 * Applies `edit` to a stored object; a deleting object with no finalizer left then leaves storage. Returns whether it
 * wrote.
 */
export const systemWrite = (
  state: ServerState,
  info: KindInfo,
  stored: Resource,
  edit: (object: Resource) => Resource,
): boolean => {
  const next = edit(stored);
  if (jsonEqual(next, stored)) return false;
  const written = commitPut(state, info, next, stored);
  if (isDeleting(written) && isFinalized(written)) removeStored(state, info, written);
  return true;
};

/** The object without `finalizer` in `metadata.finalizers` (the key dropped when empty). */
export const withoutFinalizer =
  (finalizer: string) =>
  (object: Resource): Resource => {
    const { finalizers, ...rest } = object.metadata;
    const left = (finalizers ?? []).filter((f) => f !== finalizer);
    return { ...object, metadata: { ...rest, ...(left.length > 0 ? { finalizers: left } : {}) } };
  };
