/**
 * Whether an Application and its children fit where the API server keeps them, decided before the
 * first write (docs/decisions/0023-status-size.md): kube-apiserver refuses a request body over
 * 3 MiB (413) and etcd an object over its `--max-request-bytes`, 1.5 MiB by default
 * (`etcdserver: request is too large`). An Application whose children are created and whose
 * status then cannot be written would retry forever; one that cannot fit is refused instead,
 * naming the size, the limit and how to split it.
 */
import { isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { jsonText } from '../json/text.js';
import type { ApplicationStatus } from '../model/application.js';
import type { Resource } from '../model/resource.js';
import { observeResource } from '../manifest/project.js';
import { indexSchemas, schemaFor } from '../schema/lookup.js';

/** The limits a cluster stores objects under. */
export type StorageLimits = {
  /** etcd's `--max-request-bytes` (default 1.5 MiB): the largest object it stores. */
  readonly maxObjectBytes: number;
  /** kube-apiserver's largest request body (3 MiB). */
  readonly maxRequestBodyBytes: number;
};

export const DEFAULT_STORAGE_LIMITS: StorageLimits = {
  maxObjectBytes: 1.5 * 1024 * 1024,
  maxRequestBodyBytes: 3 * 1024 * 1024,
};

/**
 * Room kept under the object limit for what the server adds: managedFields, resourceVersion, uid,
 * timestamps, conditions growing, drift reported. Measured: an Application's metadata as stored
 * adds about 1 KB; the margin is generous.
 */
export const STORED_OBJECT_MARGIN_BYTES = 16 * 1024;

/** UTF-8 length of a string, as the server counts bytes (no Buffer: the core uses no Node API). */
export const utf8Length = (text: string): number => {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4; // a surrogate pair: one 4-byte character
      i += 1;
    } else bytes += 3;
  }
  return bytes;
};

/** Bytes of a value as JSON. */
export const jsonBytes = (value: JsonValue): number => utf8Length(JSON.stringify(value));

/**
 * The status once every child is created and observed in sync: the planned status with each
 * desired resource's observation (its projection on its schema) in place of a live one. What the
 * operator will keep writing while nothing drifts.
 */
export const statusOnceObserved = (status: ApplicationStatus): ApplicationStatus => {
  const schemas = indexSchemas(status.mangledObserverSchema ?? []);
  const observed = (status.lastAppliedManifest ?? []).flatMap((resource) => {
    const schema = schemaFor(schemas, resource);
    return schema === undefined ? [] : [observeResource(resource, schema)];
  });
  return { ...status, lastObservedManifest: observed };
};

const MIB = 1024 * 1024;

/** `1.52 MiB` / `812 KiB`: sizes as a reader compares them with the limits. */
export const showBytes = (bytes: number): string =>
  bytes >= MIB ? `${(bytes / MIB).toFixed(2)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;

/** One line per object that cannot be stored: the size, the limit, and what to do. */
export type SizeProblem = {
  readonly subject: string;
  readonly bytes: number;
  readonly limit: number;
  readonly message: string;
};

/** A child that no API server with these limits can store (its create body or the object itself). */
const childProblem = (child: Resource, limits: StorageLimits): SizeProblem | undefined => {
  const bytes = jsonBytes(child);
  const limit = Math.min(limits.maxObjectBytes, limits.maxRequestBodyBytes);
  if (bytes <= limit) return undefined;
  const subject = `${child.kind} ${child.metadata.namespace === undefined ? '' : `${child.metadata.namespace}/`}${child.metadata.name}`;
  return {
    subject,
    bytes,
    limit,
    message: `${subject} is ${showBytes(bytes)}, over the ${showBytes(limit)} an API server stores (etcd --max-request-bytes): make it smaller (split its data into several objects)`,
  };
};

/**
 * What cannot be stored: each child over the limit, and the Application itself (its object with
 * the status as stored, `storedStatusBytes`) over the object limit less the margin. Empty when all fits.
 */
export const sizeProblems = (args: {
  readonly application: JsonObject;
  /** Bytes of the status as the operator stores it (the shell packs and compresses it). */
  readonly storedStatusBytes: number;
  readonly children: ReadonlyArray<Resource>;
  readonly limits?: StorageLimits;
}): ReadonlyArray<SizeProblem> => {
  const limits = args.limits ?? DEFAULT_STORAGE_LIMITS;
  const children = args.children.flatMap((child) => childProblem(child, limits) ?? []);
  const withoutStatus = objectFromEntries(Object.entries(args.application).filter(([key]) => key !== 'status'));
  const specBytes = jsonBytes(withoutStatus);
  const bytes = specBytes + args.storedStatusBytes + STORED_OBJECT_MARGIN_BYTES;
  if (bytes <= limits.maxObjectBytes) return children;
  const metadata = withoutStatus['metadata'];
  const name = isJsonObject(metadata)
    ? `${jsonText(metadata['namespace'] ?? 'default')}/${jsonText(metadata['name'])}`
    : '';
  const subject = `Application ${name}`;
  return [
    ...children,
    {
      subject,
      bytes,
      limit: limits.maxObjectBytes,
      message: `${subject} would be ${showBytes(bytes)} stored (spec ${showBytes(specBytes)}, status ${showBytes(args.storedStatusBytes)}), over etcd's limit of ${showBytes(limits.maxObjectBytes)} (--max-request-bytes): split spec.manifest into several Applications (for example the CustomResourceDefinitions in one, the rest in another)`,
    },
  ];
};
