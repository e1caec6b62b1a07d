/**
 * `apply`'s check of a saved plan before its first write: every body it creates and every value
 * it patches against its kind's schema (Kubernetes' built-in kinds offline, CRDs the plan
 * creates), so bad input is refused whole instead of half-applied. Each problem names the input
 * to fix: the Application's file and document, the manifest object and the field.
 */
import {
  catalogOfCompact,
  catalogOfCrds,
  EMPTY_CATALOG,
  mergeCatalogs,
  objectSchemaIssues,
  patchValueIssues,
  type Issue,
  type SchemaCatalog,
} from '../../../core/internal.js';
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import type { SavedActionV1, SavedApplicationV1, SavedPlanV1 } from './format.js';

const createdCrds = (saved: SavedPlanV1): ReadonlyArray<SavedActionV1> =>
  saved.applications.flatMap((application) =>
    application.actions.filter(
      (action) =>
        (action.type === 'create' || action.type === 'recreate') &&
        action.body.kind === 'CustomResourceDefinition' &&
        action.body.apiVersion.startsWith('apiextensions.k8s.io/'),
    ),
  );

const catalogOf = (io: CliIo, saved: SavedPlanV1): SchemaCatalog =>
  mergeCatalogs(
    io.builtinSchemas === undefined ? EMPTY_CATALOG : catalogOfCompact(io.builtinSchemas()),
    catalogOfCrds(createdCrds(saved).flatMap((action) => ('body' in action ? [action.body] : []))),
  );

const actionIssues = (action: SavedActionV1, catalog: SchemaCatalog): ReadonlyArray<Issue> => {
  switch (action.type) {
    case 'create':
    case 'recreate':
      return objectSchemaIssues(action.body, catalog);
    case 'patch':
      return action.patch.flatMap((operation) =>
        operation.op === 'add' || operation.op === 'replace'
          ? patchValueIssues({
              apiVersion: action.resource.apiVersion,
              kind: action.resource.kind,
              path: operation.path,
              value: operation.value,
              catalog,
            })
          : [],
      );
    default:
      return [];
  }
};

const applicationErrors = (application: SavedApplicationV1, catalog: SchemaCatalog): ReadonlyArray<CliError> =>
  application.actions.flatMap((action) => {
    const { apiVersion, kind, name } = action.resource;
    return actionIssues(action, catalog).map((issue) =>
      inputError(
        `spec.manifest ${apiVersion} ${kind} ${name}: ${issue.path}: ${issue.message}; nothing was applied: fix it in the Application, then plan and apply again`,
        {
          location: { file: application.source.file, document: application.source.document },
          subject: `Application ${application.application.namespace ?? 'default'}/${application.application.name}`,
        },
      ),
    );
  });

/** Every schema problem of every write of the plan; empty when it may be applied. */
export const savedPlanSchemaErrors = (io: CliIo, saved: SavedPlanV1): ReadonlyArray<CliError> => {
  const catalog = catalogOf(io, saved);
  return saved.applications.flatMap((application) => applicationErrors(application, catalog));
};
