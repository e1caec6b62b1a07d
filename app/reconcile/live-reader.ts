/** Reading the live objects a plan needs: desired identities and everything carrying our owner mark. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  getIn,
  identityOf,
  isJsonObject,
  isOwnedBy,
  ownerFor,
  ownerMark,
  scopeKey,
  scopeOf,
  targetViolation,
  tenancyFor,
  type Application,
  type ClusterError,
  type ClusterReader,
  type Discovery,
  type ObjectRef,
  type Owner,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
  keep,
  memoTable,
  recall,
  remember,
  type Memo,
} from '../../core/internal.js';
import { intentKindsOf } from './intent-kinds.js';
import { defined } from '../../core/json/defined.js';

/**
 * Kinds per Application object: the runtime decodes one object per version, so a resync asks again for the same one.
 */
const KINDS = memoTable<Application, ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }>>(
  'kinds per Application object',
);

/**
 * The kinds an Application touches: those in its manifest, those its status names and those it
 * recorded before creating children of them (intent-kinds.ts), kept in `memo`.
 */
export const kindsOf = (
  application: Application,
  memo?: Memo,
): ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }> =>
  remember(memo, KINDS, application, () =>
    distinctKinds([
      ...(application.spec.manifest ?? []),
      ...statusEntries(application.status),
      ...intentKindsOf(application),
    ]),
  );

/**
 * The kinds the status names: what was observed, and what was last applied (recorded before the
 * first child of a new kind is created, so a child whose observation was never written is found).
 */
export const statusKinds = (
  status: Application['status'],
): ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }> => distinctKinds(statusEntries(status));

const statusEntries = (status: Application['status']): ReadonlyArray<unknown> => [
  ...(status?.lastObservedManifest ?? []),
  ...(status?.lastAppliedManifest ?? []),
];

const distinctKinds = (
  entries: ReadonlyArray<unknown>,
): ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }> => {
  const seen = new Map<string, { apiVersion: string; kind: string }>();
  for (const entry of entries) {
    if (!isJsonObject(entry)) continue;
    const { apiVersion, kind } = entry;
    if (typeof apiVersion === 'string' && typeof kind === 'string')
      seen.set(`${apiVersion}|${kind}`, { apiVersion, kind });
  }
  return [...seen.values()];
};

export const ownerOfApplication = (application: Application): Owner => ownerFor(application);

/** Per Application object, the scope table last found to know every kind it names. */
const SETTLED_SCOPES = memoTable<Application, ScopeTable>('scope table knowing every kind, per Application object');

/**
 * Whether `scopes` was found (and kept in `memo`) to know every kind `application` names: then discovery need not be
 * asked.
 */
export const knowsEveryKind = (application: Application, scopes: ScopeTable, memo?: Memo): boolean =>
  recall(memo, SETTLED_SCOPES, application) === scopes;

/**
 * Completes a scope table with discovery for kinds it does not know (unknown kinds stay unknown).
 * A table that turns out to know every kind is remembered for the Application object: the runtime
 * decodes one object per version, so its reconciles ask nothing more while that table is current.
 */
export const resolveScopes = async (
  application: Application,
  scopes: ScopeTable,
  discovery: Discovery,
  memo?: Memo,
): Promise<ScopeTable> => {
  if (knowsEveryKind(application, scopes, memo)) return scopes;
  const missing = kindsOf(application, memo).filter((kind) => scopeOf(scopes, kind) === undefined);
  if (missing.length === 0) return keep(memo, SETTLED_SCOPES, application, scopes);
  const found = await Promise.all(
    missing.map(async (kind) => [kind, await discovery.scopeOf(kind.apiVersion, kind.kind)()] as const),
  );
  const learned = found.flatMap(([kind, result]) =>
    E.isRight(result) ? [[scopeKey(kind.apiVersion, kind.kind), result.right] as const] : [],
  );
  const completed = learned.length === 0 ? scopes : new Map([...scopes, ...learned]);
  // Kinds discovery could not resolve are asked for again next time: only a complete answer is kept.
  if (learned.length === missing.length) keep(memo, SETTLED_SCOPES, application, completed);
  return completed;
};

