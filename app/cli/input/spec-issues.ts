/** Checks a decoded Application's spec the way the planner will: manifest, then observer schemas. */
import * as E from 'fp-ts/lib/Either.js';
import { dependencyIssues, identityOf, refKey, validateObserverSchema, withCrdScopes, withNamespaces, type Application, type Issue, type ScopeTable } from '../../../core/index.js';
// Not part of the core's public API yet; the planner runs exactly this check (core/plan/spec-check.ts).
import { manifestIssues } from '../../../core/schema/validate.js';

/**
 * Every problem of the spec, each with its JSON path (SPEC section 2: validation runs before anything else).
 * A spec holding only `tosca`/`csar` passes here; the plan reports that the CLI cannot translate it.
 */
export const specIssues = (application: Application, scopes: ScopeTable): ReadonlyArray<Issue> => {
  const spec = application.spec;
  const manifest = spec.manifest ?? [];
  if (manifest.length === 0) {
    return spec.tosca !== undefined || spec.csar !== undefined
      ? []
      : [{ path: 'spec.manifest', message: 'the spec needs a non-empty manifest (or tosca/csar): list the resources to manage' }];
  }
  const namespace = application.metadata.namespace ?? 'default';
  const manifestScopes = withCrdScopes(scopes, manifest);
  const resources = manifestIssues(manifest, (resource) => refKey(identityOf(resource, manifestScopes, namespace)));
  const schemas = validateObserverSchema({ manifest, observerSchema: spec.observerSchema });
  const dependencies = resources.length > 0 ? [] : dependencyIssues(withNamespaces(manifest, manifestScopes, namespace));
  return [...resources, ...(E.isLeft(schemas) ? schemas.left.issues : []), ...dependencies];
};
