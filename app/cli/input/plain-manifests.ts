/**
 * Plain manifests (a directory of YAML, `kustomize build` or `helm template` output on stdin) read
 * as the manifest of one Application, so that `plan`, `validate` and `wrap` take them without
 * anyone re-indenting them under `spec.manifest` (docs/cli.md, "Plain manifests"). Every problem
 * of such an Application's manifest is reported where the user wrote it: the resource's own file,
 * document, line and path, about the resource, not about an Application they never wrote.
 */
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  getOwn,
  groupOf,
  type JsonObject,
  type Path,
} from '../../../core/internal.js';
import { closestName } from '../../../core/model/closest-name.js';
import type { CliError } from '../cli-error.js';
import { describeObject, type Entry, type Origin } from './entries.js';

/** How documents that are neither Applications nor CRDs are read. */
export type PlainManifests =
  /** As the manifest of the Application of this name (in the default namespace). */
  | { readonly mode: 'application'; readonly name: string }
  /** Each checked as a resource of its own (`validate` without `--as-application`). */
  | { readonly mode: 'resources' };

/** The name of the Application that carries plain resources when the user named none (never shown). */
export const RESOURCES_APPLICATION = 'plain-manifests';

/**
 * The Application whose manifest is the plain documents, with an origin that places
 * `spec.manifest[i].<path>` at the i-th document's `<path>`.
 */
export const applicationOfPlain = (
  entries: ReadonlyArray<Entry>,
  name: string,
  namespace: string,
): { readonly value: JsonObject; readonly origin: Origin } => {
  const first = entries[0]?.origin;
  const value: JsonObject = {
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: { name, namespace },
    spec: { manifest: entries.map((entry) => entry.value) },
  };
  const locate = (path: Path) => {
    const [spec, manifest, index, ...rest] = path;
    const entry = spec === 'spec' && manifest === 'manifest' && typeof index === 'number' ? entries[index] : undefined;
    if (entry !== undefined) return entry.origin.locate([...entry.origin.prefix, ...rest]);
    return first === undefined ? { file: '<stdin>' } : first.locate(first.prefix);
  };
  return { value, origin: { file: first?.file ?? '<stdin>', document: first?.document ?? 1, prefix: [], locate } };
};

const MANIFEST_PATH = /^spec\.manifest\[(\d+)\](?:\.(.*)|(\[.*))?$/;

/** `apps/v1 Deployment shop/web`: a plain resource as errors and listings name it. */
export const describeResource = (value: JsonObject): string => {
  const apiVersion = getOwn(value, 'apiVersion');
  return `${typeof apiVersion === 'string' ? `${apiVersion} ` : ''}${describeObject(value)}`;
};

/**
 * An error of an Application made of plain documents, about one of them: said of that resource,
 * at its own path (its file and line are already the resource's: see `applicationOfPlain`).
 */
export const relocatedError = (error: CliError, subject: string, entries: ReadonlyArray<Entry>): CliError => {
  if (error.subject !== subject || error.path === undefined) return error;
  const match = MANIFEST_PATH.exec(error.path);
  const entry = match === null ? undefined : entries[Number(match[1])];
  if (match === null || entry === undefined) return error;
  const rest = match[2] ?? match[3] ?? '';
  return { ...error, subject: describeResource(entry.value), path: rest };
};

/**
 * A document that is nearly an Application (`kind: Aplication`, `apiVersion: kreconcile.io/v1`
 * is decoded and refused elsewhere, `kreconcle.io/v1alpha1`): what it should say, or `undefined`.
 */
export const applicationMisspelling = (value: JsonObject): string | undefined => {
  const kind = getOwn(value, 'kind');
  const apiVersion = getOwn(value, 'apiVersion');
  if (typeof kind !== 'string' || typeof apiVersion !== 'string') return undefined;
  const group = groupOf(apiVersion);
  const kindClose = kind === APPLICATION_KIND || closestName(kind, [APPLICATION_KIND]) !== undefined;
  const groupClose = group === 'kreconcile.io' || closestName(group, ['kreconcile.io']) !== undefined;
  if (!kindClose || !groupClose || (kind === APPLICATION_KIND && group === 'kreconcile.io')) return undefined;
  const fix = [
    ...(kind === APPLICATION_KIND ? [] : [`kind \`${APPLICATION_KIND}\``]),
    ...(group === 'kreconcile.io' ? [] : [`apiVersion \`${APPLICATION_API_VERSION}\``]),
  ];
  return `${apiVersion} ${kind} is not a kind kreconcile reads: did you mean ${fix.join(' and ')}?`;
};
