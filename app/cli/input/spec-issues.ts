/** Checks a decoded Application's spec the way the planner will: manifest, then observer schemas. */
import * as E from 'fp-ts/lib/Either.js';
import {
  dependencyIssues,
  identityOf,
  validateObserverSchema,
  withCrdScopes,
  withNamespaces,
  type Application,
  type Issue,
  type Resource,
  type ScopeTable,
} from '../../../core/internal.js';
// Not part of the core's public API yet; the planner runs exactly this check (core/plan/spec-check.ts).
import { manifestIssues } from '../../../core/validation/observer-schemas.js';

/**
 * Every problem of the spec, each with its JSON path (docs/behaviour.md §2: validation runs before anything else).
 * `translated` is the manifest of the Application's TOSCA template (input/tosca.ts), checked as
 * the planner will check it; a template left untranslated (by URL, fetched by the operator) passes here.
 */
export const specIssues = (
  application: Application,
  scopes: ScopeTable,
  translated?: ReadonlyArray<Resource>,
): ReadonlyArray<Issue> => {
  const spec = application.spec;
  const written = spec.manifest ?? [];
  const manifest = written.length > 0 ? written : (translated ?? []);
  if (manifest.length === 0) {
    return spec.tosca !== undefined || spec.csar !== undefined
      ? []
      : [
          {
            path: 'spec.manifest',
            message: 'the spec needs a non-empty manifest (or tosca/csar): list the resources to manage',
          },
        ];
  }
  const namespace = application.metadata.namespace ?? 'default';
  const manifestScopes = withCrdScopes(scopes, manifest);
  const resources = manifestIssues(manifest, (resource) => identityOf(resource, manifestScopes, namespace).namespace);
  const schemas = validateObserverSchema({ manifest, observerSchema: spec.observerSchema });
  const dependencies =
    resources.length > 0 ? [] : dependencyIssues(withNamespaces(manifest, manifestScopes, namespace));
  const placed = (issues: ReadonlyArray<Issue>): ReadonlyArray<Issue> =>
    written.length > 0 ? issues : issues.map((issue) => inTemplate(issue, spec));
  return [...placed(resources), ...(E.isLeft(schemas) ? schemas.left.issues : []), ...placed(dependencies)];
};

/**
 * A problem of a translated resource, placed at the template it came from: `spec.manifest[1]…`
 * is not in the file, the template is.
 */
const inTemplate = (issue: Issue, spec: Application['spec']): Issue => ({
  path: spec.csar !== undefined ? 'spec.csar' : 'spec.tosca',
  message: `the translated manifest: ${issue.path.replace(/^spec\.manifest/, 'resource ')}: ${issue.message}`,
});
