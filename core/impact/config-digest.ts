/**
 * `spec.rolloutOnConfigChange: true` (docs/application.md; docs/decisions/0030-fleet-plan-and-impact.md):
 * each workload's pod template gets the annotation `kreconcile.io/config-digest`, a SHA-256 over the
 * ConfigMaps and Secrets of the same manifest it reads (volumes, env, envFrom). A change of their
 * data changes the digest, so the pod template changes and the workload rolls: Helm's checksum
 * pattern, decided in the plan where it is reviewed. Only the digest is written, never a value
 * (decision 0004); objects the manifest does not declare are not read, so not covered.
 */
import { getIn, getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import type { Resource } from '../model/resource.js';
import { sha256Hex } from '../sensitive/sha256.js';
import { templateReferences } from './config-readers.js';
import { WORKLOAD_KINDS } from './workload-rollout.js';

/** The pod template annotation that carries the digest. */
export const CONFIG_DIGEST_ANNOTATION = 'kreconcile.io/config-digest';

const CONFIG_KINDS = new Set(['ConfigMap', 'Secret']);

/** `namespace/Kind/name` of an object of the manifest (namespace: its own, else the Application's). */
const keyOf = (resource: Resource, namespace: string, kind = resource.kind, name = resource.metadata.name): string =>
  `${resource.metadata.namespace ?? namespace}/${kind}/${name}`;

/** JSON with object keys sorted: the same data gives the same digest, whatever the key order written. */
const canonical = (value: JsonValue | undefined): string => {
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((item: JsonValue) => canonical(item)).join(',')}]`;
  if (isJsonObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(getOwn(value, key))}`)
      .join(',')}}`;
  return JSON.stringify(value);
};

/**
 * The manifest with every workload that reads a ConfigMap or Secret of it stamped with their digest
 * (`namespace`: the Application's, for objects that name none). Workloads reading none are unchanged.
 */
export const withConfigDigests = (manifest: ReadonlyArray<Resource>, namespace: string): ReadonlyArray<Resource> => {
  const configs = new Map(
    manifest
      .filter((resource) => resource.apiVersion === 'v1' && CONFIG_KINDS.has(resource.kind))
      .map((resource) => [keyOf(resource, namespace), resource] as const),
  );
  if (configs.size === 0) return manifest;
  return manifest.map((resource) => {
    if (!WORKLOAD_KINDS.has(resource.kind)) return resource;
    const read = [
      ...new Set(templateReferences(resource).map((r) => keyOf(resource, namespace, r.kind, r.name))),
    ].sort();
    const found = read.flatMap((key): ReadonlyArray<JsonValue> => {
      const config = configs.get(key);
      return config === undefined ? [] : [[key, getOwn(config, 'data') ?? null, getOwn(config, 'binaryData') ?? null]];
    });
    return found.length === 0
      ? resource
      : stamped(resource, `sha256:${sha256Hex(new TextEncoder().encode(canonical(found)))}`);
  });
};

/** `resource` with the digest in `spec.template.metadata.annotations` (every other key kept). */
const stamped = (resource: Resource, digest: string): Resource => {
  const spec = getOwn(resource, 'spec');
  const template = getIn(resource, ['spec', 'template']);
  if (!isJsonObject(spec) || !isJsonObject(template)) return resource;
  const metadata = getOwn(template, 'metadata');
  const meta: JsonObject = isJsonObject(metadata) ? metadata : {};
  const annotations = getOwn(meta, 'annotations');
  const withDigest: JsonObject = {
    ...meta,
    annotations: { ...(isJsonObject(annotations) ? annotations : {}), [CONFIG_DIGEST_ANNOTATION]: digest },
  };
  return { ...resource, spec: { ...spec, template: { ...template, metadata: withDigest } } };
};
