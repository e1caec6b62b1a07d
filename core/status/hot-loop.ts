/**
 * Hot-loop guard (docs/behaviour.md §5): when a patch that *succeeded* keeps being undone by someone
 * else — the same patch is needed again, and the object has a version we did not write — another
 * actor is fighting us; stop and say where. Patches that failed (errors, timeouts, an API server
 * restart) are never recorded, so retries cannot look like a fight.
 */
import { refKey, type Resource } from '../model/resource.js';
import type { Action, PatchAction, Plan } from '../model/plan.js';
import type { Application } from '../model/application.js';
import { stalledConditions } from './conditions.js';
import { defined } from '../json/defined.js';

/**
 * One patch that succeeded: which resource, a fingerprint of its operations, when (ms), the
 * object's version it was planned against and the version it wrote.
 */
export type PatchRecord = {
  readonly resource: string;
  readonly fingerprint: string;
  readonly at: number;
  readonly paths: ReadonlyArray<string>;
  readonly plannedAgainst?: string;
  readonly wrote?: string;
};

export type HotLoopPolicy = {
  /** How far back to look (ms). */
  readonly windowMs: number;
  /** A patch undone by someone else this many times minus one, and needed again, is a hot loop. */
  readonly threshold: number;
};

export const defaultHotLoopPolicy: HotLoopPolicy = { windowMs: 5 * 60_000, threshold: 5 };

/** An action that was carried out, with the server's answer when there was one. */
export type ActionResult = { readonly action: Action; readonly response?: Resource };

/** The resourceVersion of every live object, by `refKey`: what plans are made against. */
export type LiveVersions = ReadonlyMap<string, string>;

export const liveVersionsOf = (live: ReadonlyArray<Resource>): LiveVersions => {
  // A loop, not flatMap: every reconcile builds this for every live object it planned against.
  const versions = new Map<string, string>();
  for (const object of live) {
    const { namespace, name, resourceVersion } = object.metadata;
    if (resourceVersion !== undefined)
      versions.set(refKey({ apiVersion: object.apiVersion, kind: object.kind, namespace, name }), resourceVersion);
  }
  return versions;
};

const fingerprintOf = (action: PatchAction): string => JSON.stringify(action.patch);

const patchesOf = (plan: Plan): ReadonlyArray<PatchAction> =>
  plan.actions.filter((action): action is PatchAction => action.type === 'patch');

/**
 * The history with the patches that succeeded (`done`, in an execution) added, each with the
 * version it was planned against and the version its response carries; records older than the
 * window are dropped.
 */
export const recordPatches = (
  history: ReadonlyArray<PatchRecord>,
  done: ReadonlyArray<ActionResult>,
  plannedAgainst: LiveVersions,
  now: number,
  policy: HotLoopPolicy = defaultHotLoopPolicy,
): ReadonlyArray<PatchRecord> => [
  ...history.filter((record) => now - record.at <= policy.windowMs),
  ...done.flatMap(({ action, response }): ReadonlyArray<PatchRecord> => {
    if (action.type !== 'patch') return [];
    const resource = refKey(action.ref);
    const before = plannedAgainst.get(resource);
    const wrote = response?.metadata.resourceVersion;
    return [
      {
        resource,
        fingerprint: fingerprintOf(action),
        at: now,
        paths: action.changes.map((change) => change.path),
        ...defined({ plannedAgainst: before, wrote }),
      },
    ];
  }),
];

/**
 * How often the patch recorded in `records` (same resource and operations, oldest first) was undone
 * by someone else: each record whose successor — the next record, or `now` the plan at hand — was
 * planned against a version other than the one that record wrote.
 */
const undoneCount = (records: ReadonlyArray<PatchRecord>, currentVersion: string | undefined): number =>
  records.filter((record, index) => {
    const nextVersion = index + 1 < records.length ? records[index + 1]?.plannedAgainst : currentVersion;
    return record.wrote !== undefined && nextVersion !== undefined && nextVersion !== record.wrote;
  }).length;

/**
 * The contested `resource: path` strings when `plan` would repeat a patch that succeeded and was
 * undone by someone else `threshold - 1` times within the window; empty when there is no hot loop.
 */
export const contestedPaths = (
  history: ReadonlyArray<PatchRecord>,
  plan: Plan,
  live: LiveVersions,
  now: number,
  policy: HotLoopPolicy = defaultHotLoopPolicy,
): ReadonlyArray<string> =>
  patchesOf(plan).flatMap((action) => {
    const resource = refKey(action.ref);
    const fingerprint = fingerprintOf(action);
    const same = history.filter(
      (past) => now - past.at <= policy.windowMs && past.resource === resource && past.fingerprint === fingerprint,
    );
    if (undoneCount(same, live.get(resource)) + 1 < policy.threshold) return [];
    return action.changes.map((change) => `${resource.split('|').slice(1).filter(Boolean).join('/')}: ${change.path}`);
  });

/**
 * The plan to run: `plan` itself, or — when it would repeat a contested patch — a plan without
 * actions that marks the Application Stalled (HotLoop) and looks again after the window.
 */
export const guardHotLoop = (args: {
  readonly history: ReadonlyArray<PatchRecord>;
  readonly plan: Plan;
  readonly application: Application;
  readonly live: LiveVersions;
  readonly now: number;
  readonly policy?: HotLoopPolicy;
}): { readonly plan: Plan; readonly contested: ReadonlyArray<string> } => {
  const policy = args.policy ?? defaultHotLoopPolicy;
  const contested = contestedPaths(args.history, args.plan, args.live, args.now, policy);
  if (contested.length === 0) return { plan: args.plan, contested };
  const stalled: Plan = {
    actions: [],
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
    status: {
      ...args.plan.status,
      conditions: stalledConditions(
        args.application,
        'HotLoop',
        `another actor keeps changing ${contested.join(', ')}; stop it or stop observing these fields`,
        args.now,
      ),
    },
    outcome: { _tag: 'RequeueAfter', ms: policy.windowMs, reason: 'HotLoop' },
  };
  return { plan: stalled, contested };
};
