/** The live objects that concern one Application: what the planner's `live` input is defined to hold. */
import {
  identityOf,
  isOwnedBy,
  refKey,
  refOf,
  withCrdScopes,
  type Application,
  type ObjectRef,
  type Resource,
  type ScopeTable,
} from '../../../core/index.js';

/**
 * The identities of an Application's desired resources (namespaced ones default to its namespace);
 * `manifest`: the translation of its template when it has one.
 */
export const desiredRefs = (
  application: Application,
  scopes: ScopeTable,
  manifest: ReadonlyArray<Resource> = application.spec.manifest ?? [],
): ReadonlyArray<ObjectRef> => {
  const manifestScopes = withCrdScopes(scopes, manifest);
  return manifest.map((resource) => identityOf(resource, manifestScopes, application.metadata.namespace ?? 'default'));
};

/** Objects matching a desired resource, and objects carrying this Application's owner mark. */
export const liveObjectsFor = (
  application: Application,
  objects: ReadonlyArray<Resource>,
  scopes: ScopeTable,
  manifest?: ReadonlyArray<Resource>,
): ReadonlyArray<Resource> => {
  const desired = new Set(desiredRefs(application, scopes, manifest).map(refKey));
  const owner = { namespace: application.metadata.namespace ?? 'default', name: application.metadata.name };
  return objects.filter((object) => desired.has(refKey(refOf(object))) || isOwnedBy(object, owner));
};
