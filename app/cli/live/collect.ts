/**
 * Reads, read-only, the live objects an Application owns or would touch (what `kreconcile
 * snapshot` records and `plan --kubeconfig` plans against): the Application itself, every
 * desired identity the tenancy policy lets it write (in any namespace, cluster-scoped ones too:
 * an object there that is not ours is a conflict the plan must show), every object of the kinds
 * involved carrying our owner mark (the kinds of the manifest, of the recorded status and intent,
 * and of the inventory `kreconcile apply` keeps), and the CustomResourceDefinitions of custom kinds
 * (so an offline plan knows their scope).
 */
import type * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  getIn,
  getOwn,
  groupOf,
  isJsonArray,
  isJsonObject,
  ownerFor,
  scopeOf,
  uniqueResources,
  showClusterError,
  withCrdScopes,
  withTrustedCrdScopes,
  type Application,
  type ClusterError,
  type ClusterReader,
  type JsonObject,
  type ObjectRef,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../../core/internal.js';
import { clusterFailure, type CliError } from '../cli-error.js';
import { INTENT_KINDS_ANNOTATION } from '../../reconcile/intent-kinds.js';
import { inventoryEntries, inventoryOf, inventoryRef } from '../../reconcile/inventory.js';
import { readLive } from '../../reconcile/live-reader.js';
import { scopesFor } from '../input/scopes.js';
import { readStoredStatus } from '../../status/stored-status.js';
import { defined } from '../../../core/json/defined.js';

type Kind = { readonly apiVersion: string; readonly kind: string };
type Read<A> = TE.TaskEither<CliError, A>;

const CRD: Kind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

const HINTS: Partial<Record<ClusterError['_tag'], string>> = {
  Forbidden: ': the snapshot needs get and list on these objects (read-only); use an account that has them',
  Unauthorized: ': check the credentials in the kubeconfig',
  Unavailable: ': check the server address and that the cluster is reachable',
  Timeout: ': the API server did not answer in time; retry',
};

const failure = (error: ClusterError): CliError =>
  clusterFailure(`${showClusterError(error)}${HINTS[error._tag] ?? ''}`);

// A kind the server does not serve has no objects: nothing to record (the plan then reports it).
const orNothing =
  <A>(empty: A) =>
  (error: ClusterError): Read<A> =>
    error._tag === 'UnknownKind' || error._tag === 'NotFound' ? TE.right(empty) : TE.left(failure(error));

const getObject = (reader: ClusterReader, ref: ObjectRef): Read<ReadonlyArray<Resource>> =>
  pipe(
    reader.get(ref),
    TE.map(
      O.fold(
        (): ReadonlyArray<Resource> => [],
        (object) => [object],
      ),
    ),
    TE.orElse(orNothing<ReadonlyArray<Resource>>([])),
  );

const listObjects = (reader: ClusterReader, kind: Kind, labelSelector?: string): Read<ReadonlyArray<Resource>> =>
  pipe(
    reader.list({ ...kind, ...defined({ labelSelector }) }),
    TE.map((list) => list.items),
    TE.orElse(orNothing<ReadonlyArray<Resource>>([])),
  );

const flat = <A>(reads: ReadonlyArray<Read<ReadonlyArray<A>>>): Read<ReadonlyArray<A>> =>
  pipe(
    TE.sequenceArray(reads),
    TE.map((parts) => parts.flat()),
  );

const distinctKinds = (objects: ReadonlyArray<JsonObject>): ReadonlyArray<Kind> => {
  const kinds = new Map<string, Kind>();
  for (const object of objects) {
    const { apiVersion, kind } = object;
    if (typeof apiVersion === 'string' && typeof kind === 'string')
      kinds.set(`${apiVersion}|${kind}`, { apiVersion, kind });
  }
  return [...kinds.values()];
};

/** CRDs of the custom kinds whose scope is unknown so far (listed once, only when needed). */
const crdsFor = (
  reader: ClusterReader,
  kinds: ReadonlyArray<Kind>,
  scopes: ScopeTable,
): Read<ReadonlyArray<Resource>> => {
  const unknown = kinds.filter((kind) => scopeOf(scopes, kind) === undefined);
  if (unknown.length === 0) return TE.right([]);
  return pipe(
    listObjects(reader, CRD),
    TE.map((crds) =>
      crds.filter((crd) =>
        unknown.some(
          (kind) =>
            getIn(crd, ['spec', 'group']) === groupOf(kind.apiVersion) &&
            getIn(crd, ['spec', 'names', 'kind']) === kind.kind,
        ),
      ),
    ),
  );
};

