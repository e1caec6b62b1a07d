/**
 * What a plan is computed against: a recorded snapshot (`--snapshot`), the live cluster
 * (`--kubeconfig`/`--context`, read-only) or, with neither, an empty cluster.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Resource, TenancyPolicy } from '../../../core/internal.js';
import { clusterFailure, type CliError } from '../cli-error.js';
import { withDesiredManifest, type ApplicationInput } from '../input/applications.js';
import { loadEntries } from '../input/load.js';
import { EMPTY_SNAPSHOT, liveEntries, readSnapshot, type Snapshot } from '../input/snapshot.js';
import type { ClusterTarget, CliIo } from '../io.js';
import { collectLive } from '../live/collect.js';

/** What a plan was made against, as its header and the saved plan say (docs/plan-output.md `metadata.cluster`). */
export type ClusterBasis =
  | { readonly type: 'Empty' }
  | { readonly type: 'Snapshot'; readonly files: ReadonlyArray<string> }
  | { readonly type: 'Live'; readonly kubeconfigPath?: string; readonly context?: string };

export type ClusterView = { readonly snapshot: Snapshot; readonly basis: ClusterBasis };

export type ViewRequest = {
  readonly snapshots: ReadonlyArray<string>;
  readonly target?: ClusterTarget;
  /** The admin's tenancy policy (`--policy`): what it allows writing is read, in any namespace. */
  readonly tenancy?: TenancyPolicy;
};

/** How errors and snapshot entries name a live cluster. */
export const clusterName = (target: ClusterTarget): string =>
  `cluster${target.context === undefined ? '' : ` (context ${target.context})`}`;

/**
 * Reads the view a plan needs. Errors: unreadable or invalid snapshot files; a cluster that cannot
 * be reached or read.
 */
export const clusterView = async (
  io: CliIo,
  request: ViewRequest,
  applications: ReadonlyArray<ApplicationInput>,
  crds: ReadonlyArray<Resource>,
): Promise<E.Either<ReadonlyArray<CliError>, ClusterView>> => {
  if (request.target !== undefined) return liveView(io, request, request.target, applications, crds);
  if (request.snapshots.length === 0) return E.right({ snapshot: EMPTY_SNAPSHOT, basis: { type: 'Empty' } });
  const loaded = await loadEntries(io, request.snapshots);
  if (loaded.errors.length > 0) return E.left(loaded.errors);
  const snapshot = readSnapshot(loaded.entries);
  return E.isLeft(snapshot)
    ? snapshot
    : E.right({
        snapshot: snapshot.right,
        basis: { type: 'Snapshot', files: request.snapshots.map((s) => (s === '-' ? '<stdin>' : s)) },
      });
};

const liveView = async (
  io: CliIo,
  request: ViewRequest,
  target: ClusterTarget,
  applications: ReadonlyArray<ApplicationInput>,
  crds: ReadonlyArray<Resource>,
): Promise<E.Either<ReadonlyArray<CliError>, ClusterView>> => {
  const objects = await readLive(io, target, applications, crds, request.tenancy);
  if (E.isLeft(objects)) return E.left([objects.left]);
  const snapshot = readSnapshot(liveEntries(objects.right, clusterName(target)));
  return E.isLeft(snapshot) ? snapshot : E.right({ snapshot: snapshot.right, basis: { type: 'Live', ...target } });
};

/** The live objects concerning the Applications, or why they could not be read (one line). */
export const readLive = async (
  io: CliIo,
  target: ClusterTarget,
  applications: ReadonlyArray<ApplicationInput>,
  crds: ReadonlyArray<Resource>,
  tenancy?: TenancyPolicy,
): Promise<E.Either<CliError, ReadonlyArray<Resource>>> => {
  try {
    const reader = await io.connect(target);
    return await collectLive(reader, applications.map(withDesiredManifest), crds, tenancy);
  } catch (error) {
    return E.left(
      clusterFailure(
        `cannot read the ${clusterName(target)}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
};
