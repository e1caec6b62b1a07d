/**
 * The `-f` inputs: Applications (any number per file, in Lists too) and the CustomResourceDefinitions
 * that tell which custom kinds are namespaced. Anything else is a mistake worth one clear line.
 */
import { crdBoundProblem } from '../../../core/schema/structural/bounds.js';
import * as E from 'fp-ts/lib/Either.js';
import {
  decodeApplication,
  getOwn,
  isJsonArray,
  isJsonObject,
  Resource,
  unknownFieldIssues,
  validateObserverSchema,
  withKey,
  type Application,
  type Issue,
  type JsonObject,
  type ScopeTable,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { describeObject, errorAt, type Entry, type Origin } from './entries.js';
import { isApplication, isCustomResourceDefinition } from './kinds.js';
import { specIssues } from './spec-issues.js';
import { tidyIssues } from './tidy-issues.js';
import { withReadableStatus } from '../../status/stored-status.js';
import {
  applicationMisspelling,
  applicationOfPlain,
  relocatedError,
  RESOURCES_APPLICATION,
  type PlainManifests,
} from './plain-manifests.js';
import { jsonText } from '../../../core/json/text.js';

/**
 * An Application and where it was written; `translated`: the manifest its TOSCA template or CSAR
 * translates to (input/tosca.ts), kept beside the Application as the operator does, never in its spec.
 */
export type ApplicationInput = {
  readonly application: Application;
  readonly origin: Origin;
  readonly translated?: ReadonlyArray<Resource>;
  /**
   * The plain documents its manifest was read from (input/plain-manifests.ts), in manifest order;
   * `named`: the user named the Application (`--as-application`), else it only carries them.
   */
  readonly plain?: { readonly entries: ReadonlyArray<Entry>; readonly named: boolean };
};

/** The resources the Application manages: `spec.manifest`, else the translation of its template. */
export const desiredManifest = (input: ApplicationInput): ReadonlyArray<Resource> => {
  const written = input.application.spec.manifest ?? [];
  return written.length > 0 ? written : (input.translated ?? []);
};

/**
 * The Application with `desiredManifest` in `spec.manifest`, for the readers of live objects that
 * look there (live/collect.ts); never planned or shown (its generation would change).
 */
export const withDesiredManifest = (input: ApplicationInput): Application =>
  input.translated === undefined
    ? input.application
    : { ...input.application, spec: { ...input.application.spec, manifest: desiredManifest(input) } };

export type ManifestInputs = {
  readonly applications: ReadonlyArray<ApplicationInput>;
  readonly crds: ReadonlyArray<Resource>;
};

export const applicationName = (application: Application): string =>
  `${application.metadata.namespace ?? 'default'}/${application.metadata.name}`;

export const subjectOf = (application: Application): string => `Application ${applicationName(application)}`;

type Read = {
  readonly application?: ApplicationInput;
  readonly crd?: Resource;
  /** A document read as a plain manifest resource. */
  readonly plain?: Entry;
  readonly errors: ReadonlyArray<CliError>;
};

/**
 * Classifies and decodes the objects of the `-f` inputs. Applications without a namespace get
 * `defaultNamespace` (as `kubectl apply -n` would). Returns what could be read along with every
 * error, so that validation can report the problems of all documents at once.
 * Errors: objects that are neither Application nor CRD, shape errors with their paths, the same
 * Application twice.
 */
export const readApplications = (
  entries: ReadonlyArray<Entry>,
  defaultNamespace: string,
  plainManifests?: PlainManifests,
): ManifestInputs & { readonly errors: ReadonlyArray<CliError> } => {
  const read = entries.map((entry) => readEntry(entry, defaultNamespace, plainManifests));
  const plain = plainManifests === undefined ? undefined : plainRead(read, defaultNamespace, plainManifests);
  const applications = [
    ...read.flatMap((r) => (r.application === undefined ? [] : [r.application])),
    ...(plain?.applications ?? []),
  ];
  return {
    applications,
    crds: read.flatMap((r) => (r.crd === undefined ? [] : [r.crd])),
    errors: [...read.flatMap((r) => r.errors), ...(plain?.errors ?? []), ...duplicateErrors(applications)],
  };
};

/**
 * The Application of the plain documents (none without any), its errors placed at the documents;
 * without a name, one Application per document, so that each resource is checked on its own.
 */
const plainRead = (
  read: ReadonlyArray<Read>,
  namespace: string,
  plainManifests: PlainManifests,
): { readonly applications: ReadonlyArray<ApplicationInput>; readonly errors: ReadonlyArray<CliError> } => {
  const entries = read.flatMap((r) => (r.plain === undefined ? [] : [r.plain]));
  const groups =
    plainManifests.mode === 'application'
      ? entries.length === 0
        ? []
        : [{ name: plainManifests.name, entries }]
      : entries.map((entry, i) => ({ name: `${RESOURCES_APPLICATION}-${i + 1}`, entries: [entry] }));
  const results = groups.map((group) => {
    const { value, origin } = applicationOfPlain(group.entries, group.name, namespace);
    const result = readApplication(value, origin);
    const plain = { entries: group.entries, named: plainManifests.mode === 'application' };
    return {
      applications: result.application === undefined ? [] : [{ ...result.application, plain }],
      errors: result.errors.map((error) => relocatedError(error, describeObject(value), group.entries)),
    };
  });
  return { applications: results.flatMap((r) => r.applications), errors: results.flatMap((r) => r.errors) };
};

const readEntry = (entry: Entry, defaultNamespace: string, plainManifests?: PlainManifests): Read => {
  const { value, origin } = entry;
  if (typeof getOwn(value, 'kind') !== 'string' || typeof getOwn(value, 'apiVersion') !== 'string') {
    const missing = typeof getOwn(value, 'kind') !== 'string' ? 'kind' : 'apiVersion';
    return {
      errors: [
        errorAt(
          origin,
          missing,
          `missing ${missing}: each document must be an Application (kreconcile.io/v1alpha1) or a CustomResourceDefinition`,
        ),
      ],
    };
  }
  if (isCustomResourceDefinition(value)) {
    if (!Resource.is(value))
      return { errors: [errorAt(origin, 'metadata.name', 'a CustomResourceDefinition needs metadata.name')] };
    // Over a bound it is one error, and nothing of it is compiled or walked (docs/decisions/0024).
    const bound = crdBoundProblem(value);
    // Beside plain manifests named as an Application, a CRD is one of its resources too (a chart's CRDs).
    const managed = plainManifests?.mode === 'application' ? { plain: entry } : {};
    return bound === undefined
      ? { crd: value, ...managed, errors: [] }
      : { errors: [errorAt(origin, bound.field, bound.message, describeObject(value))] };
  }
  const misspelt = applicationMisspelling(value);
  if (misspelt !== undefined)
    return {
      errors: [
        errorAt(
          origin,
          getOwn(value, 'kind') === 'Application' ? 'apiVersion' : 'kind',
          misspelt,
          describeObject(value),
        ),
      ],
    };
  if (!isApplication(value) && plainManifests !== undefined) return { plain: entry, errors: [] };
  if (!isApplication(value)) {
    return {
      errors: [
        errorAt(
          origin,
          'kind',
          `${jsonText(getOwn(value, 'apiVersion'))} ${describeObject(value)} is not an Application: list it in an Application's spec.manifest, or read plain manifests as one Application with --as-application NAME (live objects go in --snapshot)`,
        ),
      ],
    };
  }
  return readApplication(withDefaultNamespace(value, defaultNamespace), origin);
};

const withDefaultNamespace = (value: JsonObject, namespace: string): JsonObject => {
  const metadata = getOwn(value, 'metadata');
  return isJsonObject(metadata) && getOwn(metadata, 'namespace') === undefined
    ? withKey(value, 'metadata', withKey(metadata, 'namespace', namespace))
    : value;
};

/** Shape errors and unknown fields together: a typo is reported even when the rest decodes. */
const readApplication = (value: JsonObject, origin: Origin): Read => {
  const subject = describeObject(value);
  const unknown = unknownFieldIssues(value).map((issue) => errorAt(origin, issue.path, issue.message, subject));
  const decoded = decodeApplication(withReadableStatus(value));
  if (E.isLeft(decoded)) {
    return {
      errors: [
        ...tidyIssues([...decoded.left, ...observerSchemaIssues(value)]).map((issue) =>
          errorAt(origin, issue.path, issue.message, subject),
        ),
        ...unknown,
      ],
    };
  }
  return { application: { application: decoded.right, origin }, errors: unknown };
};

/**
 * The observer-schema problems of an Application that does not decode (a broken manifest entry
 * must not hide them: every problem of a file is reported). The check reads plain JSON.
 */
const observerSchemaIssues = (value: JsonObject): ReadonlyArray<Issue> => {
  const spec = getOwn(value, 'spec');
  const schemas = isJsonObject(spec) ? getOwn(spec, 'observerSchema') : undefined;
  if (!isJsonObject(spec) || !isJsonArray(schemas)) return [];
  const manifest = getOwn(spec, 'manifest');
  const checked = validateObserverSchema({ manifest: isJsonArray(manifest) ? manifest : [], observerSchema: schemas });
  return E.isLeft(checked) ? checked.left.issues : [];
};

const duplicateErrors = (applications: ReadonlyArray<ApplicationInput>): ReadonlyArray<CliError> => {
  const seen = new Map<string, Origin>();
  return applications.flatMap(({ application, origin }) => {
    const name = applicationName(application);
    const first = seen.get(name);
    if (first === undefined) {
      seen.set(name, origin);
      return [];
    }
    return [
      errorAt(
        origin,
        'metadata.name',
        `the same Application as ${first.file} document ${first.document}: each Application may appear once`,
        subjectOf(application),
      ),
    ];
  });
};

/** Spec and observer-schema problems of every Application, each located in its file. */
export const specErrors = (
  applications: ReadonlyArray<ApplicationInput>,
  scopes: ScopeTable,
): ReadonlyArray<CliError> =>
  applications.flatMap(({ application, origin, translated }) =>
    specIssues(application, scopes, translated).map((issue) =>
      errorAt(origin, issue.path, issue.message, subjectOf(application)),
    ),
  );

/** Errors about Applications made of plain documents, said of the document each is about (input/plain-manifests.ts). */
export const placedErrors = (
  errors: ReadonlyArray<CliError>,
  applications: ReadonlyArray<ApplicationInput>,
): ReadonlyArray<CliError> => {
  const plain = applications.flatMap(({ application, plain }) =>
    plain === undefined ? [] : [{ subject: subjectOf(application), entries: plain.entries }],
  );
  if (plain.length === 0) return errors;
  return errors.map((error) =>
    plain.reduce((placed, { subject, entries }) => relocatedError(placed, subject, entries), error),
  );
};
