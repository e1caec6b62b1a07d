/**
 * The hook Secret: one per namespace of the desired resources, owned by the Application, holding
 * each enabled hook's token and callback URL for the workloads' env entries to reference.
 */
import { getOwn, isJsonObject, objectFromEntries, withKey, type JsonObject } from '../json/json.js';
import type { Hook } from '../model/application.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import type { HookOwner } from './types.js';

/** Secret names are DNS subdomains of at most 253 characters. */
const MAX_NAME = 253;

/**
 * The name of an Application's hook Secret in every namespace. It names the Application's
 * namespace too, so two Applications of the same name (in different namespaces) that deploy into
 * one namespace do not fight over one Secret. Too long a name is shortened with a hash.
 */
export const hookSecretName = (owner: HookOwner): string => {
  const name = `${owner.name}.${owner.namespace}.kreconcile-hooks`;
  return name.length <= MAX_NAME
    ? name
    : `${owner.name.slice(0, 200)}.${fnv1a(`${owner.namespace}/${owner.name}`)}.kreconcile-hooks`;
};

/** 32-bit FNV-1a, hex: a short stable digest for names (not for security). */
const fnv1a = (text: string): string => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
};

/** The Secret keys of a hook: `complete-token`, `complete-url`, … */
export const hookSecretKeys = (hook: Hook): { readonly token: string; readonly url: string } => ({
  token: `${hook}-token`,
  url: `${hook}-url`,
});

/** The env variable names of a hook: `KRECONCILE_COMPLETE_TOKEN`, `KRECONCILE_COMPLETE_URL`, … */
export const hookEnvNames = (hook: Hook): { readonly token: string; readonly url: string } => {
  const upper = hook.toUpperCase();
  return { token: `KRECONCILE_${upper}_TOKEN`, url: `KRECONCILE_${upper}_URL` };
};

/** The path a workload calls back for a hook, below the operator's base URL. */
export const callbackPath = (owner: HookOwner, hook: Hook): string =>
  `/v1/namespaces/${encodeURIComponent(owner.namespace)}/applications/${encodeURIComponent(owner.name)}/${hook}`;

/** The full callback URL of a hook (base URL without trailing slash, then the callback path). */
export const callbackUrlOf = (base: string, owner: HookOwner, hook: Hook): string =>
  `${base.replace(/\/+$/, '')}${callbackPath(owner, hook)}`;

/** References of the hook Secrets for the given namespaces. */
export const hookSecretRefs = (namespaces: ReadonlyArray<string>, owner: HookOwner): ReadonlyArray<ObjectRef> =>
  namespaces.map((namespace) => ({ apiVersion: 'v1', kind: 'Secret', namespace, name: hookSecretName(owner) }));

/** The namespaces of desired namespaced resources, in order of first appearance. */
export const desiredNamespaces = (desired: ReadonlyArray<Resource>): ReadonlyArray<string> => [
  ...new Set(
    desired.flatMap((resource) =>
      typeof resource.metadata.namespace === 'string' ? [resource.metadata.namespace] : [],
    ),
  ),
];

/** Whether `object` is (by identity) one of this owner's hook Secrets. */
export const isHookSecret = (object: JsonObject, owner: HookOwner): boolean => {
  const metadata = getOwn(object, 'metadata');
  return (
    getOwn(object, 'apiVersion') === 'v1' &&
    getOwn(object, 'kind') === 'Secret' &&
    isJsonObject(metadata) &&
    getOwn(metadata, 'name') === hookSecretName(owner)
  );
};

/** An empty hook Secret for a namespace (data keys are added hook by hook). */
export const emptyHookSecret = (namespace: string, owner: HookOwner): Resource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: hookSecretName(owner), namespace },
  type: 'Opaque',
  data: {},
});

/** The schema shared by an owner's hook Secrets (schemas carry no namespace value). */
export const hookSecretSchema = (owner: HookOwner): ObserverSchema => {
  const schema: JsonObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: hookSecretName(owner), namespace: null },
  };
  // A schema is a resource's shape with `null` leaves (the ObserverSchema type does not say so): `namespace: null`
  // observes it.
  return schema as ObserverSchema;
};

/**
 * `resources` (desired or observed entries) without the tokens of this owner's hook Secrets.
 * A token is a credential: status is readable by anyone who may read the Application (docs/behaviour.md
 * §6 **fix**). Nothing is lost: the runtime reads tokens back from the live Secrets.
 */
export const withoutHookTokens = <T extends JsonObject>(
  resources: ReadonlyArray<T>,
  owner: HookOwner,
): ReadonlyArray<T> =>
  resources.some((resource) => isHookSecret(resource, owner))
    ? resources.map((resource) => withoutHookToken(resource, owner))
    : resources;

/** One resource of `withoutHookTokens`: itself unless it is one of this owner's hook Secrets. */
export const withoutHookToken = <T extends JsonObject>(resource: T, owner: HookOwner): T =>
  isHookSecret(resource, owner) ? redacted(resource) : resource;

/** Whether a Secret data key holds a hook token. */
export const isTokenKey = (key: string): boolean => key.endsWith('-token');

const redacted = <T extends JsonObject>(secret: T): T => {
  const data = getOwn(secret, 'data');
  if (!isJsonObject(data)) return secret;
  const kept = objectFromEntries(Object.entries(data).filter(([key]) => !isTokenKey(key)));
  // A Secret's `data` is a map of strings: fewer of its keys still fit whatever `T` says of `data`.
  return withKey<JsonObject, 'data'>(secret, 'data', kept) as T;
};
