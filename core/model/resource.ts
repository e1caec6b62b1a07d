/** Kubernetes resources as plain JSON, their identity, and the codec that checks the shape we rely on. */
import * as t from 'io-ts';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';

export type ObjectMeta = JsonObject & {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: ReadonlyArray<string>;
  readonly deletionTimestamp?: string;
  readonly creationTimestamp?: string;
  readonly ownerReferences?: ReadonlyArray<OwnerReference>;
};

export type OwnerReference = JsonObject & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
};

/** A Kubernetes object: any JSON object with apiVersion, kind and metadata.name. */
export type Resource = JsonObject & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
};

const nonEmptyString = new t.Type<string, string, unknown>(
  'non-empty string',
  (u): u is string => typeof u === 'string' && u.length > 0,
  (u, c) => (typeof u === 'string' && u.length > 0 ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const jsonObject = new t.Type<JsonObject, JsonObject, unknown>(
  'object',
  (u): u is JsonObject => isJsonObject(u),
  (u, c) => (isJsonObject(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const ObjectMetaShape = t.intersection([
  jsonObject,
  t.type({ name: nonEmptyString }),
  t.partial({ namespace: nonEmptyString }),
]);

/** Codec for {@link Resource}: checks the identification fields, keeps every other field. */
export const Resource = new t.Type<Resource, Resource, unknown>(
  'Resource',
  (u): u is Resource => ResourceShape.is(u),
  (u, c) => ResourceShape.validate(u, c),
  t.identity,
);
const ResourceShape = t.intersection([
  jsonObject,
  t.type({ apiVersion: nonEmptyString, kind: nonEmptyString, metadata: ObjectMetaShape }),
]);

/** Identity of a resource: (apiVersion, kind, namespace, name); no namespace for cluster-scoped kinds. */
export type ObjectRef = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
};

/** API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
export const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
};

export const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.lastIndexOf('/') + 1);

/** Stable map key of a reference. */
export const refKey = (ref: ObjectRef): string => `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? ''}|${ref.name}`;

/** Human form of a reference, kubectl style: `apps/v1 Deployment web/frontend`. */
export const showRef = (ref: ObjectRef): string =>
  `${ref.apiVersion} ${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name}`;

export const refOf = (resource: Resource): ObjectRef => {
  // One literal per case (no spread): references are built for every resource of every plan.
  const {
    apiVersion,
    kind,
    metadata: { name, namespace },
  } = resource;
  return namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };
};

/**
 * `Resource.is` written out: the codec's generic guard allocates closures on every call, and this
 * runs for every resource a plan merges. The same checks, on own properties only.
 */
export const isResource = (value: JsonValue | undefined): value is Resource => {
  if (!isJsonObject(value)) return false;
  const metadata = getOwn(value, 'metadata');
  if (!isNonEmptyString(getOwn(value, 'apiVersion')) || !isNonEmptyString(getOwn(value, 'kind'))) return false;
  if (!isJsonObject(metadata) || !isNonEmptyString(getOwn(metadata, 'name'))) return false;
  const namespace = getOwn(metadata, 'namespace');
  return namespace === undefined || isNonEmptyString(namespace);
};

const isNonEmptyString = (value: JsonValue | undefined): value is string =>
  typeof value === 'string' && value.length > 0;

/** `refKey(refOf(resource))` without building the reference (hot path of planning). */
export const resourceKey = (resource: Resource): string =>
  `${resource.apiVersion}|${resource.kind}|${resource.metadata.namespace ?? ''}|${resource.metadata.name}`;

/** The resources with duplicate identities dropped (first one kept). */
export const uniqueResources = (resources: ReadonlyArray<Resource>): ReadonlyArray<Resource> => {
  const seen = new Set<string>();
  return resources.filter((resource) => {
    const key = resourceKey(resource);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};
