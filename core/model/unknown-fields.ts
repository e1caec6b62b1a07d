/**
 * Unknown fields of an Application document: the API server refuses them (fieldValidation=Strict,
 * kubectl's default) or silently drops them, so a typo such as `observerSchemas` would make the
 * field it meant ignored. Each issue names the closest known field.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { showPath } from '../json/path.js';
import { specFieldNames } from './application.js';
import { closestName } from './closest-name.js';
import type { Issue } from './decode.js';

const TOP_LEVEL_FIELDS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;

/** ObjectMeta (metav1): the fields the API server knows. */
const METADATA_FIELDS = [
  'name',
  'namespace',
  'labels',
  'annotations',
  'generateName',
  'finalizers',
  'ownerReferences',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
] as const;

/** Issues for the fields of an object that are not `known`, each at its path below `at`. */
const unknownIn = (
  object: JsonObject,
  known: ReadonlyArray<string>,
  at: ReadonlyArray<string>,
  what: string,
): ReadonlyArray<Issue> =>
  Object.keys(object)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const suggestion = closestName(key, known);
      const hint =
        suggestion === undefined
          ? `remove it (${what} fields are ${known.join(', ')})`
          : `did you mean \`${suggestion}\`?`;
      return {
        path: showPath([...at, key]),
        message: `unknown field (the API server would refuse or drop it): ${hint}`,
      };
    });

/**
 * Every unknown field at the top level, in `metadata` and in `spec` (the parts whose fields are
 * fixed; manifests and observer schemas inside the spec are free-form). Anything not an object
 * is left to the decoder to report.
 */
export const unknownFieldIssues = (document: JsonValue): ReadonlyArray<Issue> => {
  if (!isJsonObject(document)) return [];
  const metadata = getOwn(document, 'metadata');
  const spec = getOwn(document, 'spec');
  return [
    ...unknownIn(document, TOP_LEVEL_FIELDS, [], "an Application's"),
    ...(isJsonObject(metadata) ? unknownIn(metadata, METADATA_FIELDS, ['metadata'], 'metadata') : []),
    ...(isJsonObject(spec) ? unknownIn(spec, specFieldNames(), ['spec'], "the spec's") : []),
  ];
};
