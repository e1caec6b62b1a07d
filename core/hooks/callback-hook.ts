/**
 * The `complete` and `shutdown` hooks (docs/behaviour.md §6): a hook Secret per namespace, env entries in every
 * workload.
 */
import { getOwn, isJsonObject, withKey, type JsonObject } from '../json/json.js';
import type { Hook } from '../model/application.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import { refKey, resourceKey, type Resource } from '../model/resource.js';
import { schemaKeyOf } from '../schema/lookup.js';
import { base64Of } from '../json/base64.js';
import { hookEnvEntries, injectEnv } from './env.js';
import { mergeSchemaNodes } from './schema-edit.js';
import {
  callbackUrlOf,
  desiredNamespaces,
  emptyHookSecret,
  hookSecretKeys,
  hookSecretName,
  hookSecretRefs,
  hookSecretSchema,
} from './secret.js';
import type { MangleContext, MangleHook, Mangled } from './types.js';

/**
 * The hook named `hook`: env entries `KRECONCILE_<HOOK>_TOKEN`/`_URL` in every container of every
 * workload, read from the hook Secret of their namespace, which gets this hook's token and URL.
 * Both are observed, so a Secret that lacks them (a hook enabled later, a key removed by hand) is
 * patched. The live Secret is the token's source of truth: the runtime reads it back before
 * planning, so the token in force is kept, not replaced. Tokens never reach status or
 * explanations: `redactPlan` takes them out of every plan.
 */
export const callbackHook =
  (hook: Hook): MangleHook =>
  (desired, mangledSchema, context) => {
    const withEnv = injectEnv({ desired, mangledSchema }, hookEnvEntries(hook, hookSecretName(context.owner)));
    return withHookSecrets(withEnv, hook, context);
  };

/** Adds this hook's keys to the hook Secret of every namespace of the desired resources (creating it). */
const withHookSecrets = (mangled: Mangled, hook: Hook, context: MangleContext): Mangled => {
  const namespaces = desiredNamespaces(mangled.desired);
  if (namespaces.length === 0) return mangled;
  const data = secretData(hook, context);
  const wanted = new Set(hookSecretRefs(namespaces, context.owner).map(refKey));
  const present = new Set(mangled.desired.map(resourceKey));
  const missing = namespaces.filter(
    (namespace) => !present.has(refKey(hookSecretRefs([namespace], context.owner)[0]!)),
  );
  const desired = [...mangled.desired, ...missing.map((namespace) => emptyHookSecret(namespace, context.owner))].map(
    (resource) => (wanted.has(resourceKey(resource)) ? withData(resource, data) : resource),
  );
  return { desired, mangledSchema: withSecretSchema(mangled.mangledSchema, hook, context) };
};

/** This hook's Secret data: the URL and the token, each only when the runtime supplied it. */
const secretData = (hook: Hook, context: MangleContext): JsonObject => {
  const keys = hookSecretKeys(hook);
  const token = context.tokens?.[hook];
  return {
    ...(context.callbackUrl === undefined
      ? {}
      : { [keys.url]: base64Of(callbackUrlOf(context.callbackUrl, context.owner, hook)) }),
    ...(token === undefined ? {} : { [keys.token]: base64Of(token) }),
  };
};

const withData = (secret: Resource, data: JsonObject): Resource => {
  const existing = getOwn(secret, 'data');
  return withKey(secret, 'data', { ...(isJsonObject(existing) ? existing : {}), ...data });
};

/** The hook Secrets' schema (one for all namespaces), observing this hook's URL and token when they are known. */
const withSecretSchema = (
  schemas: ReadonlyArray<ObserverSchema>,
  hook: Hook,
  context: MangleContext,
): ReadonlyArray<ObserverSchema> => {
  const base = hookSecretSchema(context.owner);
  const keys = hookSecretKeys(hook);
  const data = {
    ...(context.callbackUrl === undefined ? {} : { [keys.url]: null }),
    ...(context.tokens?.[hook] === undefined ? {} : { [keys.token]: null }),
  };
  const observed = Object.keys(data).length === 0 ? base : withKey(base, 'data', data);
  const key = schemaKeyOf(base);
  const index = schemas.findIndex((schema) => schemaKeyOf(schema) === key);
  if (index < 0) return [...schemas, observed];
  // Merging two schemas of the same Secret keeps their shared identification: an ObserverSchema.
  return schemas.map((schema, i) => (i === index ? (mergeSchemaNodes(schema, observed) as ObserverSchema) : schema));
};
