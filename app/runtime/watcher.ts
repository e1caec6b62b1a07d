/**
 * The watcher of one kind as a pure state machine (after kube-runtime's `watcher`): list, then
 * watch from the list's resourceVersion; relist at once when the watch expires (410 Gone) or the
 * kind stops being served; otherwise re-watch (or list again) after a delay that doubles up to a
 * cap and starts over at any watch event. `step(state, input)` answers the next state and the
 * effects to carry out; the informer (informer.ts) does the I/O and owns the timers, the store
 * (store.ts) the objects. No I/O, no clock: every transition is tested with inputs alone.
 */
import type { ClusterError, Resource, WatchEvent } from '../../core/internal.js';

export type WatcherPolicy = {
  /** The first retry delay, and the delay again after any watch event. */
  readonly minRetryMs: number;
  /** The retry delay doubles up to this. */
  readonly maxRetryMs: number;
  /** Full relist this often (0 = never): turns events a watch lost without closing into events again. */
  readonly relistEveryMs: number;
};

export const defaultWatcherPolicy: WatcherPolicy = { minRetryMs: 1_000, maxRetryMs: 30_000, relistEveryMs: 0 };

/**
 * Where the watcher is:
 * - `Idle`: not started; nothing listed.
 * - `Listing`: a list is in flight (never two at once).
 * - `Watching`: a watch is open from `resourceVersion`.
 * - `Retrying`: waiting for the retry delay, then `next` (a list, or a watch resumed from `resourceVersion`).
 * - `Stopped`: for good; every input is ignored.
 */
export type WatcherPhase =
  | { readonly _tag: 'Idle' }
  | { readonly _tag: 'Listing' }
  | { readonly _tag: 'Watching'; readonly resourceVersion: string | undefined }
  | { readonly _tag: 'Retrying'; readonly next: 'list' }
  | { readonly _tag: 'Retrying'; readonly next: 'watch'; readonly resourceVersion: string | undefined }
  | { readonly _tag: 'Stopped' };

export type WatcherState = {
  readonly phase: WatcherPhase;
  /** The delay of the next retry. */
  readonly retryMs: number;
  /** The first list is in (it never turns false again). */
  readonly synced: boolean;
};

/** What happened: the driver's calls, the server's answers and the timers firing. */
export type WatcherInput =
  | { readonly _tag: 'Start' }
  | { readonly _tag: 'Stop' }
  /** List again now (the kind is served again): the watch or pending retry is dropped, the delay starts over. */
  | { readonly _tag: 'RelistNow' }
  | { readonly _tag: 'Listed'; readonly items: ReadonlyArray<Resource>; readonly resourceVersion: string | undefined }
  | { readonly _tag: 'ListFailed'; readonly error: ClusterError }
  | { readonly _tag: 'Event'; readonly event: WatchEvent }
  | { readonly _tag: 'WatchClosed'; readonly error: ClusterError | undefined }
  | { readonly _tag: 'RetryDue' }
  | { readonly _tag: 'RelistDue' };

/** What the driver does, in order. */
export type WatcherEffect =
  | { readonly _tag: 'List' }
  | { readonly _tag: 'Watch'; readonly resourceVersion: string | undefined }
  | { readonly _tag: 'StopWatch' }
  /** The store takes a fresh list, announcing the differences. */
  | { readonly _tag: 'Replace'; readonly items: ReadonlyArray<Resource> }
  /** The store takes one watch event (a bookmark never reaches it). */
  | { readonly _tag: 'Apply'; readonly event: Exclude<WatchEvent, { type: 'BOOKMARK' }> }
  | { readonly _tag: 'Synced' }
  | { readonly _tag: 'ReportError'; readonly error: ClusterError; readonly phase: 'list' | 'watch' }
  | { readonly _tag: 'RetryAfter'; readonly ms: number }
  | { readonly _tag: 'CancelRetry' }
  | { readonly _tag: 'RelistAfter'; readonly ms: number }
  | { readonly _tag: 'CancelRelist' };

export type WatcherStep = { readonly state: WatcherState; readonly effects: ReadonlyArray<WatcherEffect> };

export const initialWatcher = (policy: WatcherPolicy): WatcherState => ({
  phase: { _tag: 'Idle' },
  retryMs: policy.minRetryMs,
  synced: false,
});

/** Closes that mean "list again at once": the history is gone (410), or the kind is not served (any more). */
const relistsAtOnce = (error: ClusterError | undefined): boolean =>
  error?._tag === 'Gone' || error?._tag === 'UnknownKind' || error?._tag === 'NotFound';

const LIST: WatcherEffect = { _tag: 'List' };
const STOP_WATCH: WatcherEffect = { _tag: 'StopWatch' };
const CANCEL_RETRY: WatcherEffect = { _tag: 'CancelRetry' };
const CANCEL_RELIST: WatcherEffect = { _tag: 'CancelRelist' };

const stay = (state: WatcherState): WatcherStep => ({ state, effects: [] });

const listing = (state: WatcherState, effects: ReadonlyArray<WatcherEffect>): WatcherStep => ({
  state: { ...state, phase: { _tag: 'Listing' } },
  effects: [...effects, LIST],
});

