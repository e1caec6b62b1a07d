/**
 * The watcher state machine alone: inputs in, states and effects out — no cluster, no clock, no
 * promises. A list, then a watch from its version; bookmarks move the version; 410 Gone and an
 * unserved kind relist at once; other closes and failed lists back off with the policy's delays
 * (doubling to the cap, reset by an event); and, for any sequence of inputs a real source could
 * produce, never two lists or two watches at once and nothing after a stop.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  initialWatcher,
  step,
  type WatcherEffect,
  type WatcherInput,
  type WatcherPolicy,
  type WatcherState,
} from '../../../app/runtime/watcher.js';
import { clusterError, type ClusterError, type Resource } from '../../../core/internal.js';

const POLICY: WatcherPolicy = { minRetryMs: 1_000, maxRetryMs: 8_000, relistEveryMs: 0 };

const configMap = (name: string, resourceVersion: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion },
});
const error = (tag: ClusterError['_tag'], code: number): ClusterError => clusterError(tag, tag, { code });

/** Runs `inputs` from `state`; answers the last state and every effect, in order. */
const run = (
  inputs: ReadonlyArray<WatcherInput>,
  policy: WatcherPolicy = POLICY,
  state: WatcherState = initialWatcher(policy),
): { state: WatcherState; effects: WatcherEffect[] } => {
  const effects: WatcherEffect[] = [];
  for (const input of inputs) {
    const next = step(state, input, policy);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
};

const tags = (effects: ReadonlyArray<WatcherEffect>): string[] =>
  effects.map((effect) =>
    effect._tag === 'Watch'
      ? `Watch@${effect.resourceVersion}`
      : effect._tag === 'RetryAfter' || effect._tag === 'RelistAfter'
        ? `${effect._tag} ${effect.ms}`
        : effect._tag === 'ReportError'
          ? `ReportError ${effect.phase} ${effect.error._tag}`
          : effect._tag,
  );

const started = run([{ _tag: 'Start' }, { _tag: 'Listed', items: [configMap('a', '5')], resourceVersion: '7' }]);

describe('the watcher state machine', () => {
  it('lists, then watches from the list’s version; announces the list and that it synced once', () => {
    expect(tags(started.effects)).toEqual(['List', 'Replace', 'Synced', 'Watch@7']);
    expect(started.state).toEqual({ phase: { _tag: 'Watching', resourceVersion: '7' }, retryMs: 1_000, synced: true });
    // A second start changes nothing.
    expect(step(started.state, { _tag: 'Start' }, POLICY)).toEqual({ state: started.state, effects: [] });
  });

  it('hands watch events to the store and resumes from the newest version; a bookmark only moves the version', () => {
    const { state, effects } = run(
      [
        { _tag: 'Event', event: { type: 'MODIFIED', object: configMap('a', '9') } },
        { _tag: 'Event', event: { type: 'BOOKMARK', resourceVersion: '12' } },
      ],
      POLICY,
      started.state,
    );
    expect(tags(effects)).toEqual(['Apply']);
    expect(state.phase).toEqual({ _tag: 'Watching', resourceVersion: '12' });
    // A close after the bookmark resumes from it.
    const closed = run([{ _tag: 'WatchClosed', error: undefined }, { _tag: 'RetryDue' }], POLICY, state);
    expect(tags(closed.effects)).toEqual(['RetryAfter 1000', 'Watch@12']);
  });

  for (const [tag, code] of [
    ['Gone', 410],
    ['UnknownKind', 404],
    ['NotFound', 404],
  ] as const) {
    it(`relists at once when the watch closes with ${tag}, without a delay`, () => {
      const { state, effects } = run([{ _tag: 'WatchClosed', error: error(tag, code) }], POLICY, started.state);
      expect(tags(effects)).toEqual([`ReportError watch ${tag}`, 'List']);
      expect(state.phase).toEqual({ _tag: 'Listing' });
      // The relist is announced as a replacement; `Synced` is not said twice.
      const relisted = run([{ _tag: 'Listed', items: [], resourceVersion: '20' }], POLICY, state);
      expect(tags(relisted.effects)).toEqual(['Replace', 'Watch@20']);
    });
  }

  it('backs off on other closes with the policy’s delays: doubling to the cap, reset by an event', () => {
    const closeAndRetry: WatcherInput[] = [
      { _tag: 'WatchClosed', error: error('Unavailable', 503) },
      { _tag: 'RetryDue' },
    ];
    const { state, effects } = run(
      [...Array(5)].flatMap(() => closeAndRetry),
      POLICY,
      started.state,
    );
    expect(effects.flatMap((effect) => (effect._tag === 'RetryAfter' ? [effect.ms] : []))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000,
    ]);
    const reset = run(
      [{ _tag: 'Event', event: { type: 'ADDED', object: configMap('b', '30') } }, ...closeAndRetry],
      POLICY,
      state,
    );
    expect(tags(reset.effects)).toEqual(['Apply', 'ReportError watch Unavailable', 'RetryAfter 1000', 'Watch@30']);
  });

  it('retries a failed list after the delay; an unserved kind’s list also empties the store', () => {
    const failed = run([{ _tag: 'Start' }, { _tag: 'ListFailed', error: error('Unavailable', 503) }]);
    expect(tags(failed.effects)).toEqual(['List', 'ReportError list Unavailable', 'RetryAfter 1000']);
    expect(failed.state.synced).toBe(false);
    const unserved = run(
      [{ _tag: 'RetryDue' }, { _tag: 'ListFailed', error: error('UnknownKind', 404) }],
      POLICY,
      failed.state,
    );
    expect(tags(unserved.effects)).toEqual(['List', 'Replace', 'ReportError list UnknownKind', 'RetryAfter 2000']);
    expect(unserved.effects.find((effect) => effect._tag === 'Replace')).toEqual({ _tag: 'Replace', items: [] });
  });

  it('lists now when told the kind is served again: the pending retry is cancelled, the delay starts over', () => {
    const waiting = run([
      { _tag: 'Start' },
      ...[1, 2].flatMap((): WatcherInput[] => [
        { _tag: 'ListFailed', error: error('UnknownKind', 404) },
        { _tag: 'RetryDue' },
      ]),
    ]);
    expect(waiting.state.retryMs).toBe(4_000);
    // While a list is in flight it only resets the delay.
    const inFlight = step(waiting.state, { _tag: 'RelistNow' }, POLICY);
    expect(inFlight.effects).toEqual([]);
    expect(inFlight.state.retryMs).toBe(1_000);
    const retrying = run([{ _tag: 'ListFailed', error: error('UnknownKind', 404) }], POLICY, waiting.state);
    const now = step(retrying.state, { _tag: 'RelistNow' }, POLICY);
    expect(tags(now.effects)).toEqual(['CancelRetry', 'List']);
    expect(now.state.retryMs).toBe(1_000);
    // Not started: nothing to list again.
    expect(step(initialWatcher(POLICY), { _tag: 'RelistNow' }, POLICY).effects).toEqual([]);
  });

  it('relists periodically when the policy says so, dropping the watch; not while a list is in flight', () => {
    const policy = { ...POLICY, relistEveryMs: 60_000 };
    const { state, effects } = run(
      [{ _tag: 'Start' }, { _tag: 'Listed', items: [], resourceVersion: '3' }, { _tag: 'RelistDue' }],
      policy,
    );
    expect(tags(effects)).toEqual([
      'List',
      'Replace',
      'Synced',
      'Watch@3',
      'RelistAfter 60000',
      'StopWatch',
      'CancelRetry',
      'List',
    ]);
    expect(step(state, { _tag: 'RelistDue' }, policy).effects).toEqual([]);
  });

  it('stops for good: the watch and timers go, and no later input does anything', () => {
    const stopped = step(started.state, { _tag: 'Stop' }, POLICY);
    expect(tags(stopped.effects)).toEqual(['StopWatch', 'CancelRetry', 'CancelRelist']);
    const after = run(
      [
        { _tag: 'Start' },
        { _tag: 'RelistNow' },
        { _tag: 'Listed', items: [], resourceVersion: '1' },
        { _tag: 'WatchClosed', error: error('Gone', 410) },
        { _tag: 'RetryDue' },
        { _tag: 'RelistDue' },
      ],
      POLICY,
      stopped.state,
    );
    expect(after.effects).toEqual([]);
    expect(after.state).toEqual(stopped.state);
  });

  it('never has two lists or two watches at once, whatever a source answers and whenever timers fire', () => {
    /** What a source and timers can send, depending on what the driver has asked for. */
    const inputArb = fc.oneof(
      fc.constant<WatcherInput>({ _tag: 'Start' }),
      fc.constant<WatcherInput>({ _tag: 'Stop' }),
      fc.constant<WatcherInput>({ _tag: 'RelistNow' }),
      fc.constant<WatcherInput>({ _tag: 'RetryDue' }),
      fc.constant<WatcherInput>({ _tag: 'RelistDue' }),
      fc.nat(99).map((rv): WatcherInput => ({ _tag: 'Listed', items: [], resourceVersion: String(rv) })),
      fc
        .constantFrom('Gone', 'Unavailable', 'UnknownKind')
        .map((tag): WatcherInput => ({ _tag: 'ListFailed', error: error(tag, 0) })),
      fc
        .nat(99)
        .map((rv): WatcherInput => ({ _tag: 'Event', event: { type: 'ADDED', object: configMap('x', String(rv)) } })),
      fc
        .constantFrom(undefined, 'Gone', 'Unavailable')
        .map((tag): WatcherInput => ({ _tag: 'WatchClosed', error: tag === undefined ? undefined : error(tag, 0) })),
    );
    fc.assert(
      fc.property(fc.array(inputArb, { maxLength: 60 }), (inputs) => {
        let state = initialWatcher(POLICY);
        let listing = false;
        let watching = false;
        let retryPending = false;
        let stopped = false;
        for (const input of inputs) {
          // A real source answers only what was asked; a timer fires only when set.
          if ((input._tag === 'Listed' || input._tag === 'ListFailed') && !listing) continue;
          if ((input._tag === 'Event' || input._tag === 'WatchClosed') && !watching) continue;
          if (input._tag === 'RetryDue' && !retryPending) continue;
          if (input._tag === 'Listed' || input._tag === 'ListFailed') listing = false;
          if (input._tag === 'WatchClosed') watching = false;
          if (input._tag === 'RetryDue') retryPending = false;
          const next = step(state, input, POLICY);
          state = next.state;
          for (const effect of next.effects) {
            expect(stopped && effect._tag !== 'CancelRetry' && effect._tag !== 'CancelRelist').toBe(false);
            if (effect._tag === 'List') {
              expect(listing || watching).toBe(false);
              listing = true;
            }
            if (effect._tag === 'Watch') {
              expect(listing || watching).toBe(false);
              watching = true;
            }
            if (effect._tag === 'StopWatch') watching = false;
            if (effect._tag === 'RetryAfter') {
              expect(retryPending).toBe(false);
              expect(effect.ms).toBeGreaterThanOrEqual(POLICY.minRetryMs);
              expect(effect.ms).toBeLessThanOrEqual(POLICY.maxRetryMs);
              retryPending = true;
            }
            if (effect._tag === 'CancelRetry') retryPending = false;
          }
          if (input._tag === 'Stop') {
            stopped = true;
            expect(watching || retryPending).toBe(false);
          }
          // The phase says what is outstanding.
          expect(state.phase._tag === 'Listing').toBe(listing && !stopped);
          expect(state.phase._tag === 'Watching').toBe(watching);
        }
      }),
      { numRuns: 500 },
    );
  });
});
