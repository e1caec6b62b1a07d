/**
 * patch and patchStatus: the patch (JSON, merge, strategic merge — ../strategic — or server-side
 * apply — ../field-manager, with field ownership, conflicts and removal as structured-merge-diff
 * does them) is applied to the stored object as served, then the result goes through the update
 * path (so a `metadata.resourceVersion` in the patch is a precondition); every patch records
 * managedFields (an Update by the request's manager, or the apply's own). Server-side apply
 * creates a missing object. Errors: NotFound, BadRequest (malformed patch, identity changed, an
 * apply at another version or with managedFields), Invalid (JSON Patch that cannot be applied —
 * see JSON_PATCH_APPLY_FAILURE, apply without fieldManager, a patched field of the wrong type),
 * Internal (apply with a field of the wrong type — typed-decoding.ts — or a list item without its
 * keys), Conflict (an apply changing fields another manager owns, unforced).
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import { refOf, type ObjectRef, type Resource } from '../../../core/model/resource.js';
import type { Patch } from '../../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { createObject } from './create-verb.js';
import { applyJsonPatch, mergePatch, servedAs } from '../json/index.js';
import type { KindInfo } from '../kinds/index.js';
import { replaceObject, type Subresource } from './replace-object.js';
import { namespaceFor, storedObject, type ServerState } from '../server-state.js';
import { strategicPatched, unsupportedPatchType } from '../strategic/index.js';
import { checkAppliedTypes, convertApplied, decodePatched, timestamp } from '../typing/index.js';
import { conflictError, trackApply, typingProblem, writeScope } from '../field-manager/index.js';
import { notFound, statusRoute } from './update-verb.js';
import { defined } from '../../../core/json/defined.js';

export type PatchOptions = {
  readonly subresource: Subresource;
  readonly dryRun?: boolean;
  /** The manager of a JSON, merge or strategic patch (an apply names its own). */
  readonly fieldManager?: string;
};

/** The patched document, decoded into the kind's type as the server does for each patch type (typed-decoding.ts). */
const patched = (
  state: ServerState,
  info: KindInfo,
  base: Resource,
  patch: Patch,
  subresource: Subresource,
): E.Either<ClusterError, JsonValue> => {
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
        appliable(info, base.apiVersion, patch),
        E.chain((apply) => applied(state, info, base, apply, subresource)),
        E.chain(({ body, merged }) => convertApplied(info, body, merged)),
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

/** An apply patch the server takes: a field manager, no managedFields, the version of the URL, well typed. */
const appliable = (info: KindInfo, apiVersion: string, patch: ApplyPatch): E.Either<ClusterError, ApplyPatch> =>
  pipe(
    withFieldManager(patch),
    E.chain((apply) =>
      apply.body.apiVersion !== apiVersion
        ? E.left(
            clusterError(
              'BadRequest',
              `Incorrect version specified in apply patch. Specified patch version: ${apply.body.apiVersion}, expected: ${apiVersion}`,
            ),
          )
        : apply.body.metadata.managedFields !== undefined
          ? E.left(clusterError('BadRequest', 'metadata.managedFields must be nil'))
          : E.right(apply),
    ),
    E.chain((apply) => E.map((body: Resource) => ({ ...apply, body }))(checkAppliedTypes(info, apply.body))),
  );

/**
 * The applied configuration merged over `live` with the managedFields the apply leaves
 * (../field-manager); a 409 naming the conflicts unless forced, a 500 for a configuration that
 * cannot be typed (as the server's "failed to create typed patch object").
 */
const applied = (
  state: ServerState,
  info: KindInfo,
  live: JsonObject,
  apply: ApplyPatch,
  subresource: Subresource,
): E.Either<ClusterError, { readonly body: Resource; readonly merged: JsonObject }> => {
  const scope = writeScope(
    info,
    apply.body.apiVersion,
    subresource === 'main' ? '' : subresource,
    timestamp(state.clock.now()),
  );
  const problem = typingProblem(apply.body, scope.type, false);
  if (problem !== undefined)
    return E.left(
      clusterError('Internal', `failed to create typed patch object (${appliedAt(info, apply.body)}): ${problem}`, {
        ref: refOf(apply.body),
      }),
    );
  return pipe(
    trackApply(scope, live, apply.body, apply.fieldManager, apply.force === true),
    E.bimap(conflictError, (merged) => ({ body: apply.body, merged })),
  );
};

/** `ns/name; apps/v1, Kind=Deployment`, as the server names the object of an apply it cannot type. */
const appliedAt = (info: KindInfo, body: Resource): string =>
  `${body.metadata.namespace ?? ''}/${body.metadata.name}; ${body.apiVersion}, Kind=${info.kind}`;

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
  const empty = writeScope(info, ref.apiVersion, '', '').empty();
  return pipe(
    appliable(info, ref.apiVersion, patch),
    E.chain((apply) => applied(state, info, { ...empty, apiVersion: ref.apiVersion, kind: ref.kind }, apply, 'main')),
    E.chain(({ body, merged }) => convertApplied(info, body, merged)),
    E.chain((body) => sameIdentity(info, ref, body)),
    E.chain((body) =>
      createObject(
        state,
        {
          ...body,
          metadata: {
            ...body.metadata,
            ...defined({ namespace: namespaceFor(info, ref.namespace) }),
          },
        },
        { ...defined({ dryRun: options.dryRun }), ownership: { operation: 'Apply' } },
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
        patched(state, info, servedAs(stored, ref.apiVersion), patch, options.subresource),
        E.chain((document) => sameIdentity(info, ref, document)),
        E.chain((candidate) =>
          replaceObject(state, info, stored, candidate, {
            subresource: options.subresource,
            ...defined({ dryRun: options.dryRun }),
            ownership:
              patch.type === 'apply'
                ? { operation: 'Apply' }
                : { operation: 'Update', manager: options.fieldManager ?? '' },
          }),
        ),
      );
    }),
  );
