/**
 * The operator taking an Application over from `kreconcile apply` (docs/decisions/0028): at its
 * first reconcile of an Application (before the finalizer is added) it reads the inventory the CLI
 * kept, reads the kinds and namespaces it names besides the manifest's, and records those kinds in
 * its own record (the `kreconcile.io/intent-kinds` annotation, on the finalizer's patch), so objects
 * of a kind the manifest no longer names are pruned as if the operator had created them.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  FINALIZER,
  ownerFor,
  type Application,
  type ClusterError,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import { EMPTY_INVENTORY, inventoryEntries, inventoryOf, inventoryRef, type Inventory } from './inventory.js';

/** Whether the operator takes `application` over now: not deleting, and without its finalizer yet. */
export const takesOver = (application: Application): boolean =>
  application.metadata.deletionTimestamp === undefined && !(application.metadata.finalizers ?? []).includes(FINALIZER);

/** Reads one object (a cache may answer without a promise). */
export type InventoryReader = (
  ref: ObjectRef,
) => E.Either<ClusterError, O.Option<Resource>> | Promise<E.Either<ClusterError, O.Option<Resource>>>;

/**
 * The inventory `kreconcile apply` kept for `application`, read with `read` (the rights children
 * are read with). Absent, unreadable for lack of rights (`get` on ConfigMaps: `kreconcile rbac`
 * grants it) or not an inventory: empty. Errors: any other failed read (retried as reads are).
 */
export const inheritedInventory = async (
  application: Application,
  read: InventoryReader,
): Promise<E.Either<ClusterError, Inventory>> => {
  const reading = read(inventoryRef(ownerFor(application)));
  const answer = reading instanceof Promise ? await reading : reading;
  return answered(answer);
};

const answered = (read: E.Either<ClusterError, O.Option<Resource>>): E.Either<ClusterError, Inventory> => {
  if (E.isRight(read)) return E.right(inventoryOf(O.toUndefined(read.right)));
  return read.left._tag === 'Forbidden' || read.left._tag === 'NotFound' || read.left._tag === 'UnknownKind'
    ? E.right(EMPTY_INVENTORY)
    : read;
};

/**
 * `view` whose live read also reads the inventory's kinds and its objects' namespaces (as if its status named them).
 */
export const withInventory = (view: Application, inventory: Inventory): Application =>
  inventory.kinds.length === 0
    ? view
    : {
        ...view,
        status: {
          ...view.status,
          lastObservedManifest: [...(view.status?.lastObservedManifest ?? []), ...inventoryEntries(inventory)],
        },
      };
