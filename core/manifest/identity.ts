/** Resource identity with the Application's namespace as default (docs/behaviour.md §1, namespace **fix**). */
import { getOwn, isJsonObject, withKey, type JsonObject, type JsonValue } from '../json/json.js';
import { refKey, type ObjectRef, type Resource } from '../model/resource.js';
import { scopeOf, type Scope, type ScopeTable } from '../model/scope.js';
import { keep, memoTable, recall, remember, type Memo } from '../memo/memo.js';
import { jsonText } from '../json/text.js';

/** Reference of a resource; a namespaced resource without namespace lives in `defaultNamespace`. */
export const identityOf = (
  resource: JsonObject,
  scopes: ScopeTable,
  defaultNamespace: string,
  memo?: Memo,
): ObjectRef => {
  const apiVersion = jsonText(getOwn(resource, 'apiVersion'));
  const kind = jsonText(getOwn(resource, 'kind'));
  const metadata = getOwn(resource, 'metadata');
  const name = isJsonObject(metadata) ? jsonText(getOwn(metadata, 'name')) : '';
  const namespace = namespaceOf(resource, scopes, defaultNamespace, memo);
  return namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
};

/**
 * The namespace of `identityOf(resource, …)` (`undefined`: cluster-scoped), without building the
 * reference: what a resource's namespace is resolved with for every resource of every fresh spec.
 */
export const namespaceOf = (
  resource: JsonObject,
  scopes: ScopeTable,
  defaultNamespace: string,
  memo?: Memo,
): string | undefined => {
  const scope = knownScope(scopes, jsonText(getOwn(resource, 'apiVersion')), jsonText(getOwn(resource, 'kind')), memo);
  if (scope === 'Cluster') return undefined;
  const metadata = getOwn(resource, 'metadata');
  const written = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
  return typeof written === 'string' ? written : defaultNamespace;
};

/**
 * `scopeOf`, remembered in `memo` per table and (apiVersion, kind): a plan asks for every
 * resource, several times, and `scopeOf` builds (and hashes) a key string each time. Tables are
 * immutable by contract; a tenant can write any number of kinds, so at most
 * `MAX_REMEMBERED_KINDS` per table.
 */
export const knownScope = (scopes: ScopeTable, apiVersion: string, kind: string, memo?: Memo): Scope | undefined => {
  if (memo === undefined) return scopeOf(scopes, { apiVersion, kind });
  // Recalled before kept, not `remember`ed: this runs several times per resource, and `remember`
  // would take a new closure each time (56 bytes, a fifth of what a fresh plan allocates per object here).
  const remembered =
    recall(memo, REMEMBERED_SCOPES, scopes) ??
    keep(memo, REMEMBERED_SCOPES, scopes, { count: 0, byVersion: new Map() });
  const found = remembered.byVersion.get(apiVersion)?.get(kind);
  if (found !== undefined) return found === NOT_A_SCOPE ? undefined : found;
  const scope = scopeOf(scopes, { apiVersion, kind });
  if (remembered.count < MAX_REMEMBERED_KINDS) {
    remembered.count++;
    childMap(remembered.byVersion, apiVersion).set(kind, scope ?? NOT_A_SCOPE);
  }
  return scope;
};

const NOT_A_SCOPE = 'unknown';
const MAX_REMEMBERED_KINDS = 1000;
const REMEMBERED_SCOPES = memoTable<
  ScopeTable,
  { count: number; readonly byVersion: Map<string, Map<string, Scope | typeof NOT_A_SCOPE>> }
>('scopes per scope table and kind');

/** Sets `metadata.namespace` explicitly for namespaced kinds and drops it for cluster-scoped ones. */
export const withNamespace = (resource: Resource, ref: ObjectRef): Resource => inNamespace(resource, ref.namespace);

