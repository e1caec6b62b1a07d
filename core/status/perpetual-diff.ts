/**
 * Perpetual-diff guard (docs/behaviour.md §5, docs/decisions/0022-perpetual-diff.md): a patch the API
 * server accepted but did not keep — it answered with the resourceVersion the object already had (a
 * no-op write), or the answer still lacks what the patch set — and that the next plan wants to send
 * again, is a diff that never closes. The hot-loop guard cannot see it (nobody else wrote); after
 * `bound` such writes of the same patch the object is no longer written and the Application is
 * `Stalled` (PerpetualDiff), until its spec changes (a new generation).
 */
import { getOwn, isJsonArray, isJsonObject, jsonCovers, type JsonValue } from '../json/json.js';
import { fromPointer, showPath, type Path } from '../json/path.js';
import type { Application } from '../model/application.js';
import { refKey, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import type { JsonPatchOperation, PatchAction, Plan } from '../model/plan.js';
import { stalledConditions } from './conditions.js';
import type { ActionResult, LiveVersions } from './hot-loop.js';

/**
 * One patch that succeeded: which object, its operations' fingerprint, and which of its paths the server did not keep.
 */
export type WriteRecord = {
  readonly resource: string;
  readonly fingerprint: string;
  /** The Application's generation the patch was planned for: a new spec starts over. */
  readonly generation: number | undefined;
  /** The readable paths (`spec.minReadySeconds`) the answer lacks; empty when the server kept the write. */
  readonly dropped: ReadonlyArray<string>;
};

export type PerpetualDiffPolicy = {
  /** Writes of the same patch the server did not keep before the object is no longer written. */
  readonly bound: number;
  /** Records kept per Application (the oldest go first). */
  readonly keep: number;
};

export const defaultPerpetualDiffPolicy: PerpetualDiffPolicy = { bound: 3, keep: 64 };

/** A patch the server keeps not keeping: the object and the paths it drops. */
export type PerpetualDiff = { readonly ref: ObjectRef; readonly paths: ReadonlyArray<string> };

const fingerprintOf = (action: PatchAction): string => JSON.stringify(action.patch);

/** A pointer as a path: numeric tokens are list indexes. */
export const pathOfPointer = (pointer: string): Path =>
  fromPointer(pointer).map((token) => (/^(0|[1-9][0-9]{0,8})$/.test(token) ? Number(token) : token));

/** The value at an RFC 6901 pointer, reading list elements by index; undefined when missing. */
const valueAt = (value: JsonValue | undefined, pointer: string): JsonValue | undefined => {
  let current = value;
  for (const token of fromPointer(pointer)) {
    if (isJsonArray(current)) current = /^\d+$/.test(token) ? current[Number(token)] : undefined;
    else current = isJsonObject(current) ? getOwn(current, token) : undefined;
    if (current === undefined) return undefined;
  }
  return current;
};

/**
 * Whether the answer holds what one operation set: its value (server additions allowed), or nothing after a removal.
 */
const kept = (answer: Resource, operation: JsonPatchOperation): boolean => {
  // An append (`/-`) names no place to read back: counted as kept, never as a drop.
  if (operation.op === 'test' || operation.path.endsWith('/-')) return true;
  const found = valueAt(answer, operation.path);
  return operation.op === 'remove' ? found === undefined : jsonCovers(operation.value, found);
};

/**
 * The JSON pointers of `action` the server did not keep: all of them when it answered with the
 * version the plan was made against (it stored nothing), else those the answer lacks.
 */
export const droppedPointers = (
  action: PatchAction,
  answer: Resource,
  plannedAgainst: string | undefined,
): ReadonlyArray<string> => {
  const written = action.patch.filter((operation) => operation.op !== 'test');
  const unchanged = plannedAgainst !== undefined && answer.metadata.resourceVersion === plannedAgainst;
  const lost = unchanged ? written : written.filter((operation) => !kept(answer, operation));
  return [...new Set(lost.map((operation) => operation.path))];
};

/** {@link droppedPointers} as readable paths (`spec.minReadySeconds`). */
export const droppedPaths = (action: PatchAction, answer: Resource, plannedAgainst: string | undefined): string[] =>
  droppedPointers(action, answer, plannedAgainst).map((pointer) => showPath(pathOfPointer(pointer)));

/**
 * The history with the patches that succeeded (`done`) added, each with the paths the server did not
 * keep; records of another generation are dropped (a new spec starts over), and the oldest beyond `keep`.
 */
export const recordWrites = (
  history: ReadonlyArray<WriteRecord>,
  done: ReadonlyArray<ActionResult>,
  plannedAgainst: LiveVersions,
  generation: number | undefined,
  policy: PerpetualDiffPolicy = defaultPerpetualDiffPolicy,
): ReadonlyArray<WriteRecord> => {
  const added = done.flatMap(({ action, response }): ReadonlyArray<WriteRecord> => {
    if (action.type !== 'patch' || response === undefined) return [];
    const resource = refKey(action.ref);
    const dropped = droppedPaths(action, response, plannedAgainst.get(resource));
    return [{ resource, fingerprint: fingerprintOf(action), generation, dropped }];
  });
  return [...history.filter((record) => record.generation === generation), ...added].slice(-policy.keep);
};

/**
 * How many times in a row (newest first) the object's last writes were this same patch and the
 * server did not keep it; a write of the object the server kept, or another patch, ends the run.
 */
const droppedRun = (records: ReadonlyArray<WriteRecord>, fingerprint: string): ReadonlyArray<WriteRecord> => {
  const run: WriteRecord[] = [];
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index];
    if (record === undefined || record.fingerprint !== fingerprint || record.dropped.length === 0) break;
    run.push(record);
  }
  return run;
};

