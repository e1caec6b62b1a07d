/**
 * Reads, read-only, the live objects an Application owns or would touch (what `kreconcile
 * snapshot` records and `plan --kubeconfig` plans against): the Application itself, every
 * desired identity, every object of the kinds involved carrying our owner mark, and the
 * CustomResourceDefinitions of custom kinds (so an offline plan knows their scope).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  APPLICATION_API_VERSION, APPLICATION_KIND, getIn, groupOf, isJsonArray, isJsonObject, isOwnedBy, MANAGED_BY_LABEL, MANAGED_BY_VALUE,
  refKey, refOf, scopeOf, showClusterError, withCrdScopes,
  type Application, type ClusterError, type ClusterReader, type JsonObject, type ObjectRef, type Resource, type ScopeTable,
} from '../../../core/index.js';
import { clusterFailure, type CliError } from '../cli-error.js';
import { desiredRefs } from '../planning/live-objects.js';
import { scopesFor } from '../planning/scopes.js';

type Kind = { readonly apiVersion: string; readonly kind: string };

const CRD: Kind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

const HINTS: Partial<Record<ClusterError['_tag'], string>> = {
  Forbidden: ': the snapshot needs get and list on these objects (read-only); use an account that has them',
  Unauthorized: ': check the credentials in the kubeconfig',
  Unavailable: ': check the server address and that the cluster is reachable',
  Timeout: ': the API server did not answer in time; retry',
};

const failure = (error: ClusterError): CliError => clusterFailure(`${showClusterError(error)}${HINTS[error._tag] ?? ''}`);

// A kind the server does not serve has no objects: nothing to record (the plan then reports it).
const absentKind = (error: ClusterError): boolean => error._tag === 'UnknownKind' || error._tag === 'NotFound';

class Failed extends Error {
  constructor(readonly error: CliError) { super(error.message); }
}

const getObject = async (reader: ClusterReader, ref: ObjectRef): Promise<ReadonlyArray<Resource>> => {
  const result = await reader.get(ref)();
  if (E.isLeft(result)) {
    if (absentKind(result.left)) return [];
    throw new Failed(failure(result.left));
  }
  return O.isSome(result.right) ? [result.right.value] : [];
};

const listObjects = async (reader: ClusterReader, kind: Kind, labelSelector?: string): Promise<ReadonlyArray<Resource>> => {
  const result = await reader.list({ ...kind, ...(labelSelector === undefined ? {} : { labelSelector }) })();
  if (E.isLeft(result)) {
    if (absentKind(result.left)) return [];
    throw new Failed(failure(result.left));
  }
  return result.right.items;
};

const kindKey = (kind: Kind): string => `${kind.apiVersion}|${kind.kind}`;

const distinctKinds = (objects: ReadonlyArray<JsonObject>): ReadonlyArray<Kind> => {
  const kinds = new Map<string, Kind>();
  for (const object of objects) {
    const apiVersion = object.apiVersion;
    const kind = object.kind;
    if (typeof apiVersion === 'string' && typeof kind === 'string') kinds.set(kindKey({ apiVersion, kind }), { apiVersion, kind });
  }
  return [...kinds.values()];
};

/** CRDs of the custom kinds whose scope is unknown so far (listed once, only when needed). */
const crdsFor = async (reader: ClusterReader, kinds: ReadonlyArray<Kind>, scopes: ScopeTable): Promise<ReadonlyArray<Resource>> => {
  const unknown = kinds.filter((kind) => scopeOf(scopes, kind) === undefined);
  if (unknown.length === 0) return [];
  const crds = await listObjects(reader, CRD);
  return crds.filter((crd) => unknown.some((kind) =>
    getIn(crd, ['spec', 'group']) === groupOf(kind.apiVersion) && getIn(crd, ['spec', 'names', 'kind']) === kind.kind));
};

// The live Application is read as plain JSON: a malformed status must not stop the recording.
const statusList = (object: Resource, key: string): ReadonlyArray<JsonObject> => {
  const list = getIn(object, ['status', key]);
  return isJsonArray(list) ? list.filter(isJsonObject) : [];
};

const applicationRef = (application: Application): ObjectRef => ({
  apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: application.metadata.namespace ?? 'default', name: application.metadata.name,
});

const ownedObjects = async (reader: ClusterReader, application: Application, kinds: ReadonlyArray<Kind>): Promise<ReadonlyArray<Resource>> => {
  const owner = { namespace: application.metadata.namespace ?? 'default', name: application.metadata.name };
  const lists = await Promise.all(kinds.map((kind) => listObjects(reader, kind, `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`)));
  return lists.flat().filter((object) => isOwnedBy(object, owner));
};

const collectFor = async (reader: ClusterReader, application: Application, scopes: ScopeTable): Promise<ReadonlyArray<Resource>> => {
  const recorded = await getObject(reader, applicationRef(application));
  // Kinds of the desired resources, and of those the operator handled before (removed from the spec since).
  const handled = recorded.flatMap((object) => [...statusList(object, 'lastObservedManifest'), ...statusList(object, 'lastAppliedManifest')]);
  const kinds = distinctKinds([...(application.spec.manifest ?? []), ...handled]);
  const desired = (await Promise.all(desiredRefs(application, scopes).map((ref) => getObject(reader, ref)))).flat();
  return [...recorded, ...desired, ...(await ownedObjects(reader, application, kinds))];
};

const dedupe = (objects: ReadonlyArray<Resource>): ReadonlyArray<Resource> => {
  const seen = new Set<string>();
  return objects.filter((object) => {
    const key = refKey(refOf(object));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * The live objects concerning `applications`, read with `get` and `list` only (never a write).
 * `crds` are the CustomResourceDefinitions given with `-f` (custom kinds they declare need no lookup).
 * Errors: any API failure other than an unknown kind (forbidden, unreachable, …), as one line.
 */
export const collectLive = async (
  reader: ClusterReader, applications: ReadonlyArray<Application>, crds: ReadonlyArray<Resource>,
): Promise<E.Either<CliError, ReadonlyArray<Resource>>> => {
  try {
    const manifests = applications.flatMap((application) => application.spec.manifest ?? []);
    const known = withCrdScopes(scopesFor(crds, []), manifests);
    const liveCrds = await crdsFor(reader, distinctKinds(manifests), known);
    const scopes = withCrdScopes(known, liveCrds);
    const objects = (await Promise.all(applications.map((application) => collectFor(reader, application, scopes)))).flat();
    return E.right(dedupe([...liveCrds, ...objects]));
  } catch (error) {
    if (error instanceof Failed) return E.left(error.error);
    throw error;
  }
};
