/**
 * How each Patch of the port goes over the wire: an explicit Content-Type always (the
 * client's strategic-merge default answers 415 for custom resources).
 */
import type { JsonValue } from '../../core/json/json.js';
import type { Patch, WriteOptions } from '../../core/ports/cluster.js';

export const contentTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/**
 * Every write (create, update, each patch type) is decoded strictly: a field the kind does not
 * have is refused (400, naming it) instead of dropped, which would leave a perpetual diff on an
 * observed typo; the error policy turns it into `Stalled InvalidSpec` naming the field.
 */
export const FIELD_VALIDATION = 'Strict';

export type PatchRequest = {
  readonly contentType: string;
  readonly body: JsonValue;
  readonly query: Readonly<Record<string, string | undefined>>;
};

/** Body, Content-Type and query for a patch; `force` is sent only for apply (the server rejects it otherwise). */
export const patchRequest = (patch: Patch, options: WriteOptions = {}): PatchRequest => {
  const dryRun = options.dryRun ? 'All' : undefined;
  const fieldValidation = FIELD_VALIDATION;
  switch (patch.type) {
    case 'json':
      return {
        contentType: contentTypes.json,
        body: patch.operations as unknown as JsonValue,
        query: { fieldManager: options.fieldManager, dryRun, fieldValidation },
      };
    case 'merge':
      return {
        contentType: contentTypes.merge,
        body: patch.body,
        query: { fieldManager: options.fieldManager, dryRun, fieldValidation },
      };
    case 'apply':
      // JSON is YAML, so the object goes as JSON text under the apply content type.
      return {
        contentType: contentTypes.apply,
        body: patch.body,
        query: {
          fieldManager: patch.fieldManager,
          force: patch.force === undefined ? undefined : String(patch.force),
          dryRun,
          fieldValidation,
        },
      };
  }
};
