/** The live objects that concern one Application: what the planner's `live` input is defined to hold. */
import type { Application } from '../model/application.js';
import { refKey, refOf, type ObjectRef, type Resource } from '../model/resource.js';
import { withCrdScopes, type ScopeTable } from '../model/scope.js';
import { identityOf } from '../manifest/identity.js';
import { ownerFor, ownerMark, ownerOf } from '../manifest/ownership.js';

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

/**
 * The live objects of a view by identity and by owner mark, built once per view: finding an
 * Application's objects is then a few lookups, not a scan of every object for every Application.
 */
export type LiveIndex = {
  readonly byRef: ReadonlyMap<string, ReadonlyArray<number>>;
  readonly byOwner: ReadonlyMap<string, ReadonlyArray<number>>;
  readonly objects: ReadonlyArray<Resource>;
};

const append = (map: Map<string, number[]>, key: string, position: number): void => {
  const positions = map.get(key);
  if (positions === undefined) map.set(key, [position]);
  else positions.push(position);
};

/** Indexes `objects` (positions kept, so an Application's objects come out in the view's order). */
export const indexLive = (objects: ReadonlyArray<Resource>): LiveIndex => {
  const byRef = new Map<string, number[]>();
  const byOwner = new Map<string, number[]>();
  objects.forEach((object, position) => {
    append(byRef, refKey(refOf(object)), position);
    const mark = ownerOf(object);
    if (mark !== undefined) append(byOwner, mark, position);
  });
  return { byRef, byOwner, objects };
};

/**
 * Objects matching a desired resource, and objects carrying this Application's owner mark (an
 * embedder's primary's mark names its kind: docs/runtime.md), in the view's order.
 */
export const liveObjectsIn = (
  application: Application,
  index: LiveIndex,
  scopes: ScopeTable,
  manifest?: ReadonlyArray<Resource>,
): ReadonlyArray<Resource> => {
  const positions = new Set(index.byOwner.get(ownerMark(ownerFor(application))) ?? []);
  for (const ref of desiredRefs(application, scopes, manifest))
    for (const position of index.byRef.get(refKey(ref)) ?? []) positions.add(position);
  return [...positions].sort((a, b) => a - b).flatMap((position) => index.objects[position] ?? []);
};

/** `liveObjectsIn` for a single Application (several Applications against one view: index it once). */
export const liveObjectsFor = (
  application: Application,
  objects: ReadonlyArray<Resource>,
  scopes: ScopeTable,
  manifest?: ReadonlyArray<Resource>,
): ReadonlyArray<Resource> => liveObjectsIn(application, indexLive(objects), scopes, manifest);
