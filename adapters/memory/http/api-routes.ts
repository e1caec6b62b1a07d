/**
 * Kubernetes REST paths → what they address: a discovery document, a collection, an object or
 * its status subresource (resolved against the kinds the memory cluster serves right now).
 */
import type { ServedKind } from '../memory-cluster.js';

export type KindAt = ServedKind & { readonly version: string; readonly apiVersion: string };

/** Built-in kinds with a scale subresource, by `group/Kind`. */
const SCALABLE: ReadonlySet<string> = new Set([
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/ReplicaSet',
  '/ReplicationController',
]);

export const isScalable = (kind: { readonly group: string; readonly kind: string }): boolean =>
  SCALABLE.has(`${kind.group}/${kind.kind}`);

export type ApiRoute =
  | { readonly type: 'version' }
  | { readonly type: 'health' }
  | { readonly type: 'coreVersions' }
  | { readonly type: 'groups' }
  | { readonly type: 'group'; readonly group: string }
  | { readonly type: 'resources'; readonly group: string; readonly version: string }
  | { readonly type: 'collection'; readonly kind: KindAt; readonly namespace?: string }
  | {
      readonly type: 'object';
      readonly kind: KindAt;
      readonly namespace?: string;
      readonly name: string;
      readonly subresource?: 'status';
    }
  /** `<workload>/scale` of a scalable built-in kind. */
  | { readonly type: 'scale'; readonly kind: KindAt; readonly namespace?: string; readonly name: string }
  /** A well-formed path whose resource (or subresource) the server does not serve: 404. */
  | { readonly type: 'unknown' };

const servesAt = (kind: ServedKind, version: string): boolean => kind.versions === 'any' || kind.versions.has(version);

const kindByPlural = (
  kinds: ReadonlyArray<ServedKind>,
  group: string,
  version: string,
  plural: string,
): KindAt | undefined => {
  const kind = kinds.find((k) => k.group === group && k.plural === plural && servesAt(k, version));
  return kind === undefined
    ? undefined
    : { ...kind, version, apiVersion: group === '' ? version : `${group}/${version}` };
};

/** `/namespaces/{ns}/{plural}/{name}/{sub}` or `/{plural}/{name}/{sub}` below a group/version. */
const resourceRoute = (
  kinds: ReadonlyArray<ServedKind>,
  group: string,
  version: string,
  rest: ReadonlyArray<string>,
): ApiRoute => {
  const namespaced =
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'));
  const [plural, name, subresource, ...extra] = namespaced ? rest.slice(2) : rest;
  const namespace = namespaced ? rest[1] : undefined;
  const kind = plural === undefined ? undefined : kindByPlural(kinds, group, version, plural);
  if (kind === undefined || extra.length > 0) return { type: 'unknown' };
  // A namespaced path for a cluster-scoped kind is not served (the real server answers 404 too).
  if (namespace !== undefined && kind.scope === 'Cluster') return { type: 'unknown' };
  const inNamespace = namespace === undefined ? {} : { namespace };
  if (name === undefined) return { type: 'collection', kind, ...inNamespace };
  // An object of a namespaced kind has no path outside its namespace.
  if (namespace === undefined && kind.scope === 'Namespaced') return { type: 'unknown' };
  if (subresource === undefined) return { type: 'object', kind, name, ...inNamespace };
  if (subresource === 'status' && kind.statusSubresource)
    return { type: 'object', kind, name, subresource, ...inNamespace };
  if (subresource === 'scale' && isScalable(kind)) return { type: 'scale', kind, name, ...inNamespace };
  return { type: 'unknown' };
};

/** The route of a request path (already split at `?`); segments are percent-decoded. */
export const routeOf = (path: string, kinds: ReadonlyArray<ServedKind>): ApiRoute => {
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeSegment(s));
  const parts = segments.filter((s) => s !== undefined);
  if (parts.length !== segments.length) return { type: 'unknown' };
  const [root, first, second, ...rest] = parts;
  if (parts.length === 1 && (root === 'healthz' || root === 'readyz' || root === 'livez')) return { type: 'health' };
  if (parts.length === 1 && root === 'version') return { type: 'version' };
  if (root === 'api') {
    if (first === undefined) return { type: 'coreVersions' };
    if (first !== 'v1') return { type: 'unknown' };
    if (second === undefined) return { type: 'resources', group: '', version: first };
    return resourceRoute(kinds, '', first, [second, ...rest]);
  }
  if (root === 'apis') {
    if (first === undefined) return { type: 'groups' };
    if (second === undefined) return { type: 'group', group: first };
    if (rest.length === 0) return { type: 'resources', group: first, version: second };
    return resourceRoute(kinds, first, second, rest);
  }
  return { type: 'unknown' };
};

const decodeSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};
