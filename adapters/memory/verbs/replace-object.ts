/**
 * The update path shared by update, patch and the status subresource: optimistic concurrency,
 * the status split, system metadata carried over, finalizer rules, defaulting, per-kind rules,
 * validation, generation, no-op detection, storage — and removal once the last finalizer of a
 * deleting object is gone.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { isJsonArray, isJsonObject, jsonEqual, withKey } from '../../../core/json/json.js';
import { refOf, type Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { commitPut, inServerOrder } from './commit.js';
import { nextGeneration } from './generation.js';
import { groupKindKey, type KindInfo } from '../kinds/index.js';
import { hooksFor } from '../hooks/index.js';
import { updatedMeta } from '../typing/index.js';
import type { ServerState } from '../server-state.js';
import { servedAs } from '../json/index.js';
import { admitted } from '../admission/index.js';
import { keepStoredSpec, keepStoredStatus, takeStatusOnly } from './status-rules.js';
import { defaulted, invalid, isDeleting, isFinalized, removeStored, validated } from './write-common.js';
import { withinStorageLimit } from './storage-limit.js';
import { owned, type Ownership, type Subresource } from './ownership.js';

export type { Subresource } from './ownership.js';
export type ReplaceOptions = {
  readonly subresource: Subresource;
  readonly dryRun?: boolean;
  /** Who writes, for managedFields (an Update by `unknown` when unsaid). */
  readonly ownership?: Ownership;
};

const conflict = (info: KindInfo, object: Resource): ClusterError =>
  clusterError(
    'Conflict',
    `Operation cannot be fulfilled on ${info.plural}${info.group === '' ? '' : `.${info.group}`} "${object.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
    { ref: refOf(object) },
  );

/** A set resourceVersion must be the stored one; none is allowed only for kinds that accept unconditional updates. */
const precondition = (info: KindInfo, stored: Resource, candidate: Resource): E.Either<ClusterError, Resource> => {
  const wanted = candidate.metadata.resourceVersion;
  if (wanted === undefined || wanted === '') {
    return info.custom
      ? E.left(
          invalid(info, candidate, [
            {
              field: 'metadata.resourceVersion',
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0x0: must be specified for an update',
            },
          ]),
        )
      : E.right(candidate);
  }
  return wanted === stored.metadata.resourceVersion ? E.right(candidate) : E.left(conflict(info, stored));
};

/** A uid in the object is a precondition of the write (409 when it names another object). */
const uidUnchanged = (info: KindInfo, stored: Resource, candidate: Resource): E.Either<ClusterError, Resource> => {
  const uid = candidate.metadata.uid;
  return uid === undefined || uid === '' || uid === stored.metadata.uid
    ? E.right(candidate)
    : E.left(
        clusterError(
          'Conflict',
          `Operation cannot be fulfilled on ${info.plural}${info.group === '' ? '' : `.${info.group}`} "${stored.metadata.name}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored.metadata.uid ?? ''}`,
          { ref: refOf(stored) },
        ),
      );
};

/** Once deleting, an object may lose finalizers but gain none (ValidateObjectMetaUpdate). */
const noNewFinalizers = (info: KindInfo, stored: Resource, next: Resource): E.Either<ClusterError, Resource> => {
  if (!isDeleting(stored)) return E.right(next);
  const before = stored.metadata.finalizers ?? [];
  const added = (next.metadata.finalizers ?? []).filter((f) => !before.includes(f));
  return added.length === 0
    ? E.right(next)
    : E.left(
        invalid(info, next, [
          {
            field: 'metadata.finalizers',
            reason: 'FieldValueForbidden',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          },
        ]),
      );
};

/** The kind's update rules (per-kind hook), the finalizer rule and validation, in the server's order. */
const underKindRules = (
  state: ServerState,
  info: KindInfo,
  stored: Resource,
  next: Resource,
  dryRun: boolean,
): E.Either<ClusterError, Resource> => {
  const prepare = hooksFor(groupKindKey(info.group, info.kind)).prepareUpdate;
  return pipe(
    prepare === undefined ? E.right(next) : prepare(stored, next, { state, dryRun }),
    E.chain((prepared) => noNewFinalizers(info, stored, prepared)),
    E.chain((prepared) => validated(state, info, prepared, stored)),
  );
};