/** What a runtime's caches offer the live reader; a kind whose cache is not synced is read directly. */
export type LiveCache = {
  /** The synced cache of one kind (`undefined` while not synced, or not watched). */
  readonly kind: (kind: {
    readonly apiVersion: string;
    readonly kind: string;
  }) => { readonly get: (namespace: string | undefined, name: string) => Resource | undefined } | undefined;
  /**
   * Objects carrying this owner mark (`ownerMark(owner)`) in every synced cache — not only the kinds
   * the Application names now: a child of a kind since removed from the spec must still be found to be pruned.
   */
  readonly ownedBy: (mark: string) => ReadonlyArray<Resource>;
  /**
   * A number that moves whenever any answer above may change (an object stored or removed, a cache
   * synced or stopped); the same number means the same answers. Without it every read looks up again.
   */
  readonly revision?: () => number;
};

const noCache: LiveCache = { kind: () => undefined, ownedBy: () => [] };

/** How live objects are read: through a runtime's caches, under a tenancy policy, per namespace. */
export type LiveReadOptions = {
  readonly cache?: LiveCache;
  /**
   * List namespaced kinds per namespace the Application touches (its own, those its manifest and
   * status name) instead of cluster-wide: what an identity with namespace-scoped rights (an
   * impersonated ServiceAccount) is allowed to do.
   */
  readonly perNamespace?: boolean;
  /**
   * Kinds read directly (their cache not synced) are listed per namespace the Application touches,
   * as with `perNamespace`, while synced caches are still read: a namespaced operator, whose rights
   * to list children may be bound to namespaces.
   */
  readonly listPerNamespace?: boolean;
  /** The admin's tenancy policy: what it forbids is never read (the plan does not depend on it). */
  readonly tenancy?: TenancyPolicy;
  /**
   * A desired object missing from its kind's synced cache is taken as absent, without a GET (the
   * caches hold only objects labelled as ours). Safe because a create never overwrites: when the
   * name is taken by an object that is not ours (or not cached yet), the server refuses the create
   * with AlreadyExists, and the caller must then read that Application's objects without this
   * option. Saves one GET per child of a fresh Application.
   */
  readonly optimisticCreates?: boolean;
  /** The caller's caches (a controller's): what is derived per Application object is kept there. */
  readonly memo?: Memo;
};

/** The namespaces an Application touches: its own, and those its manifest and recorded status name. */
export const namespacesOf = (application: Application, scopes: ScopeTable): ReadonlyArray<string> => {
  const own = ownerOfApplication(application).namespace;
  const named = [
    ...desiredResources(application).flatMap((resource) => {
      if (scopeOf(scopes, resource) !== 'Namespaced') return [];
      return [identityOf(resource, scopes, own).namespace ?? own];
    }),
    ...(application.status?.lastObservedManifest ?? []).flatMap((entry) => {
      const namespace = getIn(entry, ['metadata', 'namespace']);
      return typeof namespace === 'string' ? [namespace] : [];
    }),
  ];
  return [...new Set([own, ...named])];
};

/**
 * Whether a desired identity is worth reading: one the tenancy policy forbids is never written, its
 * plan does not depend on it, and the operator may lack the right to read it (least privilege).
 */
export const readableFor = (
  application: Application,
  tenancy: TenancyPolicy | undefined,
): ((ref: ObjectRef) => boolean) => {
  const rules = tenancyFor(tenancy, ownerOfApplication(application).namespace);
  return (ref) => targetViolation(rules, ref) === undefined;
};

/**
 * Live objects for planning (the runtime's reconciles and the CLI's `plan --kubeconfig`/`snapshot`
 * both read through here): each desired identity the tenancy policy allows, then every object of
 * the touched kinds labelled as ours and annotated with this Application as owner. Read from
 * `cache` where a kind's cache is synced, else directly through the ports (never waiting for a
 * cache); reads run concurrently. Kinds the server does not serve (yet) are skipped: the plan
 * reports them as UnknownKind.
 * Errors: the first read that failed otherwise (forbidden, unreachable, …).
 */
