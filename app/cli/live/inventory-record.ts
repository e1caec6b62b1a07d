/**
 * `kreconcile apply` keeps the inventory (app/reconcile/inventory.ts, docs/decisions/0028): before
 * its writes it records every object the plan creates or patches (write-ahead: a crash after a
 * create never leaves an object the record does not name), after them it drops what it deleted.
 * Each write is a read, a merge and a create or an update guarded by the resourceVersion read, so
 * two applies at once never lose each other's entries.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  showClusterError,
  type ClusterError,
  type ClusterReader,
  type ClusterWriter,
  type ObjectRef,
  type Owner,
  type Resource,
} from '../../../core/internal.js';
import { clusterFailure, type CliError } from '../cli-error.js';
import {
  inventoryConfigMap,
  inventoryOf,
  inventoryRef,
  withObjects,
  type Inventory,
} from '../../reconcile/inventory.js';
import { defined } from '../../../core/json/defined.js';

type Cluster = ClusterReader & ClusterWriter;

/** Attempts of a read-merge-write that lost a race to another writer before giving up. */
const ATTEMPTS = 5;

/** How the record changes: objects added (before the writes) or removed (after the deletes). */
export type InventoryChange = { readonly added: ReadonlyArray<ObjectRef>; readonly removed: ReadonlyArray<ObjectRef> };

const failed = (owner: Pick<Owner, 'namespace' | 'name'>, why: string): CliError =>
  clusterFailure(
    `Application ${owner.namespace}/${owner.name}: cannot record the inventory (ConfigMap ${inventoryRef(owner).namespace ?? ''}/${inventoryRef(owner).name}): ${why}`,
  );

const written = (
  cluster: Cluster,
  stored: Resource | undefined,
  next: Resource,
): Promise<E.Either<ClusterError, Resource>> => {
  if (stored === undefined) return cluster.create(next)();
  // The resourceVersion read is the update's precondition: a record someone changed since is read again.
  const resourceVersion = stored.metadata.resourceVersion;
  return cluster.update({
    ...next,
    metadata: { ...next.metadata, ...defined({ resourceVersion }) },
  })();
};

/**
 * Records `change` in `owner`'s inventory; writes nothing when the record already says it.
 * Errors: the record cannot be read or written (forbidden, unreachable), lost the race `ATTEMPTS`
 * times, or would exceed its bounds; one line naming the ConfigMap.
 */
export const recordInventory = async (
  cluster: Cluster,
  owner: Pick<Owner, 'namespace' | 'name'>,
  change: InventoryChange,
): Promise<E.Either<CliError, Inventory>> => {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const read = await cluster.get(inventoryRef(owner))();
    if (E.isLeft(read)) return E.left(failed(owner, showClusterError(read.left)));
    const stored = O.toUndefined(read.right);
    const recorded = inventoryOf(stored);
    const next = withObjects(recorded, change.added, change.removed);
    if (stored !== undefined && JSON.stringify(next) === JSON.stringify(recorded)) return E.right(recorded);
    const body = inventoryConfigMap(owner, next);
    if (E.isLeft(body)) return E.left(failed(owner, body.left));
    const answer = await written(cluster, stored, body.right);
    if (E.isRight(answer)) return E.right(next);
    if (answer.left._tag !== 'Conflict' && answer.left._tag !== 'AlreadyExists')
      return E.left(failed(owner, showClusterError(answer.left)));
  }
  return E.left(failed(owner, `another writer changed it ${ATTEMPTS} times in a row; apply again`));
};