/** `withNamespace` with the namespace as `namespaceOf` resolves it (`undefined`: cluster-scoped). */
export const inNamespace = (resource: Resource, namespace: string | undefined): Resource => {
  const { metadata } = resource;
  if (namespace === undefined) {
    if (getOwn(metadata, 'namespace') === undefined) return resource;
    const { namespace: _dropped, ...rest } = metadata;
    return withKey(resource, 'metadata', rest);
  }
  return getOwn(metadata, 'namespace') === namespace
    ? resource
    : withKey(resource, 'metadata', withKey(metadata, 'namespace', namespace));
};

/**
 * Whether two objects are the same resource. A missing namespace matches `defaultNamespace`,
 * or any namespace when none is given (callers that do not know the scope).
 */
export const sameResource = (a: JsonObject, b: JsonObject, defaultNamespace?: string): boolean => {
  if (getOwn(a, 'apiVersion') !== getOwn(b, 'apiVersion') || getOwn(a, 'kind') !== getOwn(b, 'kind')) return false;
  const ma = getOwn(a, 'metadata');
  const mb = getOwn(b, 'metadata');
  if (!isJsonObject(ma) || !isJsonObject(mb) || getOwn(ma, 'name') !== getOwn(mb, 'name')) return false;
  const na = getOwn(ma, 'namespace') ?? defaultNamespace;
  const nb = getOwn(mb, 'namespace') ?? defaultNamespace;
  return na === undefined || nb === undefined || na === nb;
};

/** Map key of an object by its written identity (namespace as written). */
export const writtenKey = (object: JsonObject): string => {
  const metadata = getOwn(object, 'metadata');
  const ns = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
  return refKey({
    apiVersion: jsonText(getOwn(object, 'apiVersion')),
    kind: jsonText(getOwn(object, 'kind')),
    name: isJsonObject(metadata) ? jsonText(getOwn(metadata, 'name')) : '',
    ...(typeof ns === 'string' ? { namespace: ns } : {}),
  });
};

/** Finds the entry that is the same resource as a query, in O(1) per lookup (see `sameResource`). */
export const resourceFinder = <T extends JsonObject>(
  entries: ReadonlyArray<T>,
  defaultNamespace?: string,
  memo?: Memo,
): ((query: JsonObject) => T | undefined) => {
  if (memo === undefined) return buildFinder(entries, defaultNamespace);
  // Plans look up the same previous status reconcile after reconcile: one finder per list and namespace.
  const byNamespace = remember(memo, FINDERS, entries, () => new Map());
  const cached = byNamespace.get(defaultNamespace);
  // The memo table holds finders built from this very list of T (keyed by it): they find T.
  if (cached !== undefined) return cached as (query: JsonObject) => T | undefined;
  const find = buildFinder(entries, defaultNamespace);
  byNamespace.set(defaultNamespace, find);
  return find;
};

const FINDERS = memoTable<
  ReadonlyArray<JsonObject>,
  Map<string | undefined, (query: JsonObject) => JsonObject | undefined>
>('finder per list and default namespace');

/**
 * Entries by name, one map operation per entry, with apiVersion, kind and namespace compared on
 * lookup: no key string and no cache insertion per object, which is what costs on fresh objects.
 * Entries sharing a name (other kinds or namespaces, few) are kept in a list, in entry order: the
 * first that is the same resource is found. An object without metadata is never the same
 * resource as anything (`sameResource`), so it is not indexed.
 */
