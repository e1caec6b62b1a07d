/**
 * How each Patch of the port goes over the wire: an explicit Content-Type always (the
 * client's strategic-merge default answers 415 for custom resources).
 */
import type { JsonValue } from '../../core/json/json.js';
import type { Patch, WriteOptions } from '../../core/ports/cluster.js';

export const contentTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchRequest = {
  readonly contentType: string;
  readonly body: JsonValue;
  readonly query: Readonly<Record<string, string | undefined>>;
};

/** Body, Content-Type and query for a patch; `force` is sent only for apply (the server rejects it otherwise). */
export const patchRequest = (patch: Patch, options: WriteOptions = {}): PatchRequest => {
  const dryRun = options.dryRun ? 'All' : undefined;
  const fieldValidation = options.fieldValidation;
  switch (patch.type) {
    case 'json':
      return {
        contentType: contentTypes.json,
        body: patch.operations,
        query: { fieldManager: options.fieldManager, dryRun, fieldValidation },
      };
    case 'merge':
    case 'strategic':
      return {
        contentType: contentTypes[patch.type],
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
