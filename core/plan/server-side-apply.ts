/**
 * `spec.applyMode: ServerSideApply`: the intent a patch sends instead of a JSON Patch — the
 * observed desired fields only, so field manager `kreconcile` never claims a field it does not watch.
 */
import { getOwn, hasOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { refOf, type Resource } from '../model/resource.js';
import { listElements, type ObserverSchema, type SchemaNode } from '../model/observer-schema.js';
import { withinMaxLengths } from '../delta/max-lengths.js';
import { withOwnershipMarks, type Owner } from './ownership.js';
import type { JsonPatchOperation, ServerSideApplyIntent } from './types.js';

/**
 * A fully specified intent: identification, the ownership marks every created child carries, and
 * each observed field with its desired value (unknown values and list controls left out; lists as
 * `intentOf` sends them).
 * A field left out of a later apply is removed by the API server if `kreconcile` alone owns it,
 * which is what "no longer observed" means here.
 */
export const serverSideApplyIntent = (desired: Resource, schema: JsonValue, owner: Owner, force: boolean, patch: ReadonlyArray<JsonPatchOperation>): ServerSideApplyIntent => {
  // As a create does: a desired list longer than its observed maximum is cut to it.
  const known = intentOf(withinMaxLengths(desired, isJsonObject(schema) ? schema as ObserverSchema : undefined), schema);
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
  return { body: withOwnershipMarks(identified, refOf(desired), owner), force, beforeApply: beforeApplyOf(patch) };
};

/**
 * The observed part of a desired value. Lists: an observer schema observes a list's length, so the
 * list goes with every desired element, or the server could not add the ones a minimum needs.
 * An element the schema observes is projected when it carries a `name` (a list merged by key, such
 * as `containers`, `env`: the name identifies it and the server merges the rest); any other element
 * goes whole, because lists without a merge key are atomic to server-side apply (a projected element
 * would replace the whole list's siblings); elements beyond the observed positions go whole.
 */
const intentOf = (value: JsonValue | undefined, schema: SchemaNode): JsonValue | undefined => {
  if (value === undefined || value === null) return undefined;
  if (schema === null) return value;
  if (isJsonArray(schema)) {
    if (!isJsonArray(value)) return value; // a shape other than the schema's is observed whole, as drift compares it
    const elements = listElements(schema);
    return value.map((item, i) => (i < elements.length && isJsonObject(item) && typeof getOwn(item, 'name') === 'string'
      ? { ...(asObject(intentOf(item, elements[i] ?? null))), name: getOwn(item, 'name') as string }
      : item));
  }
  if (!isJsonObject(schema) || !isJsonObject(value)) return value;
  const entries: Array<readonly [string, JsonValue]> = [];
  for (const key in schema) {
    if (!hasOwn(schema, key)) continue;
    const projected = intentOf(getOwn(value, key), schema[key] ?? null);
    if (projected !== undefined) entries.push([key, projected]);
  }
  return entries.length === 0 ? undefined : objectFromEntries(entries);
};

const asObject = (value: JsonValue | undefined): JsonObject => (isJsonObject(value) ? value : {});

/**
 * The patch's operations an apply cannot express (see `ServerSideApplyIntent.beforeApply`), with
 * their `test` guards: they run against the object the plan saw, so the guards hold there.
 */
const beforeApplyOf = (patch: ReadonlyArray<JsonPatchOperation>): ReadonlyArray<JsonPatchOperation> => {
  const positional = new Set(patch.filter((operation) => operation.op === 'remove' || (operation.op !== 'test' && ELEMENT_NAME.test(operation.path))).map((operation) => operation.path));
  return patch.filter((operation) => positional.has(operation.path));
};

const ELEMENT_NAME = /\/\d+\/name$/;
