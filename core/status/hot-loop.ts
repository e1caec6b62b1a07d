/**
 * Hot-loop guard (SPEC section 5): when the same resource is patched with the same operations
 * again and again within a window, another actor is fighting us; stop and say where.
 */
import { refKey } from '../model/resource.js';
import type { Plan, PatchAction } from '../plan/types.js';

/** One patch we sent: which resource, a fingerprint of its operations, when (ms). */
export type PatchRecord = { readonly resource: string; readonly fingerprint: string; readonly at: number; readonly paths: ReadonlyArray<string> };

export type HotLoopPolicy = {
  /** How far back to look (ms). */
  readonly windowMs: number;
  /** How many identical patches within the window make a hot loop. */
  readonly threshold: number;
};

export const defaultHotLoopPolicy: HotLoopPolicy = { windowMs: 5 * 60_000, threshold: 5 };

const recordOf = (action: PatchAction, at: number): PatchRecord => ({
  resource: refKey(action.ref),
  fingerprint: JSON.stringify(action.patch),
  at,
  paths: action.changes.map((change) => change.path),
});

/** The history with this plan's patches added and records older than the window dropped. */
export const recordPatches = (history: ReadonlyArray<PatchRecord>, plan: Plan, now: number, policy: HotLoopPolicy = defaultHotLoopPolicy): ReadonlyArray<PatchRecord> => [
  ...history.filter((record) => now - record.at <= policy.windowMs),
  ...plan.actions.filter((action): action is PatchAction => action.type === 'patch').map((action) => recordOf(action, now)),
];

/**
 * The contested `resource: path` strings when executing `plan` would repeat a patch that was
 * already sent `threshold - 1` times within the window; empty when there is no hot loop.
 */
export const contestedPaths = (history: ReadonlyArray<PatchRecord>, plan: Plan, now: number, policy: HotLoopPolicy = defaultHotLoopPolicy): ReadonlyArray<string> =>
  plan.actions
    .filter((action): action is PatchAction => action.type === 'patch')
    .map((action) => recordOf(action, now))
    .filter((record) => history.filter((past) => now - past.at <= policy.windowMs && past.resource === record.resource && past.fingerprint === record.fingerprint).length + 1 >= policy.threshold)
    .flatMap((record) => record.paths.map((path) => `${record.resource.split('|').slice(1).filter(Boolean).join('/')}: ${path}`));