const buildFinder = <T extends JsonObject>(
  entries: ReadonlyArray<T>,
  defaultNamespace?: string,
): ((query: JsonObject) => T | undefined) => {
  const single = new Map<JsonValue | undefined, T>();
  const shared = new Map<JsonValue | undefined, T[]>();
  // Indexed loops, not `for…of`: an array iterator's results are allocated until the loop is optimized, and these
  // loops run once per plan over every resource.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const metadata = getOwn(entry, 'metadata');
    if (!isJsonObject(metadata)) continue;
    const name = getOwn(metadata, 'name');
    const others = shared.get(name);
    const first = others === undefined ? single.get(name) : undefined;
    if (others !== undefined) others.push(entry);
    else if (first === undefined) single.set(name, entry);
    else {
      single.delete(name);
      shared.set(name, [first, entry]);
    }
  }
  return (query) => {
    const metadata = getOwn(query, 'metadata');
    if (!isJsonObject(metadata)) return undefined;
    const apiVersion = getOwn(query, 'apiVersion');
    const kind = getOwn(query, 'kind');
    const namespace = getOwn(metadata, 'namespace') ?? defaultNamespace;
    const name = getOwn(metadata, 'name');
    const first = single.get(name);
    if (first !== undefined)
      return matchesQuery(first, apiVersion, kind, namespace, defaultNamespace) ? first : undefined;
    for (const entry of shared.get(name) ?? [])
      if (matchesQuery(entry, apiVersion, kind, namespace, defaultNamespace)) return entry;
    return undefined;
  };
};

/** Whether `resourceFinder(…, defaultNamespace)` answers `query` with `entry` (the relation of its lookups). */
export const foundAs = (entry: JsonObject, query: JsonObject, defaultNamespace: string | undefined): boolean => {
  const metadata = getOwn(query, 'metadata');
  const entryMetadata = getOwn(entry, 'metadata');
  if (!isJsonObject(metadata) || !isJsonObject(entryMetadata)) return false;
  return (
    getOwn(entryMetadata, 'name') === getOwn(metadata, 'name') &&
    matchesQuery(
      entry,
      getOwn(query, 'apiVersion'),
      getOwn(query, 'kind'),
      getOwn(metadata, 'namespace') ?? defaultNamespace,
      defaultNamespace,
    )
  );
};

/**
 * What `sameResource` compares besides the name. A module function, not a closure per lookup:
 * tsx (the benchmarks, `node --import tsx`) names every closure bound to a name with a property
 * definition each time it is made, a tenth of a small plan's time.
 */
const matchesQuery = (
  entry: JsonObject,
  apiVersion: JsonValue | undefined,
  kind: JsonValue | undefined,
  namespace: JsonValue | undefined,
  defaultNamespace: string | undefined,
): boolean =>
  getOwn(entry, 'apiVersion') === apiVersion &&
  getOwn(entry, 'kind') === kind &&
  sameNamespace(entry, namespace, defaultNamespace);

/** The namespace part of `sameResource`, for an indexed entry and a query's namespace. */
const sameNamespace = (
  entry: JsonObject,
  namespace: JsonValue | undefined,
  defaultNamespace: string | undefined,
): boolean => {
  const metadata = getOwn(entry, 'metadata');
  const own = (isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined) ?? defaultNamespace;
  return own === undefined || namespace === undefined || own === namespace;
};

const childMap = <K, C, V>(parent: Map<K, Map<C, V>>, key: K): Map<C, V> => {
  let child = parent.get(key);
  if (child === undefined) {
    child = new Map();
    parent.set(key, child);
  }
  return child;
};

/** Objects by identity, looked up without key strings (see `identityIndex`). */
export type IdentityIndex<T> = {
  /** The object with this identity (a missing namespace is the empty one, as in `refKey`). */
  readonly get: (ref: ObjectRef) => T | undefined;
  /** The object with the identity `resource` has. */
  readonly of: (resource: Resource) => T | undefined;
};

/**
 * Objects by (apiVersion, kind, namespace, name), looked up by name and compared on the rest:
 * a lookup builds no key string and caches nothing per object, which is what costs when every
 * object is new (after a relist or a restart). A later object with the same identity wins.
 */
export const identityIndex = <T extends Resource>(objects: ReadonlyArray<T>, memo?: Memo): IdentityIndex<T> =>
  // Lists are immutable by contract: a plan re-planning the same lists reuses their index.
  remember(memo, IDENTITY_INDEXES, objects, buildIdentityIndex) as IdentityIndex<T>;