export const readLive = async (
  application: Application,
  scopes: ScopeTable,
  reader: ClusterReader,
  options: LiveReadOptions = {},
): Promise<E.Either<ClusterError, ReadonlyArray<Resource>>> =>
  readLiveCachesFirst(application, scopes, reader, options);

/**
 * `readLive`, answered without a promise when the caches give all of it (`readLiveFromCaches`: a
 * resync of an in-sync Application), else through the API server: the runtime's live source.
 */
export const readLiveCachesFirst = (
  application: Application,
  scopes: ScopeTable,
  reader: ClusterReader,
  options: LiveReadOptions,
): E.Either<ClusterError, ReadonlyArray<Resource>> | Promise<E.Either<ClusterError, ReadonlyArray<Resource>>> =>
  readLiveFromCaches(application, scopes, options) ?? readLiveThrough(application, scopes, reader, options);

/**
 * `readLive`'s answer when the runtime's caches give all of it, without a promise (a resync of an
 * in-sync Application): the last answer again when the caches, identities and options are the same
 * as then, else every desired object found in synced caches with the owned ones. `undefined` when
 * something must be read from the API server, or the reads are per namespace (`perNamespace`).
 */
export const readLiveFromCaches = (
  application: Application,
  scopes: ScopeTable,
  options: LiveReadOptions,
): E.Either<ClusterError, ReadonlyArray<Resource>> | undefined => {
  const cache = options.cache;
  if (cache === undefined || options.perNamespace === true) return undefined;
  const state = readStateOf(application, options.memo);
  const derived = derivedFor(state, application, scopes, options.tenancy, options.memo);
  const optimistic = options.optimisticCreates === true;
  // Read from the caches as they were, with the same identities and options: the same answer (a resync of a quiet
  // fleet).
  const revision = cache.revision?.();
  const last = state.last;
  if (
    revision !== undefined &&
    last?.revision === revision &&
    last.derived === derived &&
    last.optimistic === optimistic
  )
    return last.answer;
  if (!derived.kinds.every((kind) => cache.kind(kind) !== undefined)) return undefined;
  // Everything from the caches: no request, so no promise per object.
  const cachedReads = fromCachesOnly(derived.refs, cache, optimistic);
  return cachedReads === undefined
    ? undefined
    : sameAsLastRead(state, withOwned(cachedReads, cache.ownedBy(state.mark)), { revision, derived, optimistic });
};

/**
 * The lists a read through the API server makes: each kind the caches do not hold, cluster-wide or
 * per namespace (for identities with namespace-bound rights: never where the policy forbids writing).
 */
const listQueries = (
  application: Application,
  scopes: ScopeTable,
  cache: LiveCache,
  options: LiveReadOptions,
): ReadonlyArray<{ readonly apiVersion: string; readonly kind: string; readonly namespace?: string }> => {
  const perNamespace = options.perNamespace === true || options.listPerNamespace === true;
  const namespaces = perNamespace ? namespacesOf(application, scopes) : [undefined];
  const listable = perNamespace ? readableFor(application, options.tenancy) : undefined;
  return kindsOf(application, options.memo)
    .filter((kind) => scopeOf(scopes, kind) !== undefined && cache.kind(kind) === undefined)
    .flatMap((kind) =>
      (scopeOf(scopes, kind) === 'Namespaced' ? namespaces : [undefined]).map((namespace) => ({
        ...kind,
        ...defined({ namespace }),
      })),
    )
    .filter((query) => listable === undefined || listable({ ...query, name: '' }));
};

