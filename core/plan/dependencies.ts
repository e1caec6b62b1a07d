/**
 * Ordering between manifest resources beyond the kind order: a resource annotated
 * `kreconcile.io/depends-on: "ConfigMap/settings, apps/Deployment/db"` is created only once each
 * of those is ready (kstatus, core/status/readiness.ts), and each of those is deleted only once
 * every resource depending on it is gone. References are `[group/]Kind/name` in the dependent's
 * namespace (the core group has no prefix); cycles and dangling references are spec errors.
 */
import { getIn } from '../json/json.js';
import type { Issue } from '../model/decode.js';
import { groupOf, refKey, refOf, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import type { WaitAction } from '../model/plan.js';
import { defined } from '../json/defined.js';

export const DEPENDS_ON_ANNOTATION = 'kreconcile.io/depends-on';

/** One parsed reference: `apps/Deployment/db` → group `apps`, kind `Deployment`, name `db`. */
export type Dependency = { readonly group: string; readonly kind: string; readonly name: string };

const showDependency = (d: Dependency): string => `${d.group === '' ? '' : `${d.group}/`}${d.kind}/${d.name}`;

const ANNOTATION_PATH = ['metadata', 'annotations', DEPENDS_ON_ANNOTATION];

const annotationOf = (resource: Resource): unknown => getIn(resource, ANNOTATION_PATH);

/** Whether `resource` carries the annotation at all (most do not: then there is nothing to check). */
export const declaresDependencies = (resource: Resource): boolean => annotationOf(resource) !== undefined;

/** The entries of the annotation (empty when absent), or the first malformed entry. */
const parse = (text: string): { readonly dependencies: ReadonlyArray<Dependency>; readonly malformed?: string } => {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const parsed = entries.map((entry) => {
    const parts = entry.split('/');
    const [group, kind, name] = parts.length === 2 ? ['', parts[0], parts[1]] : parts.length === 3 ? parts : [];
    return group === undefined || kind === undefined || name === undefined || kind === '' || name === ''
      ? entry
      : { group, kind, name };
  });
  const malformed = parsed.find((p): p is string => typeof p === 'string');
  return {
    dependencies: parsed.filter((p): p is Dependency => typeof p !== 'string'),
    ...defined({ malformed }),
  };
};

/** What `resource` depends on (malformed entries are left out: the spec check reports them). */
export const dependenciesOf = (resource: Resource): ReadonlyArray<Dependency> => {
  const text = annotationOf(resource);
  return typeof text === 'string' ? parse(text).dependencies : [];
};

/** Whether `candidate` is what `dependency`, written on `dependent`, names (same namespace, or cluster-scoped). */
export const names = (dependency: Dependency, dependent: Resource, candidate: Resource): boolean =>
  groupOf(candidate.apiVersion) === dependency.group &&
  candidate.kind === dependency.kind &&
  candidate.metadata.name === dependency.name &&
  (candidate.metadata.namespace === undefined || candidate.metadata.namespace === dependent.metadata.namespace);

/** The resources among `pool` that `dependent` depends on. */
export const dependenciesIn = (dependent: Resource, pool: ReadonlyArray<Resource>): ReadonlyArray<Resource> =>
  dependenciesOf(dependent).flatMap((dependency) =>
    pool.filter((candidate) => names(dependency, dependent, candidate)),
  );

/** The resources among `pool` that depend on `dependency`. */
export const dependentsIn = (dependency: Resource, pool: ReadonlyArray<Resource>): ReadonlyArray<Resource> =>
  pool.filter((dependent) => dependenciesOf(dependent).some((d) => names(d, dependent, dependency)));

const issuePath = (index: number): string => `spec.manifest[${index}].metadata.annotations["${DEPENDS_ON_ANNOTATION}"]`;

/** A cycle through `start`, as the refs along it (first = last), or undefined. */
const cycleFrom = (start: Resource, manifest: ReadonlyArray<Resource>): ReadonlyArray<Resource> | undefined => {
  const walk = (path: ReadonlyArray<Resource>, seen: ReadonlySet<string>): ReadonlyArray<Resource> | undefined => {
    const last = path.at(-1);
    if (last === undefined) return undefined;
    for (const next of dependenciesIn(last, manifest)) {
      if (next === start) return [...path, next];
      if (seen.has(refKey(refOf(next)))) continue;
      const found = walk([...path, next], new Set([...seen, refKey(refOf(next))]));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk([start], new Set([refKey(refOf(start))]));
};

const describe = (resource: Resource): string =>
  showDependency({ group: groupOf(resource.apiVersion), kind: resource.kind, name: resource.metadata.name });

/**
 * Every problem of the annotations of `manifest` (resources with their namespaces resolved):
 * malformed entries, references to no manifest resource, self-references and cycles (each
 * cycle reported once, at its first resource in manifest order, naming the whole cycle).
 */
export const dependencyIssues = (manifest: ReadonlyArray<Resource>): ReadonlyArray<Issue> => {
  const reported = new Set<string>();
  return manifest.flatMap((resource, index): ReadonlyArray<Issue> => {
    const text = annotationOf(resource);
    if (text === undefined) return [];
    if (typeof text !== 'string')
      return [
        { path: issuePath(index), message: 'must be a string of [group/]Kind/name references separated by commas' },
      ];
    const { dependencies, malformed } = parse(text);
    if (malformed !== undefined)
      return [
        {
          path: issuePath(index),
          message: `"${malformed}" is not a reference: write [group/]Kind/name, e.g. ConfigMap/settings or apps/Deployment/db`,
        },
      ];
    const dangling = dependencies.filter((d) => !manifest.some((candidate) => names(d, resource, candidate)));
    if (dangling.length > 0)
      return [
        {
          path: issuePath(index),
          message: `${dangling.map(showDependency).join(', ')}: not in spec.manifest (in this namespace); a resource can depend only on resources of the same Application`,
        },
      ];
    const cycle = cycleFrom(resource, manifest);
    if (cycle === undefined || cycle.some((r) => reported.has(refKey(refOf(r))))) return [];
    cycle.forEach((r) => reported.add(refKey(refOf(r))));
    return [
      {
        path: issuePath(index),
        message: `dependency cycle: ${cycle.map(describe).join(' → ')}: remove one of these dependencies`,
      },
    ];
  });
};

/** Why an action waits: `for` lists the objects it waits on. */
export type Hold = { readonly ref: ObjectRef; readonly for: ReadonlyArray<ObjectRef> };

/**
 * Creations whose dependencies are not all ready are held back (`ready` says whether a live
 * dependency is ready; one being created in the same plan is not).
 */
export const holdCreations = <A extends { readonly ref: ObjectRef; readonly body: Resource }>(
  creates: ReadonlyArray<A>,
  desired: ReadonlyArray<Resource>,
  ready: (ref: ObjectRef) => boolean,
): { readonly go: ReadonlyArray<A>; readonly held: ReadonlyArray<Hold> } => {
  const decided = creates.map((create) => ({
    create,
    waitingFor: dependenciesIn(create.body, desired)
      .map(refOf)
      .filter((ref) => !ready(ref)),
  }));
  return {
    go: decided.filter((d) => d.waitingFor.length === 0).map((d) => d.create),
    held: decided.filter((d) => d.waitingFor.length > 0).map((d) => ({ ref: d.create.ref, for: d.waitingFor })),
  };
};

/** Deletions of objects that a still-existing object (among `existing`) depends on are held back. */
export const holdDeletions = <A extends { readonly ref: ObjectRef }>(
  deletes: ReadonlyArray<A>,
  existing: ReadonlyArray<Resource>,
): { readonly go: ReadonlyArray<A>; readonly held: ReadonlyArray<Hold> } => {
  // Most plans delete nothing: then no object is indexed.
  if (deletes.length === 0) return { go: deletes, held: [] };
  const byKey = new Map(existing.map((object) => [refKey(refOf(object)), object]));
  const decided = deletes.map((action) => {
    const object = byKey.get(refKey(action.ref));
    return { action, waitingFor: object === undefined ? [] : dependentsIn(object, existing).map(refOf) };
  });
  return {
    go: decided.filter((d) => d.waitingFor.length === 0).map((d) => d.action),
    held: decided.filter((d) => d.waitingFor.length > 0).map((d) => ({ ref: d.action.ref, for: d.waitingFor })),
  };
};

/** `v1 ConfigMap ns/a (waits for apps/v1 Deployment ns/db)` for messages. */
export const showHold = (hold: Hold): string => `${showRef(hold.ref)} (waits for ${hold.for.map(showRef).join(', ')})`;

/** The wait actions of holds. */
export const waitActions = (holds: ReadonlyArray<Hold>, until: WaitAction['until']): ReadonlyArray<WaitAction> =>
  holds.map((hold) => ({ type: 'wait', ref: hold.ref, until, for: hold.for, changes: [] }));