// The live Application is read as plain JSON: a malformed status must not stop the recording.
const statusList = (object: Resource, key: string): ReadonlyArray<JsonObject> => {
  const status = getIn(object, ['status']);
  const list = isJsonObject(status) ? getOwn(readStoredStatus(status), key) : undefined;
  return isJsonArray(list) ? list.filter(isJsonObject) : [];
};

/**
 * The file's metadata with the live Application's `kreconcile.io/intent-kinds` (the kinds a process
 * recorded right before creating children of them, maybe without a status write after): the live
 * reader then reads those kinds too, as the operator's does (app/reconcile/intent-kinds.ts).
 */
const withRecordedIntent = (
  metadata: Application['metadata'],
  recorded: ReadonlyArray<Resource>,
): Application['metadata'] => {
  const intent = recorded
    .map((object) => getIn(object, ['metadata', 'annotations', INTENT_KINDS_ANNOTATION]))
    .find((value): value is string => typeof value === 'string');
  if (intent === undefined) return metadata;
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  return { ...metadata, annotations: { ...annotations, [INTENT_KINDS_ANNOTATION]: intent } };
};

const applicationRef = (application: Application): ObjectRef => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: application.metadata.namespace ?? 'default',
  name: application.metadata.name,
});

/**
 * The Application as recorded in the cluster and its inventory (what `kreconcile apply` wrote,
 * app/reconcile/inventory.ts): the kinds and namespaces the live reader must read besides the
 * manifest's, so objects of a kind since removed from the manifest are found and pruned.
 */
const recordsOf = (
  reader: ClusterReader,
  application: Application,
): Read<{ readonly recorded: ReadonlyArray<Resource>; readonly written: ReadonlyArray<JsonObject> }> =>
  pipe(
    TE.Do,
    TE.apS('recorded', getObject(reader, applicationRef(application))),
    TE.apS('inventory', getObject(reader, inventoryRef(ownerFor(application)))),
    TE.map(({ recorded, inventory }) => ({
      recorded,
      written: [
        // The kinds the operator handled before (removed from the spec since): the runtime's live reader reads them
        // too.
        ...recorded.flatMap((object) => [
          ...statusList(object, 'lastObservedManifest'),
          ...statusList(object, 'lastAppliedManifest'),
        ]),
        ...inventoryEntries(inventoryOf(inventory[0])),
      ],
    })),
  );

const collectFor = (
  reader: ClusterReader,
  application: Application,
  scopes: ScopeTable,
  tenancy: TenancyPolicy | undefined,
): Read<ReadonlyArray<Resource>> =>
  pipe(
    recordsOf(reader, application),
    TE.chain(({ recorded, written }) => {
      const view: Application = {
        ...application,
        metadata: withRecordedIntent(application.metadata, recorded),
        status: { lastObservedManifest: written },
      };
      return pipe(
        // Within the tenancy policy: what it forbids is never written, so the plan does not depend on it.
        () =>
          readLive(view, withCrdScopes(scopes, application.spec.manifest ?? []), reader, {
            ...defined({ tenancy }),
          }),
        TE.mapLeft(failure),
        TE.map((live) => [...recorded, ...live]),
      );
    }),
  );

/**
 * The live objects concerning `applications`, read with `get` and `list` only (never a write).
 * `crds` are the CustomResourceDefinitions given with `-f` (custom kinds they declare need no lookup).
 * Errors: any API failure other than an unknown kind (forbidden, unreachable, …), as one line.
 */
export const collectLive = (
  reader: ClusterReader,
  applications: ReadonlyArray<Application>,
  crds: ReadonlyArray<Resource>,
  tenancy?: TenancyPolicy,
): Promise<E.Either<CliError, ReadonlyArray<Resource>>> => {
  const manifests = applications.flatMap((application) => application.spec.manifest ?? []);
  const known = withCrdScopes(scopesFor(crds, []), manifests);
  return pipe(
    crdsFor(reader, distinctKinds(manifests), known),
    TE.chain((liveCrds) => {
      // The server's own CRDs: what it serves, over what a `-f` file claimed about a custom kind.
      const scopes = withTrustedCrdScopes(known, liveCrds);
      return pipe(
        flat(applications.map((application) => collectFor(reader, application, scopes, tenancy))),
        TE.map((objects) => uniqueResources([...liveCrds, ...objects])),
      );
    }),
  )();
};
