/**
 * `spec.applyMode: ServerSideApply`: the intent a patch sends instead of a JSON Patch — the
 * observed desired fields only, so field manager `kreconcile` never claims a field it does not watch.
 */
import { getOwn, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { refOf, type Resource } from '../model/resource.js';
import { projectKnown } from '../manifest/project.js';
import { withOwnershipMarks, type Owner } from './ownership.js';
import type { ServerSideApplyIntent } from './types.js';

/**
 * A fully specified intent: identification, the ownership marks every created child carries, and
 * each observed field with its desired value (unknown values and list controls left out).
 * A field left out of a later apply is removed by the API server if `kreconcile` alone owns it,
 * which is what "no longer observed" means here.
 */
export const serverSideApplyIntent = (desired: Resource, schema: JsonValue, owner: Owner, force: boolean): ServerSideApplyIntent => {
  const known = projectKnown(desired, schema);
  const observed: JsonObject = isJsonObject(known) ? known : {};
  const metadata = getOwn(observed, 'metadata');
  const namespace = desired.metadata.namespace;
  const identified: Resource = {
    ...observed,
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    metadata: objectFromEntries([
      ...(isJsonObject(metadata) ? Object.entries(metadata) : []),
      ['name', desired.metadata.name],
      ...(typeof namespace === 'string' ? [['namespace', namespace] as const] : []),
    ]) as Resource['metadata'],
  };
  return { body: withOwnershipMarks(identified, refOf(desired), owner), force };
};
