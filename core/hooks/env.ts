/**
 * Env injection: every container (init containers included) of every workload gets a hook's env
 * entries, read from the hook Secret; the schema is made to observe them, so drift is corrected.
 */
import { getIn, getOwn, isJsonArray, isJsonObject, withKey, type JsonObject, type JsonValue } from '../json/json.js';
import type { Path } from '../json/path.js';
import type { Hook } from '../model/application.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import { isResource, type Resource } from '../model/resource.js';
import { schemaKeyOf, schemasByKey } from '../schema/lookup.js';
import { updateAt } from './json-edit.js';
import { observeAppended } from './schema-edit.js';
import { hookEnvNames, hookSecretKeys } from './secret.js';
import type { Mangled } from './types.js';
import { CONTAINER_LISTS, podSpecPathOf } from './workloads.js';

/** A hook's env entries, each read from the hook Secret with `valueFrom.secretKeyRef`. */
export const hookEnvEntries = (hook: Hook, secretName: string): ReadonlyArray<JsonObject> => {
  const names = hookEnvNames(hook);
  const keys = hookSecretKeys(hook);
  return [
    { name: names.token, valueFrom: { secretKeyRef: { name: secretName, key: keys.token } } },
    { name: names.url, valueFrom: { secretKeyRef: { name: secretName, key: keys.url } } },
  ];
};

/** What is observed of an injected entry: all of it. */
const ENTRY_SCHEMA: JsonObject = { name: null, valueFrom: { secretKeyRef: { name: null, key: null } } };

/**
 * Adds `entries` to every container of every workload in `desired` and makes the workloads'
 * schemas observe them. An entry whose name a container already has is not added (the value
 * written by the user stands; no duplicate). Containers without an `env` list get one; an `env`
 * that is not a list is left alone. Other kinds pass through unchanged.
 */
export const injectEnv = (mangled: Mangled, entries: ReadonlyArray<JsonObject>): Mangled => {
  const schemas = schemasByKey(mangled.mangledSchema);
  const desired = mangled.desired.map((resource) => {
    const path = podSpecPathOf(resource);
    if (path === undefined) return resource;
    const key = schemaKeyOf(resource);
    const injected = injectWorkload(resource, schemas.get(key), path, entries);
    if (injected.schema !== undefined) schemas.set(key, injected.schema);
    return injected.resource;
  });
  // Each schema keeps its place; one of a resource without schema (none after defaulting) is not invented.
  const mangledSchema = mangled.mangledSchema.map((schema) => schemas.get(schemaKeyOf(schema)) ?? schema);
  return { desired, mangledSchema };
};

type Injected = { readonly resource: Resource; readonly schema: ObserverSchema | undefined };

const injectWorkload = (
  resource: Resource,
  schema: ObserverSchema | undefined,
  podSpec: Path,
  entries: ReadonlyArray<JsonObject>,
): Injected => {
  let result: Injected = { resource, schema };
  for (const list of CONTAINER_LISTS) {
    const containers = getIn(resource, [...podSpec, list]);
    if (!isJsonArray(containers)) continue;
    containers.forEach((container, index) => {
      result = injectContainer(result, [...podSpec, list, index], container, entries);
    });
  }
  return result;
};

const injectContainer = (
  current: Injected,
  path: Path,
  container: JsonValue,
  entries: ReadonlyArray<JsonObject>,
): Injected => {
  if (!isJsonObject(container)) return current;
  const env = getOwn(container, 'env');
  const existing = env === undefined ? [] : isJsonArray(env) ? env : undefined;
  if (existing === undefined) return current;
  const names = new Set(
    existing.flatMap((entry) => (isJsonObject(entry) && typeof entry.name === 'string' ? [entry.name] : [])),
  );
  const added = entries.filter((entry) => typeof entry.name !== 'string' || !names.has(entry.name));
  if (added.length === 0) return current;
  const next = [...existing, ...added];
  const updated =
    env === undefined
      ? updateAt(current.resource, path, (node) => (isJsonObject(node) ? withKey(node, 'env', next) : node))
      : updateAt(current.resource, [...path, 'env'], () => next);
  // Only a container's env changes, never the identification: still a Resource (checked, not assumed).
  if (!isResource(updated)) return current;
  const resource = updated;
  const schema =
    current.schema === undefined
      ? undefined
      : // Appending below a container keeps the schema's identification: still an ObserverSchema.
        (observeAppended(
          current.schema,
          [...path, 'env'],
          existing.length,
          next.length,
          ENTRY_SCHEMA,
        ) as ObserverSchema);
  return { resource, schema };
};
