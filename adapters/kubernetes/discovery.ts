/**
 * API discovery: apiVersion + kind → plural and scope, cached per group/version and refetched
 * on a miss, so kinds of CRDs installed after start are found without a restart.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { getIn, isJsonArray, isJsonObject, type JsonValue } from '../../core/json/json.js';
import { groupOf, versionOf } from '../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';
import { groupVersionPath, type ResourceInfo } from './resource-paths.js';
import type { RestClient } from './rest-client.js';

/** KindResolver knows which REST resource serves a kind. */
export type KindResolver = {
  /** `UnknownKind` when the group/version is not served or does not contain the kind. */
  resolve(apiVersion: string, kind: string): TE.TaskEither<ClusterError, ResourceInfo>;
  /** Forgets a group/version (e.g. after its collection answered 404). */
  invalidate(apiVersion: string): void;
};

type KindTable = ReadonlyMap<string, ResourceInfo>;

/** Top-level resources of an `APIResourceList` (subresources such as `deployments/status` skipped). */
export const kindTable = (apiVersion: string, resourceList: JsonValue): KindTable => {
  const resources = getIn(resourceList, ['resources']);
  const entries = (isJsonArray(resources) ? resources : []).flatMap((entry) => {
    if (
      !isJsonObject(entry) ||
      typeof entry.kind !== 'string' ||
      typeof entry.name !== 'string' ||
      entry.name.includes('/')
    )
      return [];
    const info: ResourceInfo = {
      group: groupOf(apiVersion),
      version: versionOf(apiVersion),
      kind: entry.kind,
      plural: entry.name,
      namespaced: entry.namespaced === true,
    };
    return [[entry.kind, info] as const];
  });
  return new Map(entries);
};

const unknownKind = (apiVersion: string, kind: string): ClusterError =>
  clusterError('UnknownKind', `the server does not serve kind ${kind} in ${apiVersion}`);

export const createKindResolver = (rest: RestClient): KindResolver => {
  const cache = new Map<string, KindTable>();
  // One in-flight fetch per group/version: a burst of misses costs one request.
  const inFlight = new Map<string, Promise<E.Either<ClusterError, KindTable>>>();

  const fetchTable = (apiVersion: string): Promise<E.Either<ClusterError, KindTable>> => {
    const pending = inFlight.get(apiVersion);
    if (pending) return pending;
    const request = rest
      .send({ method: 'GET', path: groupVersionPath(apiVersion) })()
      .then((result) => {
        inFlight.delete(apiVersion);
        if (E.isLeft(result)) {
          // A group/version that is not served is an unknown kind, not a missing object.
          return result.left._tag === 'NotFound' ? E.right(new Map() as KindTable) : result;
        }
        const table = kindTable(apiVersion, result.right);
        cache.set(apiVersion, table);
        return E.right(table);
      });
    inFlight.set(apiVersion, request);
    return request;
  };

  return {
    resolve: (apiVersion, kind) => async () => {
      const cached = cache.get(apiVersion)?.get(kind);
      if (cached) return E.right(cached);
      const table = await fetchTable(apiVersion);
      return E.flatMap(table, (kinds) => E.fromNullable(unknownKind(apiVersion, kind))(kinds.get(kind)));
    },
    invalidate: (apiVersion) => {
      cache.delete(apiVersion);
    },
  };
};

// A missing object is a Status naming it (`gadgets.chaos.io "g" not found`, `namespaces "ns" not found`);
// a path the server does not serve (a deleted CRD's collection) is kube-apiserver's bare
// `404 page not found` (http.NotFound), a watch's `Not Found`: nothing named.
const NAMES_AN_OBJECT = /"[^"]*" not found$/;

/** Whether a 404 says the resource path is not served (rather than that one object is missing). */
export const isUnservedPath = (error: ClusterError): boolean =>
  error._tag === 'NotFound' && !NAMES_AN_OBJECT.test(error.message);

/**
 * A 404 that names no object on a kind discovery knew: discovery for its group/version is
 * forgotten and asked again; the error becomes `UnknownKind` when the kind is really gone (its
 * CRD was deleted), so callers forget its scope and say UnknownKind instead of retrying blind.
 */
export const recheckKind = async (
  kinds: KindResolver,
  type: { readonly apiVersion: string; readonly kind: string },
  error: ClusterError,
): Promise<ClusterError> => {
  if (!isUnservedPath(error)) return error;
  kinds.invalidate(type.apiVersion);
  const again = await kinds.resolve(type.apiVersion, type.kind)();
  return E.isLeft(again) && again.left._tag === 'UnknownKind'
    ? { ...again.left, ...(error.ref ? { ref: error.ref } : {}) }
    : error;
};
