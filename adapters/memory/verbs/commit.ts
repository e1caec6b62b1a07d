/** Committing a change: the next resourceVersion, a frozen copy in storage, a change-log entry, watch fan-out. */
import { withKey } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ChangeType, HistoryEntry } from '../watch/index.js';
import { deepFreeze, orderedCopy } from '../json/index.js';
import { storageKey, type ServerState } from '../server-state.js';
import type { KindInfo } from '../kinds/index.js';
import { serverKeyOrder } from '../typing/index.js';
import { defined } from '../../../core/json/defined.js';

/**
 * A private copy of `object` with its keys in the order kube-apiserver answers with (Go's
 * `encoding/json` sorts map keys: every key of a custom resource, the map fields of a built-in
 * one; typing/key-order.ts). Sorted once here, as the object is stored (or answered by a dry
 * run): every read copies the stored object and keeps its order.
 */
export const inServerOrder = (info: KindInfo, object: Resource): Resource => orderedCopy(object, serverKeyOrder(info));

const stamped = (info: KindInfo, object: Resource, resourceVersion: number): Resource =>
  deepFreeze(
    inServerOrder(
      info,
      withKey(object, 'metadata', withKey(object.metadata, 'resourceVersion', String(resourceVersion))),
    ),
  );

const record = (state: ServerState, info: KindInfo, type: ChangeType, object: Resource, previous?: Resource): void => {
  const entry: HistoryEntry = {
    resourceVersion: state.resourceVersion,
    type,
    groupKind: `${info.group}/${info.kind}`,
    object,
    ...defined({ previous }),
  };
  state.history.append(entry);
  state.publish(entry);
  state.changed();
};

/** Stores `object` (ADDED when new, else MODIFIED) and answers it as stored. */
export const commitPut = (state: ServerState, info: KindInfo, object: Resource, previous?: Resource): Resource => {
  state.resourceVersion += 1;
  const stored = stamped(info, object, state.resourceVersion);
  state.objects.set(storageKey(info, stored.metadata.namespace, stored.metadata.name), stored);
  record(state, info, previous === undefined ? 'ADDED' : 'MODIFIED', stored, previous);
  return stored;
};

/** Removes `object` from storage; the DELETED event carries its last state at the deletion's version. */
export const commitRemove = (state: ServerState, info: KindInfo, object: Resource): Resource => {
  state.resourceVersion += 1;
  const removed = stamped(info, object, state.resourceVersion);
  state.objects.delete(storageKey(info, object.metadata.namespace, object.metadata.name));
  record(state, info, 'DELETED', removed, object);
  return removed;
};
