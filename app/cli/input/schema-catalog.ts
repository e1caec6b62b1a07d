/**
 * The schema catalog a command validates manifests against: Kubernetes' built-in kinds (the
 * committed schema file), CRDs named with `--crd <file|dir>`, CRDs in the input (beside the
 * Applications or in their manifests), and, last and winning, a cluster's OpenAPI documents.
 */
import {
  catalogIssues,
  catalogOfCompact,
  catalogOfCrds,
  EMPTY_CATALOG,
  mergeCatalogs,
  serverRefusalIssues,
  type JsonValue,
  type SchemaCatalog,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { crdRules } from '../../../adapters/cel/crd-rules.js';
import { crdBoundProblem } from '../../../core/schema/structural/bounds.js';
import type { CrdRules } from '../../../core/schema/structural/rules.js';
import type { CliIo } from '../io.js';
import { desiredManifest, subjectOf, type ApplicationInput } from './applications.js';
import { expandDirectories } from './directories.js';
import { describeObject, errorAt } from './entries.js';
import { isCustomResourceDefinition } from './kinds.js';
import { loadEntries } from './load.js';

/** The CRDs of `--crd` files and directories; every other document is an error (they would be silently ignored). */
export const readCrdFlags = async (
  io: CliIo,
  names: ReadonlyArray<string>,
): Promise<{ readonly crds: ReadonlyArray<JsonValue>; readonly errors: ReadonlyArray<CliError> }> => {
  if (names.length === 0) return { crds: [], errors: [] };
  const expanded = await expandDirectories(io, names, false);
  const loaded = await loadEntries(io, expanded.files);
  const crds = loaded.entries.filter((entry) => isCustomResourceDefinition(entry.value));
  const overBounds = crds.flatMap((entry) => {
    const bound = crdBoundProblem(entry.value);
    return bound === undefined ? [] : [errorAt(entry.origin, bound.field, bound.message)];
  });
  const others = loaded.entries
    .filter((entry) => !isCustomResourceDefinition(entry.value))
    .map((entry) =>
      errorAt(
        entry.origin,
        'kind',
        `${describeObject(entry.value)} is not a CustomResourceDefinition: --crd reads CRDs only (Applications go in -f)`,
      ),
    );
  return {
    crds: crds.map((entry) => entry.value),
    errors: [...expanded.errors, ...loaded.errors, ...overBounds, ...others],
  };
};

const manifestCrds = (applications: ReadonlyArray<ApplicationInput>): ReadonlyArray<JsonValue> =>
  applications.flatMap((input) =>
    desiredManifest(input).filter(
      (resource) =>
        resource.kind === 'CustomResourceDefinition' && resource.apiVersion.startsWith('apiextensions.k8s.io/'),
    ),
  );

/** Kubernetes' built-in kinds, when the io has them (the real executable always does). */
export const builtinCatalog = (io: CliIo): SchemaCatalog =>
  io.builtinSchemas === undefined ? EMPTY_CATALOG : catalogOfCompact(io.builtinSchemas());

/** Built-in kinds (when the io has them), then `--crd`, then the input's CRDs, then `cluster`. */
export const catalogFor = (
  io: CliIo,
  sources: {
    readonly flagCrds: ReadonlyArray<JsonValue>;
    readonly inputCrds: ReadonlyArray<JsonValue>;
    readonly applications: ReadonlyArray<ApplicationInput>;
    readonly cluster?: SchemaCatalog;
  },
): SchemaCatalog =>
  mergeCatalogs(
    io.builtinSchemas === undefined ? EMPTY_CATALOG : catalogOfCompact(io.builtinSchemas()),
    catalogOfCrds(sources.flagCrds),
    catalogOfCrds([...sources.inputCrds, ...manifestCrds(sources.applications)]),
    sources.cluster ?? EMPTY_CATALOG,
  );

/** Every manifest resource of every Application against the catalog, each problem at its file:line. */
export const manifestSchemaErrors = (
  applications: ReadonlyArray<ApplicationInput>,
  catalog: SchemaCatalog,
  rules: CrdRules = crdRules(),
): ReadonlyArray<CliError> =>
  // A TOSCA Application's resources are its translation (input/tosca.ts): those are checked.
  applications.flatMap((input) => {
    const issues = catalogIssues({ manifest: desiredManifest(input), catalog, rules });
    const subject = subjectOf(input.application);
    const shown = issues
      .slice(0, MAX_SCHEMA_ERRORS)
      .map((issue) => errorAt(input.origin, issue.path, issue.message, subject));
    const more = issues.length - MAX_SCHEMA_ERRORS;
    return more > 0
      ? [
          ...shown,
          errorAt(input.origin, 'spec.manifest', `and ${more} more schema problems: fix the ones above first`, subject),
        ]
      : shown;
  });

/** Schema problems shown per Application: beyond, one line counts the rest (a hostile manifest can have thousands). */
export const MAX_SCHEMA_ERRORS = 100;

/**
 * What the API server would refuse in each Application's manifest, without schemas (removed API
 * versions, field rules beyond the schema: core/schema/server-rules): what `plan` reports, at file:line.
 */
export const manifestRefusalErrors = (applications: ReadonlyArray<ApplicationInput>): ReadonlyArray<CliError> =>
  applications.flatMap((input) =>
    serverRefusalIssues(desiredManifest(input))
      .slice(0, MAX_SCHEMA_ERRORS)
      .map((issue) => errorAt(input.origin, issue.path, issue.message, subjectOf(input.application))),
  );
