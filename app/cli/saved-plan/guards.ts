/**
 * Whether a saved plan still holds: every object it writes is as the plan saw it (same
 * resourceVersion, or still absent for creations) and its Application's spec is unchanged.
 * Checked before the first write; the per-write guards then cover races (see the executor).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  refKey,
  scopeKey,
  showClusterError,
  showRef,
  type ClusterReader,
  type Discovery,
  type ObjectRef,
  type Resource,
} from '../../../core/internal.js';
import { clusterFailure, type CliError } from '../cli-error.js';
import type { ResourceRefV1 } from '../render/plan-document.js';
import { actionOf } from './replay.js';
import type { GuardV1, SavedApplicationV1, SavedPlanV1 } from './format.js';
import { defined } from '../../../core/json/defined.js';

/** Why one saved write no longer holds, or `undefined` when it does. */
const moved = (guard: GuardV1, live: Resource | undefined): string | undefined => {
  if ('absent' in guard)
    return live === undefined
      ? undefined
      : `exists now (resourceVersion ${live.metadata.resourceVersion ?? '?'}), the plan would create it`;
  if (live === undefined) return `was deleted (the plan expected resourceVersion ${guard.resourceVersion})`;
  if (guard.uid !== undefined && live.metadata.uid !== guard.uid)
    return `was replaced by another object of the same name (uid ${guard.uid} → ${live.metadata.uid ?? '?'})`;
  return live.metadata.resourceVersion === guard.resourceVersion
    ? undefined
    : `changed (resourceVersion ${guard.resourceVersion} → ${live.metadata.resourceVersion ?? '?'})`;
};

const applicationMoved = (saved: SavedApplicationV1['application'], live: Resource | undefined): string | undefined => {
  if (live === undefined) return 'was deleted';
  if (live.metadata.uid !== saved.uid) return `was replaced (uid ${saved.uid} → ${live.metadata.uid ?? '?'})`;
  return live.metadata.generation === saved.generation
    ? undefined
    : `spec changed (generation ${saved.generation ?? '?'} → ${live.metadata.generation ?? '?'})`;
};

const applicationRef = (application: ResourceRefV1): ObjectRef => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  name: application.name,
  ...defined({ namespace: application.namespace }),
});

type Check = { readonly ref: ObjectRef; readonly why: (live: Resource | undefined) => string | undefined };

// An Application that was not in the cluster when planned (no uid) is not read: its kind may not even be served.
const checksOf = (saved: SavedPlanV1): ReadonlyArray<Check> =>
  saved.applications.flatMap((application) => [
    ...(application.application.uid === undefined
      ? []
      : [
          {
            ref: applicationRef(application.application),
            why: (live: Resource | undefined) => applicationMoved(application.application, live),
          },
        ]),
    ...application.actions.flatMap((action): ReadonlyArray<Check> =>
      !('guard' in action) ? [] : [{ ref: actionOf(action).ref, why: (live) => moved(action.guard, live) }],
    ),
  ]);

/**
 * The objects that moved since the plan was made, one line each (none: the plan still holds).
 * Errors: a read that fails (unreachable, forbidden, …), as one line.
 */
export const movedSincePlanned = async (
  reader: ClusterReader,
  saved: SavedPlanV1,
): Promise<E.Either<CliError, ReadonlyArray<string>>> => {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const check of checksOf(saved)) {
    if (seen.has(refKey(check.ref))) continue;
    seen.add(refKey(check.ref));
    const read = await reader.get(check.ref)();
    if (E.isLeft(read))
      return E.left(clusterFailure(`cannot check the plan against the cluster: ${showClusterError(read.left)}`));
    const why = check.why(O.toUndefined(read.right));
    if (why !== undefined) lines.push(`${showRef(check.ref)} ${why}`);
  }
  return E.right(lines);
};

/** The resourceVersion each guarded write expects, by `refKey` (what the executor enforces per write). */
export const guardsOf = (application: SavedApplicationV1): ReadonlyMap<string, string> =>
  new Map(
    application.actions.flatMap((action) =>
      !('guard' in action) || 'absent' in action.guard
        ? []
        : [[refKey(actionOf(action).ref), action.guard.resourceVersion] as const],
    ),
  );

/** Why the server's scope of `ref`'s kind does not fit the saved write, or `undefined` when it does. */
const scopeMismatch = (
  ref: ObjectRef,
  served: 'Namespaced' | 'Cluster',
  recorded: 'Namespaced' | 'Cluster' | undefined,
): string | undefined => {
  const key = scopeKey(ref.apiVersion, ref.kind).replace(/^\//, '');
  if (served === 'Cluster' && ref.namespace !== undefined)
    return `${key} is cluster-scoped on the server, the plan writes it in namespace ${ref.namespace}`;
  if (served === 'Namespaced' && ref.namespace === undefined)
    return `${key} is namespaced on the server, the plan writes it without a namespace`;
  return recorded !== undefined && recorded !== served
    ? `${key} is ${served} on the server, the plan was made believing it ${recorded}`
    : undefined;
};

/**
 * The saved writes whose kind the server (API discovery) scopes otherwise than the plan did, one
 * line each (none: every write goes where the plan said). The plan's scopes came from files a
 * tenant may write (`-f` CRDs): a kind planned as namespaced but served cluster-wide would slip
 * past the tenancy check (issue 19), so discovery, not the file, decides before the first write.
 * Errors: a discovery failure other than an unknown kind, as one line.
 */
export const scopeMismatches = async (
  discovery: Discovery,
  saved: SavedPlanV1,
): Promise<E.Either<CliError, ReadonlyArray<string>>> => {
  const served = new Map<string, E.Either<string, 'Namespaced' | 'Cluster'>>();
  const lines: string[] = [];
  for (const application of saved.applications)
    for (const action of application.actions) {
      if (!('guard' in action)) continue;
      const ref = actionOf(action).ref;
      const key = scopeKey(ref.apiVersion, ref.kind);
      if (!served.has(key)) {
        const found = await discovery.scopeOf(ref.apiVersion, ref.kind)();
        if (E.isLeft(found) && found.left._tag !== 'UnknownKind')
          return E.left(
            clusterFailure(`cannot check the plan's scopes with discovery: ${showClusterError(found.left)}`),
          );
        served.set(key, E.isLeft(found) ? E.left(`${ref.apiVersion} ${ref.kind} is not served`) : E.right(found.right));
      }
      const scope = served.get(key)!;
      const why = E.isLeft(scope) ? scope.left : scopeMismatch(ref, scope.right, saved.metadata.scopes[key]);
      if (why !== undefined) lines.push(`${showRef(ref)}: ${why}`);
    }
  return E.right(lines);
};
