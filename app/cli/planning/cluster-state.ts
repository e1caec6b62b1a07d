/**
 * The Application as the operator will see it once the `-f` document is applied: spec and user
 * metadata from the file, server-owned metadata and `status` from the cluster (the snapshot).
 */
import {
  jsonEqual,
  objectFromEntries,
  type Application,
  type JsonValue,
  type ObjectMeta,
} from '../../../core/internal.js';
import { defined } from '../../../core/json/defined.js';

// Written by the API server or the operator, never by `kubectl apply` of the file.
const SERVER_METADATA = new Set([
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

/**
 * `desired` (from `-f`) merged with `recorded` (the live Application, when the snapshot has it).
 * Guarantees: spec, labels and annotations come from `desired`; uid, finalizers, status and
 * deletion come from `recorded`; `generation` is the recorded one, bumped when the spec changes
 * (as the API server does), or 1 for an Application that does not exist yet.
 */
export const withClusterState = (desired: Application, recorded: Application | undefined): Application => {
  const userMetadata = Object.entries(desired.metadata).filter(
    ([key]) => !SERVER_METADATA.has(key) && key !== 'finalizers',
  );
  if (recorded === undefined) {
    const finalizers =
      desired.metadata.finalizers === undefined ? [] : [['finalizers', desired.metadata.finalizers] as const];
    const { status: _ignored, ...rest } = desired;
    return { ...rest, metadata: metadataOf([...userMetadata, ...finalizers, ['generation', 1]]) };
  }
  const generation = (recorded.metadata.generation ?? 1) + (jsonEqual(desired.spec, recorded.spec) ? 0 : 1);
  const carried = Object.entries(recorded.metadata).filter(
    ([key]) => (SERVER_METADATA.has(key) || key === 'finalizers') && key !== 'generation',
  );
  const status = recorded.status ?? undefined;
  const { status: _ignored, ...rest } = desired;
  return {
    ...rest,
    metadata: metadataOf([...userMetadata, ...carried, ['generation', generation]]),
    ...defined({ status }),
  };
};

const metadataOf = (entries: ReadonlyArray<readonly [string, JsonValue]>): ObjectMeta =>
  // The entries are a stored object's metadata (it has a name) plus server fields: an ObjectMeta.
  objectFromEntries(entries) as ObjectMeta;
