/**
 * `plan --verify-converges`: the plan carried out offline on the in-memory API server (its
 * defaulting, canonical forms and type checks), planned again, and so on up to a bound. A plan
 * that is not empty once everything it asked for was stored means the manifest can never
 * converge: the server drops or rewrites what it sends (a perpetual diff, as each patch is sent
 * again every reconcile), or two plans undo each other (an oscillation). Both are reported with
 * the object, the field and the values of every round, before anything reaches a cluster.
 */
import { celEvaluator } from '../../../adapters/cel/cel-evaluator.js';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryCluster, type MemoryCluster, type MutatingAdmission } from '../../../adapters/memory/index.js';
import { ManualClock } from '../../../adapters/memory/clock/manual-clock.js';
import {
  conditionOf,
  droppedPointers,
  pathOfPointer,
  showClusterError,
  showPath,
  showRef,
  withKey,
  withoutKey,
  type Action,
  type FieldChange,
  type ObjectRef,
  type Path,
  type PlanOptions,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../../core/internal.js';
import { applicationCrd } from '../../manifests/crd.js';
import { drive } from '../../testing/drive.js';
import { reconcileAllApplications } from '../../testing/reconcile-all.js';
import type { ActionResult } from '../../executor/execute.js';
import type { ReconcileResult } from '../../reconcile/reconcile-application.js';
import { defined } from '../../../core/json/defined.js';

/** Rounds of plan-and-apply before a manifest that still writes is declared not converging. */
export const DEFAULT_CONVERGENCE_ROUNDS = 6;

/** One write a round sent, as the plan described it. */
export type RoundWrite = {
  readonly type: 'create' | 'patch' | 'recreate' | 'delete';
  readonly object: string;
  readonly changes: ReadonlyArray<FieldChange>;
  /** The object written (to find its manifest field). */
  readonly ref?: ObjectRef;
  /** A patch's answer: the object's resourceVersion after it, and the pointers it set that the answer lacks. */
  readonly answer?: { readonly resourceVersion?: string; readonly dropped: ReadonlyArray<string> };
};

/**
 * A patch sent again the round after the server did not keep it: the object, its fields, and whether the object changed
 * at all.
 */
export type PerpetualWrite = {
  readonly object: string;
  readonly ref?: ObjectRef;
  /** JSON pointers the server did not keep. */
  readonly dropped: ReadonlyArray<string>;
  /** The resourceVersion the write came back with, when it did not move from the round before (a no-op write). */
  readonly unchangedVersion?: string;
};

/** Where a field of an object of the manifest is written (`app.yaml:14:9`), when it comes from a file. */
export type ManifestLocator = (ref: ObjectRef, path: Path) => string | undefined;

export type Round = { readonly number: number; readonly writes: ReadonlyArray<RoundWrite> };

export type Convergence =
  /** A round sent no write (and nothing waits): `rounds` is how many rounds wrote before it. */
  | { readonly _tag: 'Converges'; readonly rounds: number }
  /** The same writes every round from `since` on: the server never keeps what they set. */
  | { readonly _tag: 'Perpetual'; readonly since: number; readonly rounds: ReadonlyArray<Round> }
  /** The writes repeat with a period of more than one round: plans undo each other. */
  | { readonly _tag: 'Oscillates'; readonly period: number; readonly rounds: ReadonlyArray<Round> }
  /** Still writing, differently each round, after the bound. */
  | { readonly _tag: 'NotConverged'; readonly rounds: ReadonlyArray<Round> }
  /** The in-memory API server refused a write: the real one would too. */
  | { readonly _tag: 'Refused'; readonly round: number; readonly message: string };

const WRITE_TYPES: ReadonlySet<Action['type']> = new Set(['create', 'patch', 'recreate', 'delete']);

const writeOf = ({ action, response }: ActionResult): ReadonlyArray<RoundWrite> => {
  if (action.type === 'patch' && response !== undefined) {
    const { resourceVersion } = response.metadata;
    const dropped = droppedPointers(action, response, undefined);
    const answer = resourceVersion === undefined ? { dropped } : { resourceVersion, dropped };
    return [{ type: action.type, object: showRef(action.ref), changes: action.changes, ref: action.ref, answer }];
  }
  return action.type === 'create' || action.type === 'patch' || action.type === 'recreate' || action.type === 'delete'
    ? [{ type: action.type, object: showRef(action.ref), changes: action.changes }]
    : [];
};

/** What a round's writes are, for comparing rounds: the same object, field and values (not the answers). */
const fingerprint = (writes: ReadonlyArray<RoundWrite>): string =>
  JSON.stringify(writes.map(({ type, object, changes }) => [type, object, changes]));

/** The same write (object, field and values) in another round. */
const sameWrite = (a: RoundWrite, b: RoundWrite): boolean => fingerprint([a]) === fingerprint([b]);

/**
 * The patches of the last round that the round before sent too, and whose answer lacks what they
 * set: the perpetual diffs, each with the version it came back with when that did not move.
 */
export const perpetualWrites = (rounds: ReadonlyArray<Round>): ReadonlyArray<PerpetualWrite> => {
  const [before, last] = rounds.slice(-2);
  if (before === undefined || last === undefined) return [];
  return last.writes.flatMap((write): ReadonlyArray<PerpetualWrite> => {
    const earlier = before.writes.find((candidate) => sameWrite(candidate, write));
    if (earlier === undefined || write.answer === undefined || write.answer.dropped.length === 0) return [];
    const version = write.answer.resourceVersion;
    const unchanged = version !== undefined && earlier.answer?.resourceVersion === version;
    return [
      {
        object: write.object,
        dropped: write.answer.dropped,
        ...defined({ ref: write.ref }),
        ...(unchanged ? { unchangedVersion: version } : {}),
      },
    ];
  });
};

/**
 * The verdict on the rounds so far, or `undefined` to go on. Pure: the rounds are all it needs.
 * Round 1 carries out the plan; from round 2 on a round that writes is suspect, and one that
 * writes exactly as an earlier round (from round 2 on) is a cycle.
 */
export const verdictOf = (rounds: ReadonlyArray<Round>, waiting: boolean, bound: number): Convergence | undefined => {
  const last = rounds[rounds.length - 1];
  if (last === undefined) return undefined;
  if (last.writes.length === 0 && !waiting) return { _tag: 'Converges', rounds: rounds.length - 1 };
  if (last.writes.length > 0 && last.number >= 2) {
    const seen = rounds.slice(1, -1).findLastIndex((round) => fingerprint(round.writes) === fingerprint(last.writes));
    if (seen >= 0) {
      const period = rounds.length - 2 - seen;
      const cycle = rounds.slice(seen + 1);
      return period === 1
        ? { _tag: 'Perpetual', since: cycle[0]?.number ?? last.number, rounds: cycle }
        : { _tag: 'Oscillates', period, rounds: cycle };
    }
  }
  if (rounds.length < bound) return undefined;
  return last.writes.length === 0 ? { _tag: 'Converges', rounds: rounds.length - 1 } : { _tag: 'NotConverged', rounds };
};

const SERVER_FIELDS = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'] as const;

/** An object of a snapshot as a user would create it again (the server assigns its own identity fields). */
const asNew = (object: Resource): Resource => {
  const metadata = SERVER_FIELDS.reduce((meta, key) => withoutKey(meta, key), object.metadata);
  return withKey(object, 'metadata', metadata);
};

const namespaceOf = (object: Resource): string | undefined => object.metadata.namespace;

/** An in-memory cluster holding the Application CRD, the CRDs, the namespaces and the snapshot's objects. */
const seededCluster = async (args: {
  readonly clock: ManualClock;
  readonly crds: ReadonlyArray<Resource>;
  readonly objects: ReadonlyArray<Resource>;
  readonly applications: ReadonlyArray<Resource>;
  readonly namespaces: ReadonlyArray<string>;
  readonly admission?: ReadonlyArray<MutatingAdmission>;
}): Promise<E.Either<string, MemoryCluster>> => {
  const cluster = createMemoryCluster({
    clock: args.clock,
    seed: 1,
    workloads: true,
    ...defined({ admission: args.admission }),
  });
  const namespaces = new Set(['default', ...args.namespaces, ...args.objects.flatMap((o) => namespaceOf(o) ?? [])]);
  const namespaceObjects = [...namespaces].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const seeds = [applicationCrd(), ...args.crds, ...namespaceObjects, ...args.objects.map(asNew), ...args.applications];
  for (const seed of seeds) {
    const created = await drive(args.clock, cluster.create(seed)());
    if (E.isLeft(created) && created.left._tag !== 'AlreadyExists')
      return E.left(`cannot load ${showRef({ ...seed, ...seed.metadata })}: ${showClusterError(created.left)}`);
  }
  await drive(args.clock, cluster.settle());
  return E.right(cluster);
};

/** An Application as the user would create it (no server fields, no status: the reconcile writes it). */
const applicationToCreate = (application: Resource): Resource => {
  const { status: _status, ...rest } = application;
  return asNew({ ...rest, metadata: { ...application.metadata, namespace: namespaceOf(application) ?? 'default' } });
};

const roundOf = (number: number, results: ReadonlyArray<ReconcileResult>): E.Either<string, Round> => {
  const writes: RoundWrite[] = [];
  for (const result of results) {
    if (result._tag === 'Gone') continue;
    writes.push(...(result.execution?.done ?? []).flatMap(writeOf));
    if (result._tag === 'Failed' && result.execution?.failure !== undefined) {
      const { action, error } = result.execution.failure;
      if (WRITE_TYPES.has(action.type))
        return E.left(`${action.type} ${showRef(action.ref)} was refused: ${showClusterError(error)}`);
    }
  }
  return E.right({ number, writes });
};

/**
 * Whether some Application still waits (dependencies, `spec.dependsOn` or readiness): a quiet round then is no verdict
 * yet.
 */
const stillWaiting = (results: ReadonlyArray<ReconcileResult>): boolean =>
  results.some(
    (result) =>
      result._tag === 'Done' &&
      (result.plan.actions.some((action) => action.type === 'wait') ||
        conditionOf(result.status.conditions, 'Reconciling')?.reason === 'DependencyNotReady'),
  );

/**
 * Carries out the plans of `applications` on an in-memory cluster loaded with `objects` (a
 * snapshot, or nothing), round after round, until a round sends no write or `bound` rounds.
 * Errors: the cluster cannot be loaded (an object of the snapshot the memory server refuses).
 */
export const verifyConvergence = async (args: {
  readonly applications: ReadonlyArray<Resource>;
  readonly crds: ReadonlyArray<Resource>;
  readonly objects: ReadonlyArray<Resource>;
  readonly scopes: ScopeTable;
  readonly tenancy?: TenancyPolicy;
  readonly bound?: number;
  /** Mutating admission on the in-memory server (tests: a server that rewrites what it is sent). */
  readonly admission?: ReadonlyArray<MutatingAdmission>;
}): Promise<E.Either<string, Convergence>> => {
  const bound = args.bound ?? DEFAULT_CONVERGENCE_ROUNDS;
  const clock = new ManualClock();
  const applications = args.applications.map(applicationToCreate);
  const seeded = await seededCluster({
    clock,
    crds: args.crds,
    objects: args.objects.filter((object) => !isApplicationLike(object)),
    applications,
    namespaces: applications.flatMap((a) => namespaceOf(a) ?? []),
    ...defined({ admission: args.admission }),
  });
  if (E.isLeft(seeded)) return seeded;
  const cluster = seeded.right;
  const options: PlanOptions = {
    expressions: celEvaluator,
    ...defined({ tenancy: args.tenancy }),
  };
  const rounds: Round[] = [];
  for (let number = 1; ; number++) {
    const results = await drive(clock, reconcileAllApplications(cluster, clock, args.scopes, options));
    const round = roundOf(number, results);
    if (E.isLeft(round)) return E.right({ _tag: 'Refused', round: number, message: round.left });
    rounds.push(round.right);
    // The time a requeue asks for: workload controllers roll out, waits come due.
    await clock.advance(1_000);
    await drive(clock, cluster.settle());
    const verdict = verdictOf(rounds, stillWaiting(results), bound);
    if (verdict !== undefined) return E.right(verdict);
  }
};

const isApplicationLike = (object: Resource): boolean =>
  object.kind === 'Application' && object.apiVersion.startsWith('kreconcile.io/');

const shown = (value: unknown): string => (value === undefined ? '(absent)' : JSON.stringify(value));

/** `spec.replicas: 3 → 5` lines of one round. */
const roundLines = (round: Round): ReadonlyArray<string> =>
  round.writes.flatMap((write) => {
    const head = `  round ${round.number}: ${write.type} ${write.object}`;
    if (write.changes.length === 0) return [head];
    return write.changes.map((change) => `${head}: ${change.path}: ${shown(change.from)} → ${shown(change.to)}`);
  });

/** The likely cause of a perpetual diff and what to do, as the operator's `Stalled PerpetualDiff` says it. */
const PERPETUAL_CAUSE =
  'the API server drops this value: a zero value of an omitempty field, a default, or a mutating admission; remove it from the manifest or from the observer schema';

/**
 * `perpetual diff: <object>: <path> (<file:line:col>): <what came back>: <cause>` per field the server does not keep.
 */
const perpetualLines = (rounds: ReadonlyArray<Round>, locate?: ManifestLocator): ReadonlyArray<string> =>
  perpetualWrites(rounds).flatMap((write) =>
    write.dropped.map((pointer) => {
      const path = pathOfPointer(pointer);
      const where = write.ref === undefined ? undefined : locate?.(write.ref, path);
      const answered =
        write.unchangedVersion === undefined
          ? 'the answer lacks what was written'
          : `answered with resourceVersion ${write.unchangedVersion} unchanged`;
      return `  perpetual diff: ${write.object}: ${showPath(path)}${where === undefined ? '' : ` (${where})`}: ${answered}: ${PERPETUAL_CAUSE}`;
    }),
  );

/**
 * The report of a verdict: one line when it converges; otherwise what happens, then every
 * round's object, field and values, and for a write the server does not keep, the manifest field
 * (file:line when `locate` knows it) and the likely cause (the CLI prints them on stderr with the
 * exit code of a plan that does not converge).
 */
export const describeConvergence = (verdict: Convergence, locate?: ManifestLocator): ReadonlyArray<string> => {
  switch (verdict._tag) {
    case 'Converges':
      return [
        `converges: the plan, carried out on the in-memory API server, leaves nothing to do (${verdict.rounds} round(s) of writes)`,
      ];
    case 'Perpetual':
      return [
        `does not converge: from round ${verdict.since} on, every plan sends the same writes again (the API server drops or rewrites what they set: write the value as the server stores it, or remove the field)`,
        ...verdict.rounds.flatMap(roundLines),
        ...perpetualLines(verdict.rounds, locate),
      ];
    case 'Oscillates':
      return [
        `does not converge: the plans oscillate with a period of ${verdict.period} rounds (each undoes what an earlier one wrote)`,
        ...verdict.rounds.flatMap(roundLines),
      ];
    case 'NotConverged':
      return [
        `does not converge: still writing after ${verdict.rounds.length} rounds`,
        ...verdict.rounds.flatMap(roundLines),
        ...perpetualLines(verdict.rounds, locate),
      ];
    case 'Refused':
      return [
        `cannot verify convergence: in round ${verdict.round} the in-memory API server refused a write: ${verdict.message}`,
      ];
  }
};

/** Whether a verdict fails `--verify-converges`. */
export const converges = (verdict: Convergence): boolean => verdict._tag === 'Converges';

/**
 * The same check on a running operator (`run --memory`): the writes of each Application's
 * successive reconciles, by key. Answers the report once, when the reconciles of one Application
 * start to repeat their writes (the API server keeps dropping or rewriting what they set), and
 * nothing otherwise. The caller owns the state: one tracker per run.
 */
export const convergenceTracker = (): ((key: string, result: ReconcileResult) => ReadonlyArray<string>) => {
  const history = new Map<string, Round[]>();
  const reported = new Set<string>();
  return (key, result) => {
    if (result._tag === 'Gone' || reported.has(key)) return [];
    const rounds = history.get(key) ?? [];
    const writes = (result.execution?.done ?? []).flatMap(writeOf);
    // Only the latest rounds matter for a cycle; a quiet reconcile starts over.
    const kept = writes.length === 0 ? [] : [...rounds, { number: rounds.length + 1, writes }].slice(-8);
    history.set(key, kept);
    const verdict = kept.length >= 3 ? verdictOf(kept, true, Number.POSITIVE_INFINITY) : undefined;
    if (verdict === undefined || verdict._tag === 'Converges') return [];
    reported.add(key);
    return describeConvergence(verdict).map((line, i) => (i === 0 ? `Application ${key} ${line}` : line));
  };
};