/** Waits the current delay before `next`; the delay after that doubles, up to the cap. */
const retrying = (
  state: WatcherState,
  policy: WatcherPolicy,
  phase: Extract<WatcherPhase, { _tag: 'Retrying' }>,
  effects: ReadonlyArray<WatcherEffect>,
): WatcherStep => ({
  state: { ...state, phase, retryMs: Math.min(state.retryMs * 2, policy.maxRetryMs) },
  effects: [...effects, { _tag: 'RetryAfter', ms: state.retryMs }],
});

/**
 * The next state and effects of a watcher in `state` given `input`. Total: an input that does not apply changes
 * nothing.
 */
export const step = (state: WatcherState, input: WatcherInput, policy: WatcherPolicy): WatcherStep => {
  const { phase } = state;
  if (phase._tag === 'Stopped') return stay(state);
  switch (input._tag) {
    case 'Start':
      return phase._tag === 'Idle' ? listing(state, []) : stay(state);
    case 'Stop':
      return {
        state: { ...state, phase: { _tag: 'Stopped' } },
        effects: [...(phase._tag === 'Watching' ? [STOP_WATCH] : []), CANCEL_RETRY, CANCEL_RELIST],
      };
    case 'RelistNow':
      return relistNow(state, policy);
    case 'RelistDue':
      // A list in flight is as fresh; before the first list there is nothing to refresh.
      if (phase._tag === 'Listing' || phase._tag === 'Idle') return stay(state);
      return listing(state, [...(phase._tag === 'Watching' ? [STOP_WATCH] : []), CANCEL_RETRY]);
    case 'Listed':
      return phase._tag === 'Listing' ? listed(state, input, policy) : stay(state);
    case 'ListFailed':
      if (phase._tag !== 'Listing') return stay(state);
      // A kind the server does not serve (any more: its CRD was deleted) has no objects.
      return retrying(state, policy, { _tag: 'Retrying', next: 'list' }, [
        ...(input.error._tag === 'UnknownKind' ? [{ _tag: 'Replace', items: [] } as const] : []),
        { _tag: 'ReportError', error: input.error, phase: 'list' },
      ]);
    case 'Event':
      return phase._tag === 'Watching' ? watched(state, phase, input.event, policy) : stay(state);
    case 'WatchClosed':
      return phase._tag === 'Watching' ? watchClosed(state, phase, input.error, policy) : stay(state);
    case 'RetryDue':
      if (phase._tag !== 'Retrying') return stay(state);
      return phase.next === 'list'
        ? listing(state, [])
        : {
            state: { ...state, phase: { _tag: 'Watching', resourceVersion: phase.resourceVersion } },
            effects: [{ _tag: 'Watch', resourceVersion: phase.resourceVersion }],
          };
  }
};

const relistNow = (state: WatcherState, policy: WatcherPolicy): WatcherStep => {
  const { phase } = state;
  if (phase._tag === 'Idle') return stay(state);
  const fresh = { ...state, retryMs: policy.minRetryMs };
  // A list in flight is as fresh (if it fails, it retries after the delay just reset).
  if (phase._tag === 'Listing') return stay(fresh);
  return listing(fresh, [...(phase._tag === 'Watching' ? [STOP_WATCH] : []), CANCEL_RETRY]);
};

const listed = (
  state: WatcherState,
  input: Extract<WatcherInput, { _tag: 'Listed' }>,
  policy: WatcherPolicy,
): WatcherStep => ({
  state: { ...state, phase: { _tag: 'Watching', resourceVersion: input.resourceVersion }, synced: true },
  effects: [
    { _tag: 'Replace', items: input.items },
    ...(state.synced ? [] : [{ _tag: 'Synced' } as const]),
    { _tag: 'Watch', resourceVersion: input.resourceVersion },
    ...(policy.relistEveryMs > 0 ? [{ _tag: 'RelistAfter', ms: policy.relistEveryMs } as const] : []),
  ],
});

/** Any event shows the watch works: the retry delay starts over; the watch resumes from the newest version seen. */
const watched = (
  state: WatcherState,
  phase: Extract<WatcherPhase, { _tag: 'Watching' }>,
  event: WatchEvent,
  policy: WatcherPolicy,
): WatcherStep => {
  const resourceVersion =
    event.type === 'BOOKMARK'
      ? event.resourceVersion
      : (event.object.metadata.resourceVersion ?? phase.resourceVersion);
  return {
    state: { ...state, phase: { _tag: 'Watching', resourceVersion }, retryMs: policy.minRetryMs },
    effects: event.type === 'BOOKMARK' ? [] : [{ _tag: 'Apply', event }],
  };
};

/**
 * Too old a version, or the kind stopped being served (its CRD was deleted: the adapter asked
 * discovery again): relist at once, so the store learns its objects are gone and a kind that is
 * back is watched again from a fresh list (a failing list backs off by itself). Any other close
 * resumes the watch after the retry delay.
 */
const watchClosed = (
  state: WatcherState,
  phase: Extract<WatcherPhase, { _tag: 'Watching' }>,
  error: ClusterError | undefined,
  policy: WatcherPolicy,
): WatcherStep => {
  const reported: ReadonlyArray<WatcherEffect> =
    error === undefined ? [] : [{ _tag: 'ReportError', error, phase: 'watch' }];
  if (relistsAtOnce(error)) return listing(state, reported);
  return retrying(
    state,
    policy,
    phase.resourceVersion === undefined
      ? { _tag: 'Retrying', next: 'list' }
      : { _tag: 'Retrying', next: 'watch', resourceVersion: phase.resourceVersion },
    reported,
  );
};