/**
 * The patches of `plan` that the server did not keep `bound` times in a row for this generation:
 * sending them again would only repeat the no-op write.
 */
export const perpetualDiffs = (
  history: ReadonlyArray<WriteRecord>,
  plan: Plan,
  generation: number | undefined,
  policy: PerpetualDiffPolicy = defaultPerpetualDiffPolicy,
): ReadonlyArray<PerpetualDiff> =>
  plan.actions.flatMap((action): ReadonlyArray<PerpetualDiff> => {
    if (action.type !== 'patch') return [];
    const resource = refKey(action.ref);
    const mine = history.filter((record) => record.resource === resource && record.generation === generation);
    const run = droppedRun(mine, fingerprintOf(action));
    if (run.length < policy.bound) return [];
    return [{ ref: action.ref, paths: run[0]?.dropped ?? [] }];
  });

/** At most this many objects, and paths per object, named in a message (the rest counted): a status stays small. */
const NAMED = 10;

const someOf = (items: ReadonlyArray<string>, separator: string): string =>
  items.length <= NAMED
    ? items.join(separator)
    : `${items.slice(0, NAMED).join(separator)}${separator}… and ${items.length - NAMED} more`;

/** The condition's message: the objects, their fields, the likely cause and what to do. */
export const perpetualDiffMessage = (diffs: ReadonlyArray<PerpetualDiff>, bound: number): string =>
  `the API server does not keep ${someOf(
    diffs.map((diff) => `${showRef(diff.ref)}: ${someOf(diff.paths, ', ')}`),
    '; ',
  )} (written ${bound} times, never kept; no longer written until the spec changes): the API server drops this value: ` +
  'a zero value of an omitempty field, a default, or a mutating admission; remove it from the manifest or from the observer schema';

/**
 * The plan to run: `plan` itself, or — when it would repeat a patch the server keeps not keeping —
 * `plan` without the patches of those objects, the Application `Stalled` (PerpetualDiff); it waits
 * for a change (a new spec) unless what is left still needs a requeue.
 */
export const guardPerpetualDiff = (args: {
  readonly history: ReadonlyArray<WriteRecord>;
  readonly plan: Plan;
  readonly application: Application;
  readonly now: number;
  readonly policy?: PerpetualDiffPolicy;
}): { readonly plan: Plan; readonly diffs: ReadonlyArray<PerpetualDiff> } => {
  const policy = args.policy ?? defaultPerpetualDiffPolicy;
  const { generation } = args.application.metadata;
  const diffs = perpetualDiffs(args.history, args.plan, generation, policy);
  if (diffs.length === 0) return { plan: args.plan, diffs };
  const stopped = new Set(diffs.map((diff) => refKey(diff.ref)));
  const actions = args.plan.actions.filter((action) => action.type !== 'patch' || !stopped.has(refKey(action.ref)));
  const removed = args.plan.actions.length - actions.length;
  const stalled: Plan = {
    actions,
    summary: { ...args.plan.summary, patch: args.plan.summary.patch - removed },
    status: {
      ...args.plan.status,
      conditions: stalledConditions(
        args.application,
        'PerpetualDiff',
        perpetualDiffMessage(diffs, policy.bound),
        args.now,
      ),
    },
    outcome: actions.length === 0 ? { _tag: 'AwaitChange' } : args.plan.outcome,
  };
  return { plan: stalled, diffs };
};
