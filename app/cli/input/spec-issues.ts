/** Checks a decoded Application's spec the way the planner will: manifest, then observer schemas. */
import * as E from 'fp-ts/lib/Either.js';
import {
  dependencyIssues,
  identityOf,
  isJsonObject,
  refKey,
  translateTemplate,
  validateObserverSchema,
  withCrdScopes,
  withNamespaces,
  type Application,
  type Issue,
  type Resource,
  type ScopeTable,
} from '../../../core/index.js';
import { parseYamlDocument } from '../../tosca/yaml.js';
// Not part of the core's public API yet; the planner runs exactly this check (core/plan/spec-check.ts).
import { manifestIssues } from '../../../core/schema/validate.js';

/**
 * Every problem of the spec, each with its JSON path (SPEC section 2: validation runs before anything else).
 * An inline `spec.tosca` template is translated (offline, as the operator would) and its manifest
 * checked; a template or CSAR given by URL passes here (fetching is the operator's).
 */
export const specIssues = (application: Application, scopes: ScopeTable): ReadonlyArray<Issue> => {
  const spec = application.spec;
  const written = spec.manifest ?? [];
  const translated = written.length === 0 ? inlineToscaManifest(spec) : E.right(written);
  if (E.isLeft(translated)) return translated.left;
  const manifest = translated.right;
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
  const resources = manifestIssues(manifest, (resource) => refKey(identityOf(resource, manifestScopes, namespace)));
  const schemas = validateObserverSchema({ manifest, observerSchema: spec.observerSchema });
  const dependencies =
    resources.length > 0 ? [] : dependencyIssues(withNamespaces(manifest, manifestScopes, namespace));
  return [...resources, ...(E.isLeft(schemas) ? schemas.left.issues : []), ...dependencies];
};

/** The manifest of an inline TOSCA template (a mapping in `spec.tosca`), or its issues; nothing otherwise. */
const inlineToscaManifest = (spec: Application['spec']): E.Either<ReadonlyArray<Issue>, ReadonlyArray<Resource>> =>
  isJsonObject(spec.tosca ?? null)
    ? translateTemplate({
        template: spec.tosca ?? null,
        inputs: spec.toscaInputs,
        parseDocument: parseYamlDocument,
        root: 'spec.tosca',
      })
    : E.right([]);
