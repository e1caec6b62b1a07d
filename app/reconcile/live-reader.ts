/** Reading the live objects a plan needs: desired identities and everything carrying our owner mark. */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  MANAGED_BY_LABEL, MANAGED_BY_VALUE, getIn, identityOf, isJsonArray, isJsonObject, isOwnedBy, scopeKey, scopeOf, targetViolation, tenancyFor,
  type Application, type ClusterError, type ClusterReader, type Discovery, type JsonObject, type ObjectRef, type Owner, type Resource, type ScopeTable, type TenancyPolicy,
} from '../../core/index.js';

/** The kinds an Application touches: those in its manifest and those it observed before. */
export const kindsOf = (application: Application): ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }> => {
  const entries: ReadonlyArray<unknown> = [
    ...(isJsonArray(application.spec?.manifest as never) ? (application.spec.manifest ?? []) : []),
    ...(application.status?.lastObservedManifest ?? []),
  ];
  const seen = new Map<string, { apiVersion: string; kind: string }>();
  for (const entry of entries) {
    if (!isJsonObject(entry as never)) continue;
    const { apiVersion, kind } = entry as JsonObject;
    if (typeof apiVersion === 'string' && typeof kind === 'string') seen.set(`${apiVersion}|${kind}`, { apiVersion, kind });
  }
  return [...seen.values()];
};

export const ownerOfApplication = (application: Application): Owner => ({
  namespace: application.metadata.namespace ?? 'default',
  name: application.metadata.name,
  ...(application.metadata.uid === undefined ? {} : { uid: application.metadata.uid }),
});

/** Completes a scope table with discovery for kinds it does not know (unknown kinds stay unknown). */
export const resolveScopes = async (application: Application, scopes: ScopeTable, discovery: Discovery): Promise<ScopeTable> => {
  const missing = kindsOf(application).filter((kind) => scopeOf(scopes, kind) === undefined);
  if (missing.length === 0) return scopes;
  const found = await Promise.all(missing.map(async (kind) => [kind, await discovery.scopeOf(kind.apiVersion, kind.kind)()] as const));
  const learned = found.flatMap(([kind, result]) => (E.isRight(result) ? [[scopeKey(kind.apiVersion, kind.kind), result.right] as const] : []));
  return learned.length === 0 ? scopes : new Map([...scopes, ...learned]);
};

/** How live objects are listed: cluster-wide (default), or only in the namespaces the Application touches. */
export type LiveReadOptions = {
  /**
   * List namespaced kinds per namespace the Application touches (its own, those its manifest and
   * status name) instead of cluster-wide: what an identity with namespace-scoped rights (an
   * impersonated ServiceAccount) is allowed to do.
   */
  readonly perNamespace?: boolean;
  /** The admin's tenancy policy: what it forbids is never read (the plan does not depend on it). */
  readonly tenancy?: TenancyPolicy;
};

/** The namespaces an Application touches: its own, and those its manifest and recorded status name. */
export const namespacesOf = (application: Application, scopes: ScopeTable): ReadonlyArray<string> => {
  const own = ownerOfApplication(application).namespace;
  const named = [...desiredResources(application).flatMap((resource) => {
    if (scopeOf(scopes, resource) !== 'Namespaced') return [];
    return [identityOf(resource, scopes, own).namespace ?? own];
  }), ...(application.status?.lastObservedManifest ?? []).flatMap((entry) => {
    const namespace = getIn(entry, ['metadata', 'namespace']);
    return typeof namespace === 'string' ? [namespace] : [];
  })];
  return [...new Set([own, ...named])];
};

/**
 * Whether a desired identity is worth reading: one the tenancy policy forbids is never written, its
 * plan does not depend on it, and the operator may lack the right to read it (least privilege).
 */
export const readableFor = (application: Application, tenancy: TenancyPolicy | undefined): ((ref: ObjectRef) => boolean) => {
  const rules = tenancyFor(tenancy, ownerOfApplication(application).namespace);
  return (ref) => targetViolation(rules, ref) === undefined;
};

/**
 * Live objects for planning, read directly through the ports: each desired identity the tenancy
 * policy allows, plus every object of the touched kinds labelled as ours and annotated with this
 * Application as owner. Kinds the server does not serve (yet) are skipped: the plan reports them as UnknownKind.
 */
export const readLive = async (application: Application, scopes: ScopeTable, reader: ClusterReader, options: LiveReadOptions = {}): Promise<E.Either<ClusterError, ReadonlyArray<Resource>>> => {
  const owner = ownerOfApplication(application);
  const readable = readableFor(application, options.tenancy);
  const found = new Map<string, Resource>();
  const keyOf = (object: Resource): string => `${object.apiVersion}|${object.kind}|${object.metadata.namespace ?? ''}|${object.metadata.name}`;
  const namespaces = options.perNamespace === true ? namespacesOf(application, scopes) : [undefined];
  for (const kind of kindsOf(application)) {
    const scope = scopeOf(scopes, kind);
    if (scope === undefined) continue;
    for (const namespace of scope === 'Namespaced' ? namespaces : [undefined]) {
      // Listing per namespace is for identities with namespace-bound rights: never where the policy forbids writing.
      if (options.perNamespace === true && !readable({ ...kind, name: '', ...(namespace === undefined ? {} : { namespace }) })) continue;
      const listed = await reader.list({ ...kind, ...(namespace === undefined ? {} : { namespace }), labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}` })();
      if (E.isLeft(listed)) { if (listed.left._tag === 'UnknownKind' || listed.left._tag === 'NotFound') continue; return listed; }
      for (const object of listed.right.items) if (isOwnedBy(object, owner)) found.set(keyOf(object), object);
    }
  }
  for (const resource of desiredResources(application)) {
    if (scopeOf(scopes, resource) === undefined) continue;
    const ref: ObjectRef = identityOf(resource, scopes, owner.namespace);
    if (!readable(ref)) continue;
    const got = await reader.get(ref)();
    if (E.isLeft(got)) { if (got.left._tag === 'UnknownKind' || got.left._tag === 'NotFound') continue; return got; }
    if (O.isSome(got.right)) found.set(keyOf(got.right.value), got.right.value);
  }
  return E.right([...found.values()]);
};

const desiredResources = (application: Application): ReadonlyArray<Resource> =>
  (isJsonArray(application.spec?.manifest as never) ? (application.spec.manifest ?? []) : [])
    .filter((entry): entry is Resource => isJsonObject(entry) && typeof entry.apiVersion === 'string' && typeof entry.kind === 'string' && isJsonObject(entry.metadata) && typeof entry.metadata.name === 'string');
