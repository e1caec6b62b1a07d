/**
 * patch and patchStatus: the patch (JSON, merge, strategic merge — ../strategic — or server-side
 * apply) is applied to the stored object as served, then the result
 * goes through the update path (so a `metadata.resourceVersion` in the patch is a precondition).
 * Server-side apply creates a missing object. Errors: NotFound, BadRequest (malformed patch,
 * identity changed), Invalid (JSON Patch that cannot be applied — see JSON_PATCH_APPLY_FAILURE,
 * apply without fieldManager, a patched field of the wrong type), Internal (apply with a field of
 * the wrong type — typed-decoding.ts), Conflict.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { isJsonObject, type JsonValue } from '../../../core/json/json.js';
import type { ObjectRef, Resource } from '../../../core/model/resource.js';
import type { Patch } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { applyMerge } from './apply-merge.js';
import { createObject } from './create-verb.js';
import { applyJsonPatch, mergePatch, servedAs } from '../json/index.js';
import type { KindInfo } from '../kinds/index.js';
import { replaceObject, type Subresource } from './replace-object.js';
import { namespaceFor, storedObject, type ServerState } from '../server-state.js';
import { strategicPatched, unsupportedPatchType } from '../strategic/index.js';
import { checkAppliedTypes, convertApplied, decodePatched } from '../typing/index.js';
import { notFound, statusRoute } from './update-verb.js';

export type PatchOptions = { readonly subresource: Subresource; readonly dryRun?: boolean };

/** The patched document, decoded into the kind's type as the server does for each patch type (typed-decoding.ts). */
const patched = (info: KindInfo, base: Resource, patch: Patch): E.Either<ClusterError, JsonValue> => {
  switch (patch.type) {
    case 'json':
      return pipe(
        applyJsonPatch(base, patch.operations),
        E.chain((document) => decodePatched(info, document)),
      );
    case 'merge':
      return isJsonObject(patch.body)
        ? decodePatched(info, mergePatch(base, patch.body))
        : E.left(clusterError('BadRequest', 'merge patch body must be a JSON object'));
    case 'strategic':
      return pipe(
        strategicPatched(base.apiVersion, base.kind, base, patch.body),
        E.chain((document) => decodePatched(info, document)),
      );
    case 'apply':
      return pipe(
        withFieldManager(patch),
        E.chain((apply) => checkAppliedTypes(info, apply.body)),
        E.chain((body) => convertApplied(info, body, applyMerge(base, body))),
      );
  }
};

type ApplyPatch = Extract<Patch, { type: 'apply' }>;

/** Server-side apply needs a field manager (PatchOptions validation). */
const withFieldManager = (patch: ApplyPatch): E.Either<ClusterError, ApplyPatch> =>
  patch.fieldManager === undefined || patch.fieldManager === ''
    ? E.left(
        clusterError(
          'Invalid',
          'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          {
            causes: [
              {
                field: 'fieldManager',
                reason: 'FieldValueRequired',
                message: 'Required value: is required for apply patch',
              },
            ],
          },
        ),
      )
    : E.right(patch);

/** The patched document must still be the same object: same kind, version, name and namespace. */
const sameIdentity = (info: KindInfo, ref: ObjectRef, document: JsonValue): E.Either<ClusterError, Resource> => {
  if (!isJsonObject(document) || !isJsonObject(document.metadata))
    return E.left(clusterError('BadRequest', 'the patched object is not a Kubernetes object', { ref }));
  // Checked just above: an object with metadata; apiVersion, kind and name are the stored object's (a patch cannot
  // change them, the update path refuses it).
  const object = document as Resource;
  if (object.apiVersion !== ref.apiVersion || object.kind !== ref.kind)
    return E.left(clusterError('BadRequest', 'the patch may not change apiVersion or kind', { ref }));
  if (object.metadata.name !== ref.name)
    return E.left(
      clusterError(
        'BadRequest',
        `the name of the object (${String(object.metadata.name)}) does not match the name on the URL (${ref.name})`,
        { ref },
      ),
    );
  const namespace = object.metadata.namespace;
  if (info.scope === 'Namespaced' && namespace !== undefined && namespace !== namespaceFor(info, ref.namespace)) {
    return E.left(
      clusterError(
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
        { ref },
      ),
    );
  }
  return E.right(object);
};

/** Server-side apply of a missing object creates it from the applied configuration. */
const applyCreates = (
  state: ServerState,
  info: KindInfo,
  ref: ObjectRef,
  patch: Patch,
  options: PatchOptions,
): E.Either<ClusterError, Resource> => {
  if (patch.type !== 'apply' || options.subresource === 'status') return E.left(notFound(info, ref));
  return pipe(
    withFieldManager(patch),
    E.chain((apply) => checkAppliedTypes(info, apply.body)),
    E.chain((body) => convertApplied(info, body, body)),
    E.chain((body) => sameIdentity(info, ref, body)),
    E.chain((body) =>
      createObject(
        state,
        {
          ...body,
          metadata: {
            ...body.metadata,
            ...(namespaceFor(info, ref.namespace) === undefined
              ? {}
              : { namespace: namespaceFor(info, ref.namespace) }),
          },
        },
        options,
      ),
    ),
  );
};

export const patchObject = (
  state: ServerState,
  ref: ObjectRef,
  patch: Patch,
  options: PatchOptions,
): E.Either<ClusterError, Resource> =>
  pipe(
    state.registry.resolve(ref.apiVersion, ref.kind),
    E.chain((info) => statusRoute(info, options.subresource, ref)),
    // A custom resource has no patch strategies: the server refuses the media type before reading anything.
    E.chain((info) => (patch.type === 'strategic' && info.custom ? E.left(unsupportedPatchType(true)) : E.right(info))),
    E.chain((info) => {
      const stored = storedObject(state, info, ref.namespace, ref.name);
      if (stored === undefined) return applyCreates(state, info, ref, patch, options);
      return pipe(
        patched(info, servedAs(stored, ref.apiVersion), patch),
        E.chain((document) => sameIdentity(info, ref, document)),
        E.chain((candidate) => replaceObject(state, info, stored, candidate, options)),
      );
    }),
  );