const IDENTITY_INDEXES = memoTable<ReadonlyArray<Resource>, IdentityIndex<Resource>>('identity index per list');

/**
 * `identityIndex(objects)`, built on the first lookup: for a pass that looks objects up only for
 * some decisions (protections, recreations: none in a plan with no writes) and would otherwise
 * index every object of every plan for nothing.
 */
export const lazyIdentityIndex = <T extends Resource>(objects: ReadonlyArray<T>, memo?: Memo): IdentityIndex<T> => {
  let built: IdentityIndex<T> | undefined;
  // Methods, not arrow properties: no closure naming per plan under tsx (see `matchesQuery`); neither reads `this`.
  return {
    get(ref) {
      return (built ??= identityIndex(objects, memo)).get(ref);
    },
    of(resource) {
      return (built ??= identityIndex(objects, memo)).of(resource);
    },
  };
};

/** Whether `identityIndex(…).get(ref)` could answer `object`: the relation its lookups by reference answer by. */
export const identifiedBy = (object: Resource, ref: ObjectRef): boolean =>
  object.metadata.name === ref.name && hasIdentity(object, ref.apiVersion, ref.kind, ref.namespace ?? '');

/** Whether `identityIndex` files `object` under the identity of `query` (the relation its lookups answer by). */
export const indexedAs = (object: Resource, query: Resource): boolean =>
  object.metadata.name === query.metadata.name && sameIndexedIdentity(object, query);

const buildIdentityIndex = <T extends Resource>(objects: ReadonlyArray<T>): IdentityIndex<T> => {
  // By name, one map operation per object; the rest of the identity is compared. A name shared
  // by several objects (other kinds or namespaces, few) moves to `shared`, a list per name.
  const single = new Map<string, T>();
  const shared = new Map<string, T[]>();
  // An indexed loop, as in `buildFinder`.
  for (let i = 0; i < objects.length; i++) {
    const object = objects[i];
    if (object === undefined) continue;
    const name = object.metadata.name;
    const others = shared.get(name);
    const first = others === undefined ? single.get(name) : undefined;
    if (others !== undefined) {
      const at = others.findIndex((other) => sameIndexedIdentity(other, object));
      if (at < 0) others.push(object);
      else others[at] = object;
    } else if (first === undefined || sameIndexedIdentity(first, object)) single.set(name, object);
    else {
      single.delete(name);
      shared.set(name, [first, object]);
    }
  }
  // Methods, not arrow properties: no closure naming per plan under tsx (see `matchesQuery`); neither reads `this`.
  return {
    get(ref) {
      return lookUp(single, shared, ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name);
    },
    of(resource) {
      const { metadata } = resource;
      return lookUp(single, shared, resource.apiVersion, resource.kind, metadata.namespace ?? '', metadata.name);
    },
  };
};

/** The object of `buildIdentityIndex`'s maps with this identity. */
const lookUp = <T extends Resource>(
  single: ReadonlyMap<string, T>,
  shared: ReadonlyMap<string, ReadonlyArray<T>>,
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
): T | undefined => {
  const first = single.get(name);
  if (first !== undefined) return hasIdentity(first, apiVersion, kind, namespace) ? first : undefined;
  for (const object of shared.get(name) ?? []) if (hasIdentity(object, apiVersion, kind, namespace)) return object;
  return undefined;
};

/** Whether `object` has this identity as `identityIndex` keys it (namespace '' when absent). */
const hasIdentity = (object: Resource, apiVersion: string, kind: string, namespace: string): boolean =>
  object.apiVersion === apiVersion && object.kind === kind && (object.metadata.namespace ?? '') === namespace;

const sameIndexedIdentity = (a: Resource, b: Resource): boolean =>
  hasIdentity(a, b.apiVersion, b.kind, b.metadata.namespace ?? '');