/**
 * The object the write would store. Main writes take the client's object with the stored
 * status; status writes of custom resources take only the status, those of built-ins keep the
 * stored spec and take the rest (as their status strategies do).
 */
const merged = (
  state: ServerState,
  info: KindInfo,
  stored: Resource,
  candidate: Resource,
  options: ReplaceOptions,
): E.Either<ClusterError, Resource> => {
  const dryRun = options.dryRun === true;
  const atStoredVersion: Resource = {
    ...candidate,
    apiVersion: stored.apiVersion,
    metadata: updatedMeta(stored.metadata, candidate.metadata),
  };
  // Ownership is computed on the object as decoded and defaulted, before admission, as the server does.
  const track = (next: Resource): Resource =>
    owned(state, info, {
      live: stored,
      next,
      apiVersion: candidate.apiVersion,
      subresource: options.subresource,
      ownership: options.ownership,
      requested: candidate,
    });
  if (options.subresource === 'main')
    return underKindRules(
      state,
      info,
      stored,
      admitted(
        state.admission,
        info,
        track(defaulted(state, info, keepStoredStatus(info, stored, atStoredVersion))),
        'UPDATE',
        stored,
      ),
      dryRun,
    );
  return info.custom
    ? validated(state, info, track(defaulted(state, info, takeStatusOnly(stored, atStoredVersion))), stored)
    : underKindRules(state, info, stored, track(keepStoredSpec(info, stored, atStoredVersion)), dryRun);
};

const withGeneration = (info: KindInfo, stored: Resource, next: Resource): Resource => {
  const generation = nextGeneration(info, stored, next);
  return generation === undefined ? next : withKey(next, 'metadata', withKey(next.metadata, 'generation', generation));
};

/**
 * What decides whether a write changes anything: the object without its resourceVersion and
 * without the times of its managedFields entries. kube-apiserver drops an update whose only change
 * is a manager's time (fieldmanager's IgnoreManagedFieldsTimestampsTransformer), so a patch that
 * mutating admission undoes leaves the resourceVersion where it was.
 */
const withoutVersion = (object: Resource): Resource => {
  const entries = object.metadata.managedFields;
  const metadata = withKey(object.metadata, 'resourceVersion', '');
  return withKey(
    object,
    'metadata',
    isJsonArray(entries)
      ? withKey(
          metadata,
          'managedFields',
          entries.map((entry) => (isJsonObject(entry) ? withKey(entry, 'time', '') : entry)),
        )
      : metadata,
  );
};

/** Stores `next` over `stored`; unchanged objects are not written (no new resourceVersion, no event). */
const store = (state: ServerState, info: KindInfo, stored: Resource, next: Resource, dryRun: boolean): Resource => {
  const final = withKey(
    next,
    'metadata',
    withKey(next.metadata, 'resourceVersion', stored.metadata.resourceVersion ?? ''),
  );
  if (dryRun || jsonEqual(withoutVersion(stored), withoutVersion(final)))
    return dryRun ? inServerOrder(info, final) : stored;
  const written = commitPut(state, info, final, stored);
  hooksFor(groupKindKey(info.group, info.kind)).committed?.(written, { state, dryRun: false });
  if (isDeleting(written) && isFinalized(written)) removeStored(state, info, written);
  return written;
};

/**
 * Replaces `stored` by `candidate` (the client's full object) on the main resource or `/status`.
 * Errors: Conflict (stale resourceVersion, another uid), Invalid (missing resourceVersion on a
 * custom resource, immutable fields, new finalizers while deleting, validation).
 */
export const replaceObject = (
  state: ServerState,
  info: KindInfo,
  stored: Resource,
  candidate: Resource,
  options: ReplaceOptions,
): E.Either<ClusterError, Resource> =>
  pipe(
    precondition(info, stored, candidate),
    E.chain((c) => uidUnchanged(info, stored, c)),
    E.chain((c) => merged(state, info, stored, c, options)),
    // Status writes never move the generation: it counts changes of the desired state.
    E.map((next) => (options.subresource === 'status' ? next : withGeneration(info, stored, next))),
    E.chain((next) => withinStorageLimit(state, info, next)),
    E.map((next) => servedAs(store(state, info, stored, next, options.dryRun === true), candidate.apiVersion)),
  );
