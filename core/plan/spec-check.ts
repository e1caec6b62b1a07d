/** Checks an Application's spec before planning: every problem as a Stalled verdict with paths. */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import { showIssue, type Issue } from '../model/decode.js';
import type { ApplicationSpec } from '../model/application.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import type { Resource } from '../model/resource.js';
import type { ScopeTable } from '../model/scope.js';
import { inNamespace, knownScope, namespaceOf } from '../manifest/identity.js';
import { manifestIssues, validateObserverSchema } from '../validation/observer-schemas.js';
import type { Verdict } from '../status/conditions.js';
import { declaresDependencies, dependencyIssues } from './dependencies.js';
import type { Memo } from '../memo/memo.js';

export type CheckedSpec = {
  readonly manifest: ReadonlyArray<Resource>;
  readonly observerSchema: ReadonlyArray<ObserverSchema>;
};

type Stalled = Extract<Verdict, { _tag: 'Stalled' }>;

const stalled = (reason: Stalled['reason'], issues: ReadonlyArray<Issue>): Stalled => ({
  _tag: 'Stalled',
  reason,
  message: issues.map(showIssue).join('; '),
});

/**
 * The manifest and custom schemas of a valid spec, or the Stalled verdict naming every problem.
 * `translated` is the manifest produced from `spec.tosca`/`spec.csar`, when the caller translated it.
 */
export const checkSpec = (args: {
  readonly spec: ApplicationSpec | undefined;
  readonly scopes: ScopeTable;
  readonly namespace: string;
  readonly translated?: ReadonlyArray<Resource>;
  /** Where scopes looked up per kind are remembered (the plan's memo; core/memo/memo.ts). */
  readonly memo?: Memo;
}): E.Either<Stalled, CheckedSpec> => {
  const spec: JsonValue | undefined = args.spec;
  if (!isJsonObject(spec))
    return E.left(stalled('InvalidSpec', [{ path: 'spec', message: 'spec must be an object with a manifest' }]));
  const written = spec.manifest;
  if (written !== undefined && !isJsonArray(written))
    return E.left(
      stalled('InvalidSpec', [{ path: 'spec.manifest', message: 'manifest must be a list of Kubernetes resources' }]),
    );
  const manifest = (written ?? []).length > 0 ? (written ?? []) : (args.translated ?? []);
  if (manifest.length === 0) return E.left(noManifest(spec.tosca !== undefined || spec.csar !== undefined));
  const issues = manifestIssues(manifest, (resource) => namespaceOf(resource, args.scopes, args.namespace, args.memo));
  if (issues.length > 0) return E.left(stalled('InvalidSpec', issues));
  const schemas = spec.observerSchema;
  if (schemas !== undefined && !isJsonArray(schemas))
    return E.left(
      stalled('InvalidObserverSchema', [
        { path: 'spec.observerSchema', message: 'observerSchema must be a list of schemas' },
      ]),
    );
  const validated = validateObserverSchema({ manifest, observerSchema: schemas });
  if (E.isLeft(validated)) return E.left(stalled('InvalidObserverSchema', validated.left.issues));
  // `manifestIssues` found none: every entry is a Resource. The list itself is kept (not filtered by a
  // guard), because the plan's caches are keyed by its identity.
  const resources = manifest as ReadonlyArray<Resource>;
  const unknown = unknownKinds(resources, args.scopes, args.memo);
  if (unknown.length > 0) return E.left(stalled('UnknownKind', unknown));
  // Namespaces are resolved (a copy of each resource) only when some resource declares dependencies.
  const declared = resources.some(declaresDependencies);
  const dependencies = declared ? dependencyIssues(withNamespaces(resources, args.scopes, args.namespace)) : [];
  if (dependencies.length > 0) return E.left(stalled('InvalidSpec', dependencies));
  return E.right({ manifest: resources, observerSchema: validated.right });
};

const noManifest = (hasTosca: boolean): Stalled =>
  hasTosca
    ? stalled('InvalidTosca', [
        {
          path: 'spec',
          message:
            'the spec.tosca/spec.csar template was not translated into a manifest, so there is nothing to plan (the operator and kreconcile plan translate it first)',
        },
      ])
    : stalled('InvalidSpec', [{ path: 'spec', message: 'the spec needs a non-empty manifest (or tosca/csar)' }]);

const unknownKinds = (manifest: ReadonlyArray<Resource>, scopes: ScopeTable, memo?: Memo): ReadonlyArray<Issue> =>
  manifest.flatMap((resource, index) =>
    knownScope(scopes, resource.apiVersion, resource.kind, memo) === undefined
      ? [
          {
            path: `spec.manifest[${index}]`,
            message: `unknown kind ${resource.kind} in ${resource.apiVersion}: install its CustomResourceDefinition (or add it to the manifest) first`,
          },
        ]
      : NO_ISSUES,
  );

const NO_ISSUES: ReadonlyArray<Issue> = [];

/** The manifest with namespaces as the resources will have them (dependencies are resolved by namespace). */
export const withNamespaces = (
  manifest: ReadonlyArray<Resource>,
  scopes: ScopeTable,
  namespace: string,
): ReadonlyArray<Resource> =>
  manifest.map((resource) => inNamespace(resource, namespaceOf(resource, scopes, namespace)));
