/** The kinds the memory API server serves right now: built-ins plus those registered (CRDs, tests). */
import * as E from 'fp-ts/lib/Either.js';
import { groupOf, versionOf } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { groupKindKey, servesVersion, type KindInfo } from './kind-info.js';

export type KindRegistry = {
  /** The kind served at `apiVersion`, or `UnknownKind` (404) as discovery would answer. */
  resolve(apiVersion: string, kind: string): E.Either<ClusterError, KindInfo>;
  /** The kind whatever the version (for storage lookups such as owner references). */
  byGroupKind(group: string, kind: string): KindInfo | undefined;
  register(info: KindInfo): void;
  unregister(group: string, kind: string): void;
  /** Every kind served now (for discovery documents). */
  all(): ReadonlyArray<KindInfo>;
};

export const unknownKind = (apiVersion: string, kind: string): ClusterError =>
  clusterError('UnknownKind', `no matches for kind "${kind}" in version "${apiVersion}"`, { code: 404 });

export const createKindRegistry = (initial: ReadonlyArray<KindInfo>): KindRegistry => {
  const kinds = new Map(initial.map((info) => [groupKindKey(info.group, info.kind), info] as const));
  return {
    resolve: (apiVersion, kind) => {
      const info = kinds.get(groupKindKey(groupOf(apiVersion), kind));
      return info !== undefined && servesVersion(info, versionOf(apiVersion))
        ? E.right(info)
        : E.left(unknownKind(apiVersion, kind));
    },
    byGroupKind: (group, kind) => kinds.get(groupKindKey(group, kind)),
    register: (info) => {
      kinds.set(groupKindKey(info.group, info.kind), info);
    },
    unregister: (group, kind) => {
      kinds.delete(groupKindKey(group, kind));
    },
    all: () => [...kinds.values()],
  };
};