/** `readLive` through the API server for what the caches do not hold (their synced kinds still read from them). */
const readLiveThrough = async (
  application: Application,
  scopes: ScopeTable,
  reader: ClusterReader,
  options: LiveReadOptions,
): Promise<E.Either<ClusterError, ReadonlyArray<Resource>>> => {
  const cache = options.cache ?? noCache;
  const state = readStateOf(application, options.memo);
  const { owner, mark } = state;
  const { refs: desired } = derivedFor(state, application, scopes, options.tenancy, options.memo);
  const listed = listQueries(application, scopes, cache, options);
  if (listed.length === 0) {
    const cachedReads = fromCachesOnly(desired, cache, options.optimisticCreates === true);
    if (cachedReads !== undefined) return E.right(withOwned(cachedReads, cache.ownedBy(mark)));
  }
  const reads = await Promise.all([
    ...desired.map(async (ref): Promise<E.Either<ClusterError, ReadonlyArray<Resource>>> => {
      // The caches hold only objects labelled as ours: a desired object missing there may exist unlabelled.
      const kindCache = cache.kind(ref);
      const cached = kindCache?.get(ref.namespace, ref.name);
      if (cached !== undefined) return E.right([cached]);
      if (kindCache !== undefined && options.optimisticCreates === true) return E.right([]);
      return E.map((found: O.Option<Resource>) => (O.isSome(found) ? [found.value] : []))(await reader.get(ref)());
    }),
    Promise.resolve(E.right(cache.ownedBy(mark))),
    ...listed.map(async (query) =>
      E.map((list: { readonly items: ReadonlyArray<Resource> }) =>
        list.items.filter((object) => isOwnedBy(object, owner)),
      )(await reader.list({ ...query, labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}` })()),
    ),
  ]);
  return allFound(reads);
};

/** The objects every read found, once each; a kind gone or not served found none, any other failure fails all. */
const allFound = (
  reads: ReadonlyArray<E.Either<ClusterError, ReadonlyArray<Resource>>>,
): E.Either<ClusterError, ReadonlyArray<Resource>> => {
  const found: Array<ReadonlyArray<Resource>> = [];
  for (const read of reads) {
    if (E.isLeft(read)) {
      if (read.left._tag === 'UnknownKind' || read.left._tag === 'NotFound') continue;
      return read;
    }
    found.push(read.right);
  }
  return E.right(distinctObjects(found));
};

/**
 * What the live reader keeps per Application object (the runtime decodes one per version, and a
 * resync reads every one): its owner and owner mark, what it derived for the scope table and
 * policy last in force, and the read it last answered. One memo entry: a resync looks it up once.
 */
type ReadState = {
  readonly owner: Owner;
  readonly mark: string;
  derived: Derived | undefined;
  last: LastRead | undefined;
};

/** The identities of the desired objects the policy allows reading, and the kinds touched that the table knows. */
type Derived = {
  readonly scopes: ScopeTable;
  readonly tenancy: TenancyPolicy | undefined;
  readonly refs: ReadonlyArray<ObjectRef>;
  readonly kinds: ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }>;
};

/** What a read from the caches was made with: their revision, the identities read, the options. */
type ReadWith = {
  readonly revision: number | undefined;
  readonly derived: Derived;
  readonly optimistic: boolean;
};

/** The live read last answered from the caches: the objects, the answer that held them, and what it was read with. */
type LastRead = ReadWith & {
  readonly objects: ReadonlyArray<Resource>;
  readonly answer: E.Either<ClusterError, ReadonlyArray<Resource>>;
};

const READ_STATES = memoTable<Application, ReadState>('live reader state per Application object');

const readStateOf = (application: Application, memo: Memo | undefined): ReadState =>
  remember(memo, READ_STATES, application, () => {
    const owner = ownerOfApplication(application);
    return { owner, mark: ownerMark(owner), derived: undefined, last: undefined };
  });

/** What `state` derived for `scopes` and `tenancy` (the same objects as last time), else derived again. */
const derivedFor = (
  state: ReadState,
  application: Application,
  scopes: ScopeTable,
  tenancy: TenancyPolicy | undefined,
  memo: Memo | undefined,
): Derived => {
  const known = state.derived;
  if (known !== undefined && known.scopes === scopes && known.tenancy === tenancy) return known;
  const refs = desiredResources(application)
    .filter((resource) => scopeOf(scopes, resource) !== undefined)
    .map((resource) => identityOf(resource, scopes, state.owner.namespace))
    .filter(readableFor(application, tenancy));
  const kinds = kindsOf(application, memo).filter((kind) => scopeOf(scopes, kind) !== undefined);
  state.derived = { scopes, tenancy, refs, kinds };
  return state.derived;
};

/**
 * The desired objects read, then the other objects carrying the owner mark, each once where first
 * read (one store per kind holds one object per identity: an object read twice is the same object).
 * `read` itself when that is all of them.
 */
const withOwned = (read: ReadonlyArray<Resource>, owned: ReadonlyArray<Resource>): ReadonlyArray<Resource> => {
  if (read.length + owned.length > FEW) return [...new Set([...read, ...owned])];
  let all: Resource[] | undefined;
  for (let i = 0; i < read.length; i++) {
    const object = read[i]!;
    if (all === undefined && read.indexOf(object) < i) all = read.slice(0, i);
    else if (all !== undefined && !all.includes(object)) all.push(object);
  }
  for (const object of owned) {
    if ((all ?? read).includes(object)) continue;
    all ??= [...read];
    all.push(object);
  }
  return all ?? read;
};

/** Up to this many objects, searching a list is cheaper than building a set. */
const FEW = 16;

/**
 * The answer of the last read when it held the very same objects in the same order (nothing changed
 * since, as at every resync of an in-sync Application), else `objects` kept as the last answer. The
 * same list keeps what the planner derived from it per list (its identity index, kstatus reasons) in
 * the controller's memo, instead of deriving it again at every reconcile.
 */
const sameAsLastRead = (
  state: ReadState,
  objects: ReadonlyArray<Resource>,
  readWith: ReadWith,
): E.Either<ClusterError, ReadonlyArray<Resource>> => {
  const last = state.last;
  const answer = last !== undefined && sameObjects(last.objects, objects) ? last.answer : E.right(objects);
  state.last = { ...readWith, objects: last?.answer === answer ? last.objects : objects, answer };
  return answer;
};

const sameObjects = (left: ReadonlyArray<Resource>, right: ReadonlyArray<Resource>): boolean => {
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i++) if (left[i] !== right[i]) return false;
  return true;
};

/**
 * The desired objects as the synced caches answer them, or `undefined` when one must be read from
 * the API server (its kind's cache is not synced, or a miss must be confirmed without `optimisticCreates`).
 */
const fromCachesOnly = (
  desired: ReadonlyArray<ObjectRef>,
  cache: LiveCache,
  optimisticCreates: boolean,
): ReadonlyArray<Resource> | undefined => {
  const found: Resource[] = [];
  for (const ref of desired) {
    const kindCache = cache.kind(ref);
    if (kindCache === undefined) return undefined;
    const cached = kindCache.get(ref.namespace, ref.name);
    if (cached !== undefined) found.push(cached);
    else if (!optimisticCreates) return undefined;
  }
  return found;
};

/** Each object once (the last read of an identity wins), in the order first read. */
const distinctObjects = (reads: ReadonlyArray<ReadonlyArray<Resource>>): ReadonlyArray<Resource> => {
  const found = new Map<string, Resource>();
  for (const read of reads)
    for (const object of read)
      found.set(
        `${object.apiVersion}|${object.kind}|${object.metadata.namespace ?? ''}|${object.metadata.name}`,
        object,
      );
  return [...found.values()];
};

const desiredResources = (application: Application): ReadonlyArray<Resource> =>
  (application.spec.manifest ?? []).filter(
    (entry): entry is Resource =>
      isJsonObject(entry) &&
      typeof entry.apiVersion === 'string' &&
      typeof entry.kind === 'string' &&
      isJsonObject(entry.metadata) &&
      typeof entry.metadata.name === 'string',
  );
