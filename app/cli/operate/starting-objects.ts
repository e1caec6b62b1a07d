/**
 * Objects an embedded cluster starts from (`serve -f` of plain manifests, `serve --snapshot` of a
 * `kreconcile snapshot` or `kubectl get -o yaml` recording), loaded as a restore tool would load
 * them: Namespaces first; the server's own fields dropped (uid, resourceVersion, times, managed
 * fields), so the memory server assigns its own; owner references re-pointed at the new uids of
 * owners loaded with them, and dropped where the owner is not among the objects (else the garbage
 * collector would delete the dependant at once); a recorded `status` written back through the
 * status subresource. Every object that cannot be loaded is reported, one line each.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { MemoryCluster } from '../../../adapters/memory/index.js';
import {
  isJsonArray,
  isJsonObject,
  refOf,
  showClusterError,
  showRef,
  type JsonObject,
  type Resource,
} from '../../../core/internal.js';
import { defined } from '../../../core/json/defined.js';

const SERVER_FIELDS = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
];

const namespaceFirst = (a: Resource, b: Resource): number =>
  Number(b.kind === 'Namespace' && b.apiVersion === 'v1') - Number(a.kind === 'Namespace' && a.apiVersion === 'v1');

/** The object as a client would create it: no server fields, no owner references, no status. */
const creatable = (object: Resource, namespace: string | undefined): Resource => {
  const metadata = Object.fromEntries(
    Object.entries(object.metadata).filter(([key]) => !SERVER_FIELDS.includes(key) && key !== 'ownerReferences'),
  );
  const { status: _status, ...rest } = object;
  return {
    ...rest,
    metadata: { ...metadata, name: object.metadata.name, ...defined({ namespace }) },
  };
};

type Loaded = { readonly object: Resource; readonly created: Resource };

const loadOne = async (
  cluster: MemoryCluster,
  object: Resource,
  defaultNamespace: string,
): Promise<E.Either<string, Loaded>> => {
  const scope = await cluster.scopeOf(object.apiVersion, object.kind)();
  if (E.isLeft(scope)) {
    const hint = scope.left._tag === 'UnknownKind' ? ': load its CustomResourceDefinition with -f too' : '';
    return E.left(`cannot load ${showRef(refOf(object))}: ${showClusterError(scope.left)}${hint}`);
  }
  const namespace = scope.right === 'Namespaced' ? (object.metadata.namespace ?? defaultNamespace) : undefined;
  if (namespace !== undefined)
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })();
  const created = await cluster.create(creatable(object, namespace))();
  if (E.isLeft(created)) return E.left(`cannot load ${showRef(refOf(object))}: ${showClusterError(created.left)}`);
  if (!isJsonObject(object.status)) return E.right({ object, created: created.right });
  const status = await cluster.patchStatus(refOf(created.right), { type: 'merge', body: { status: object.status } })();
  if (E.isLeft(status))
    return E.left(`cannot load the status of ${showRef(refOf(object))}: ${showClusterError(status.left)}`);
  return E.right({ object, created: status.right });
};

/** The recorded owner references, re-pointed at the owners' new uids; those whose owner was not loaded are left out. */
const ownersOf = (object: Resource, uids: ReadonlyMap<string, string>): ReadonlyArray<JsonObject> => {
  const recorded = object.metadata.ownerReferences;
  if (!isJsonArray(recorded)) return [];
  return recorded.flatMap((reference) => {
    const uid = isJsonObject(reference) && typeof reference.uid === 'string' ? uids.get(reference.uid) : undefined;
    return uid === undefined || !isJsonObject(reference) ? [] : [{ ...reference, uid }];
  });
};

const linkOwners = async (cluster: MemoryCluster, loaded: ReadonlyArray<Loaded>): Promise<ReadonlyArray<string>> => {
  const uids = new Map(
    loaded.flatMap(({ object, created }) =>
      typeof object.metadata.uid === 'string' && typeof created.metadata.uid === 'string'
        ? [[object.metadata.uid, created.metadata.uid] as const]
        : [],
    ),
  );
  const errors: string[] = [];
  for (const { object, created } of loaded) {
    const owners = ownersOf(object, uids);
    if (owners.length === 0) continue;
    const linked = await cluster.patch(refOf(created), {
      type: 'merge',
      body: { metadata: { ownerReferences: owners } },
    })();
    if (E.isLeft(linked))
      errors.push(`cannot restore the owners of ${showRef(refOf(object))}: ${showClusterError(linked.left)}`);
  }
  return errors;
};

/** Loads `objects` into `cluster`; the errors of every object that could not be loaded. */
export const loadStartingObjects = async (
  cluster: MemoryCluster,
  objects: ReadonlyArray<Resource>,
  defaultNamespace: string,
): Promise<ReadonlyArray<string>> => {
  const errors: string[] = [];
  const loaded: Loaded[] = [];
  for (const object of [...objects].sort(namespaceFirst)) {
    const one = await loadOne(cluster, object, defaultNamespace);
    if (E.isLeft(one)) errors.push(one.left);
    else loaded.push(one.right);
  }
  return [...errors, ...(await linkOwners(cluster, loaded))];
};
