/** kstatus conditions (`Ready`, `Reconciling`, `Stalled`): `lastTransitionTime` moves only on a status change. */
import type { Condition, ConditionStatus, ConditionType } from '../model/application.js';
import { hasOwn } from '../json/json.js';
import { capMessage } from './message-cap.js';
import { defined } from '../json/defined.js';

export type StalledReason =
  | 'InvalidSpec'
  | 'InvalidObserverSchema'
  | 'NotOwned'
  | 'Forbidden'
  | 'GuardDenied'
  | 'HotLoop'
  | 'PerpetualDiff'
  | 'InvalidTosca'
  | 'UnknownKind'
  | 'ImmutableField'
  | 'ServiceAccountRequired'
  | 'Conflict'
  | 'ReadinessFailed'
  | 'DependencyCycle'
  | 'DependencyForbidden'
  /** The Application or a child cannot be stored (etcd's and kube-apiserver's size limits): nothing is written. */
  | 'TooLarge';

/** What a reconcile concluded, before it becomes conditions. */
export type Verdict =
  | { readonly _tag: 'Ready'; readonly message: string }
  | { readonly _tag: 'Progressing'; readonly reason: string; readonly message: string }
  | { readonly _tag: 'Stalled'; readonly reason: StalledReason; readonly message: string }
  | { readonly _tag: 'Suspended'; readonly message: string };

type Wanted = { readonly status: ConditionStatus; readonly reason: string; readonly message: string };

const wantedConditions = (verdict: Verdict): Readonly<Record<ConditionType, Wanted>> => {
  switch (verdict._tag) {
    case 'Ready':
      return {
        Ready: { status: 'True', reason: 'Reconciled', message: verdict.message },
        Reconciling: { status: 'False', reason: 'Reconciled', message: '' },
        Stalled: { status: 'False', reason: 'Reconciled', message: '' },
      };
    case 'Progressing':
      return {
        Ready: { status: 'False', reason: verdict.reason, message: verdict.message },
        Reconciling: { status: 'True', reason: verdict.reason, message: verdict.message },
        Stalled: { status: 'False', reason: verdict.reason, message: '' },
      };
    case 'Suspended':
      return {
        Ready: { status: 'False', reason: 'Suspended', message: verdict.message },
        Reconciling: { status: 'False', reason: 'Suspended', message: '' },
        Stalled: { status: 'False', reason: 'Suspended', message: '' },
      };
    case 'Stalled':
      return {
        Ready: { status: 'False', reason: verdict.reason, message: verdict.message },
        Reconciling: { status: 'False', reason: verdict.reason, message: '' },
        Stalled: { status: 'True', reason: verdict.reason, message: verdict.message },
      };
  }
};

const ORDER: ReadonlyArray<ConditionType> = ['Ready', 'Reconciling', 'Stalled'];

/** The conditions for a verdict, keeping each `lastTransitionTime` unless its status changed. */
export const conditionsFor = (args: {
  readonly verdict: Verdict;
  readonly previous: ReadonlyArray<Condition> | undefined;
  readonly now: string;
  readonly generation: number | undefined;
}): ReadonlyArray<Condition> => {
  // Every message is bounded here, the one place conditions are built (message-cap.ts).
  const message = capMessage(args.verdict.message);
  const wanted = wantedConditions(message === args.verdict.message ? args.verdict : { ...args.verdict, message });
  // Unchanged conditions are the previous ones themselves: a status that did not change keeps its
  // identity, so comparing it with the stored one (before every status write) is one `===`.
  if (args.previous !== undefined && unchanged(args.previous, wanted, args.generation)) return args.previous;
  return ORDER.map((type) => {
    const before = args.previous?.find((condition) => condition.type === type);
    const next = wanted[type];
    return {
      type,
      status: next.status,
      reason: next.reason,
      message: next.message,
      lastTransitionTime: before !== undefined && before.status === next.status ? before.lastTransitionTime : args.now,
      ...defined({ observedGeneration: args.generation }),
    };
  });
};

/** The conditions of an Application a runtime guard stalls (`HotLoop`, `PerpetualDiff`) at `now` (ms). */
export const stalledConditions = (
  application: {
    readonly metadata: { readonly generation?: number };
    readonly status?: { readonly conditions?: ReadonlyArray<Condition> };
  },
  reason: StalledReason,
  message: string,
  now: number,
): ReadonlyArray<Condition> =>
  conditionsFor({
    verdict: { _tag: 'Stalled', reason, message },
    previous: application.status?.conditions,
    now: new Date(now).toISOString(),
    generation: application.metadata.generation,
  });

/**
 * Whether `previous` is what `conditionsFor` would build from `wanted`: the same conditions in `ORDER`,
 * each with the same fields and nothing else. In any key order: the API server stores a custom
 * resource's keys sorted, so conditions read back from it never have the order they were built in,
 * and a resync on a real cluster would rebuild (and compare, and keep) every Application's conditions.
 */
const unchanged = (
  previous: ReadonlyArray<Condition>,
  wanted: Readonly<Record<ConditionType, Wanted>>,
  generation: number | undefined,
): boolean =>
  previous.length === ORDER.length &&
  ORDER.every((type, index) => {
    const before = previous[index];
    const next = wanted[type];
    return (
      before !== undefined &&
      before.type === type &&
      before.status === next.status &&
      before.reason === next.reason &&
      before.message === next.message &&
      before.observedGeneration === generation &&
      sameKeys(before, generation === undefined ? CONDITION_KEYS : CONDITION_KEYS_WITH_GENERATION)
    );
  });

const CONDITION_KEYS: ReadonlyArray<string> = ['type', 'status', 'reason', 'message', 'lastTransitionTime'];
const CONDITION_KEYS_WITH_GENERATION: ReadonlyArray<string> = [...CONDITION_KEYS, 'observedGeneration'];

/** Whether `object`'s own enumerable keys are `keys` (distinct), in any order. */
const sameKeys = (object: object, keys: ReadonlyArray<string>): boolean => {
  let count = 0;
  for (const key in object) {
    if (!hasOwn(object, key)) continue;
    if (!keys.includes(key)) return false;
    count++;
  }
  return count === keys.length;
};

/** The condition of a type, if present. */
export const conditionOf = (
  conditions: ReadonlyArray<Condition> | undefined,
  type: ConditionType,
): Condition | undefined => conditions?.find((condition) => condition.type === type);
