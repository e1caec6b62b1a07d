/**
 * Discovery documents (`/api`, `/apis`, `/apis/{group}`, `/api/v1`, `/apis/{group}/{version}`,
 * `/version`) built from the kinds the memory cluster serves, so clients that discover kinds
 * (client-node's KubernetesObjectApi, kubectl, kreconcile's Kubernetes adapter) find CRDs too.
 * Built-in kinds carry the names kube-apiserver 1.36 gives them (short names, categories: `kubectl
 * get deploy`, `kubectl get all`), recorded from a real server (adapters/schemas/served-resources.ts).
 */
import type { JsonObject } from '../../../core/json/json.js';
import type { ServedKind } from '../memory-cluster.js';
import { servedResource } from '../../schemas/served-resources.js';
import { isScalable } from './api-routes.js';

const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** Versions to advertise: kinds served at any version are listed under `v1`. */
const versionsOf = (kind: ServedKind): ReadonlyArray<string> => (kind.versions === 'any' ? ['v1'] : [...kind.versions]);

const servesAt = (kind: ServedKind, version: string): boolean => kind.versions === 'any' || kind.versions.has(version);

const groupVersion = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

/**
 * Stable order: `v1` before `v1beta1` before `v2alpha1` would need Kubernetes' version priority; newest GA first is
 * enough here.
 */
const groupVersions = (kinds: ReadonlyArray<ServedKind>, group: string): ReadonlyArray<string> =>
  [...new Set(kinds.filter((k) => k.group === group).flatMap(versionsOf))].sort(byPriority);

const byPriority = (a: string, b: string): number => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
const rank = (version: string): number => {
  const match = /^v(\d+)(alpha|beta)?(\d*)$/.exec(version);
  if (match === null) return 1_000_000;
  const stability = match[2] === undefined ? 0 : match[2] === 'beta' ? 1 : 2;
  return stability * 10_000 - Number(match[1]) * 100 - Number(match[3] || 0);
};

export const versionDocument = (): JsonObject => ({
  major: '1',
  minor: '36',
  gitVersion: 'v1.36.0+kreconcile-memory',
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '1970-01-01T00:00:00Z',
  goVersion: 'n/a',
  compiler: 'n/a',
  platform: 'kreconcile/memory',
});

export const coreVersionsDocument = (serverAddress: string): JsonObject => ({
  kind: 'APIVersions',
  versions: ['v1'],
  serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
});

const groupDocument = (kinds: ReadonlyArray<ServedKind>, group: string): JsonObject | undefined => {
  const versions = groupVersions(kinds, group);
  const [preferred] = versions;
  if (preferred === undefined) return undefined;
  const entry = (version: string): JsonObject => ({ groupVersion: groupVersion(group, version), version });
  return { name: group, versions: versions.map(entry), preferredVersion: entry(preferred) };
};

export const groupListDocument = (kinds: ReadonlyArray<ServedKind>): JsonObject => {
  const groups = [...new Set(kinds.map((k) => k.group).filter((g) => g !== ''))].sort();
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.flatMap((g) => groupDocument(kinds, g) ?? []) };
};

export const apiGroupDocument = (kinds: ReadonlyArray<ServedKind>, group: string): JsonObject | undefined => {
  const document = group === '' ? undefined : groupDocument(kinds, group);
  return document === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...document };
};

/** `APIResourceList` of one group/version, or undefined when nothing is served there (404). */
export const resourceListDocument = (
  kinds: ReadonlyArray<ServedKind>,
  group: string,
  version: string,
): JsonObject | undefined => {
  const served = kinds
    .filter((k) => k.group === group && servesAt(k, version))
    .sort((a, b) => (a.plural < b.plural ? -1 : 1));
  if (served.length === 0) return undefined;
  const resources = served.flatMap((kind) => {
    const real = kind.custom ? undefined : servedResource(group, version, kind.plural);
    const main = {
      name: kind.plural,
      singularName: real?.singularName ?? kind.kind.toLowerCase(),
      namespaced: kind.scope === 'Namespaced',
      kind: kind.kind,
      verbs,
      ...(real?.shortNames === undefined ? {} : { shortNames: [...real.shortNames] }),
      ...(real?.categories === undefined ? {} : { categories: [...real.categories] }),
    };
    const status = {
      name: `${kind.plural}/status`,
      singularName: '',
      namespaced: kind.scope === 'Namespaced',
      kind: kind.kind,
      verbs: ['get', 'patch', 'update'],
    };
    const scale = {
      name: `${kind.plural}/scale`,
      singularName: '',
      namespaced: kind.scope === 'Namespaced',
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    };
    return [main, ...(kind.statusSubresource ? [status] : []), ...(isScalable(kind) ? [scale] : [])];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
};
