/**
 * `spec.applyMode: ServerSideApply`: the intent a patch sends instead of a JSON Patch — the
 * observed desired fields only, so field manager `kreconcile` never claims a field it does not watch —
 * or, where list names are off the observer schema's positions, why the JSON Patch is sent after all.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  objectFromEntries,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { showPath, type Path } from '../json/path.js';
import { refOf, type Resource } from '../model/resource.js';
import { listElements, type SchemaNode } from '../model/observer-schema.js';
import { withinMaxLengths } from '../delta/max-lengths.js';
import { withOwnershipMarks, type Owner } from '../manifest/ownership.js';
import type { JsonPatchOperation, PatchAction, ServerSideApplyIntent } from '../model/plan.js';

/**
 * How a patch is sent in `ServerSideApply` mode: as the observed-fields intent, unless a list of
 * named elements is addressed differently by the observer schema (by position) and by the apply
 * (by name) — then as its guarded JSON Patch, the schema's positional intent, naming those lists.
 * Guarantees: exactly one of `serverSideApply` and `positionalLists` is set.
 */
export const serverSideApplyOf = (
  desired: Resource,
  live: Resource,
  schema: JsonValue,
  owner: Owner,
  force: boolean,
  patch: ReadonlyArray<JsonPatchOperation>,
): Pick<PatchAction, 'serverSideApply' | 'positionalLists'> => {
  const cut = withinMaxLengths(desired, isJsonObject(schema) ? schema : undefined);
  const lists = namesOffPosition(cut, live, schema, []);
  return lists.length > 0
    ? { positionalLists: lists }
    : { serverSideApply: serverSideApplyIntent(cut, schema, owner, force, patch) };
};

/**
 * A fully specified intent of `desired` (its lists already cut to their observed maxima, as a create
 * does): identification, the ownership marks every created child carries, and each observed field
 * with its desired value (unknown values and list controls left out; lists as `intentOf` sends them).
 * A field left out of a later apply is removed by the API server if `kreconcile` alone owns it,
 * which is what "no longer observed" means here.
 */
const serverSideApplyIntent = (
  desired: Resource,
  schema: JsonValue,
  owner: Owner,
  force: boolean,
  patch: ReadonlyArray<JsonPatchOperation>,
): ServerSideApplyIntent => {
  const known = intentOf(desired, schema);
  const observed: JsonObject = isJsonObject(known) ? known : {};
  const metadata = getOwn(observed, 'metadata');
  const namespace = desired.metadata.namespace;
  const identified: Resource = {
    ...observed,
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    // Spread copies own keys as data (a `__proto__` key too), in place when overwritten, as objectFromEntries does.
    metadata: {
      ...(isJsonObject(metadata) ? metadata : {}),
      name: desired.metadata.name,
      ...(typeof namespace === 'string' ? { namespace } : {}),
    },
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
    return value.map((item, i) => {
      const name = isJsonObject(item) ? getOwn(item, 'name') : undefined;
      return i < elements.length && typeof name === 'string'
        ? { ...asObject(intentOf(item, elements[i] ?? null)), name }
        : item;
    });
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

const nameOf = (item: JsonValue | undefined): string | undefined => {
  const name = isJsonObject(item) ? getOwn(item, 'name') : undefined;
  return typeof name === 'string' ? name : undefined;
};

/**
 * The observed lists (readable paths) where an element the intent addresses by name is not where
 * the observer schema addresses it: the live element at its position has another name, or its name
 * is live at another position (renamed, moved or duplicated by another actor). An apply would merge
 * it into the element of that name, or append it, while drift keeps comparing the position: the two
 * would never agree. Follows `intentOf`: a value it sends whole (schema `null`, or shaped unlike its
 * schema) is compared throughout, since the server merges the named lists inside it by name too.
 */
const namesOffPosition = (
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  schema: SchemaNode,
  path: Path,
): ReadonlyArray<string> => {
  if (isJsonArray(desired))
    return listNamesOffPosition(
      desired,
      isJsonArray(live) ? live : [],
      isJsonArray(schema) ? listElements(schema) : undefined,
      path,
    );
  if (!isJsonObject(desired)) return [];
  const liveObject = isJsonObject(live) ? live : {};
  const observed = isJsonObject(schema) ? schema : undefined;
  return Object.keys(observed ?? desired).flatMap((key) =>
    namesOffPosition(
      getOwn(desired, key),
      getOwn(liveObject, key),
      observed === undefined ? null : (observed[key] ?? null),
      [...path, key],
    ),
  );
};

/** `elements`: the schemas of the observed positions, or `undefined` for a list sent whole. */
const listNamesOffPosition = (
  desired: ReadonlyArray<JsonValue>,
  live: ReadonlyArray<JsonValue>,
  elements: ReadonlyArray<SchemaNode> | undefined,
  path: Path,
): ReadonlyArray<string> => {
  const liveNames = live.map(nameOf);
  // Where the apply puts a named element: into the live element of that name, else at the end.
  const inPlace = (name: string, i: number): boolean => {
    const at = liveNames.indexOf(name);
    return at < 0 ? i >= live.length : at === i;
  };
  const named = desired.flatMap((item, i) => {
    const name = nameOf(item);
    return name === undefined ? [] : [{ item, name, i }];
  });
  if (named.some(({ name, i }) => !inPlace(name, i))) return [showPath(path)];
  const compared = elements === undefined ? named : named.filter(({ i }) => i < elements.length);
  return compared.flatMap(({ item, i }) =>
    namesOffPosition(item, live[i], elements === undefined ? null : (elements[i] ?? null), [...path, i]),
  );
};

/**
 * The patch's removals (see `ServerSideApplyIntent.beforeApply`), with their `test` guards: they run
 * against the object the plan saw, so the guards hold there.
 */
const beforeApplyOf = (patch: ReadonlyArray<JsonPatchOperation>): ReadonlyArray<JsonPatchOperation> => {
  const removed = new Set(patch.filter((operation) => operation.op === 'remove').map((operation) => operation.path));
  return patch.filter((operation) => removed.has(operation.path));
};
