/**
 * Who a write is by, for `metadata.managedFields` (../field-manager): an Update by a manager
 * (the request's fieldManager, else its User-Agent's prefix, else `unknown`), or an Apply whose
 * managedFields the apply itself computed.
 */
import type { JsonValue } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { trackUpdate, writeScope } from '../field-manager/index.js';
import type { KindInfo } from '../kinds/index.js';
import type { ServerState } from '../server-state.js';
import { timestamp } from '../typing/index.js';

export type Ownership = { readonly operation: 'Update'; readonly manager: string } | { readonly operation: 'Apply' };

export type Subresource = 'main' | 'status';

/** `next` with the managedFields its write leaves (`live`: the stored object, undefined on a create). */
export const owned = (
  state: ServerState,
  info: KindInfo,
  write: {
    readonly live: Resource | undefined;
    readonly next: Resource;
    readonly apiVersion: string;
    readonly subresource: Subresource;
    readonly ownership: Ownership | undefined;
    /** The request's object (an Apply's carries the managedFields the apply computed). */
    readonly requested: Resource;
  },
): Resource => {
  if (write.ownership?.operation === 'Apply')
    return withManagedFields(write.next, write.requested.metadata.managedFields);
  const scope = writeScope(
    info,
    write.apiVersion,
    write.subresource === 'main' ? '' : write.subresource,
    timestamp(state.clock.now()),
  );
  return withManagedFields(write.next, trackUpdate(scope, write.live, write.next, write.ownership?.manager ?? ''));
};

const withManagedFields = (object: Resource, entries: JsonValue | undefined): Resource => {
  const { managedFields: _sent, ...metadata } = object.metadata;
  return { ...object, metadata: entries === undefined ? metadata : { ...metadata, managedFields: entries } };
};
