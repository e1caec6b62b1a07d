/** REST paths of kinds, collections, objects and subresources (core group under /api, others under /apis). */
import * as E from 'fp-ts/lib/Either.js';
import type { ObjectRef } from '../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';

/** What discovery says about one kind in one group/version. */
export type ResourceInfo = {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Lower-case plural used in paths (`deployments`). */
  readonly plural: string;
  readonly namespaced: boolean;
};

export const groupVersionPath = (apiVersion: string): string =>
  apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;

const segment = encodeURIComponent;

const prefixOf = (info: ResourceInfo): string =>
  groupVersionPath(info.group === '' ? info.version : `${info.group}/${info.version}`);

/** The collection: all namespaces when a namespaced kind is listed without a namespace. */
export const collectionPath = (info: ResourceInfo, namespace: string | undefined): string =>
  info.namespaced && namespace !== undefined
    ? `${prefixOf(info)}/namespaces/${segment(namespace)}/${info.plural}`
    : `${prefixOf(info)}/${info.plural}`;

/**
 * The path of one object (or its subresource). A namespaced kind needs a namespace; a
 * cluster-scoped kind ignores one (the server would reject a namespaced path for it).
 */
export const objectPath = (
  info: ResourceInfo,
  ref: ObjectRef,
  subresource?: 'status',
): E.Either<ClusterError, string> => {
  if (info.namespaced && (ref.namespace === undefined || ref.namespace === '')) {
    return E.left(clusterError('BadRequest', `${ref.kind} is namespaced: metadata.namespace is required`, { ref }));
  }
  const base = `${collectionPath(info, info.namespaced ? ref.namespace : undefined)}/${segment(ref.name)}`;
  return E.right(subresource === undefined ? base : `${base}/${subresource}`);
};
