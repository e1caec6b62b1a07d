/**
 * The perpetual-diff guard's pure functions (core/status/perpetual-diff.ts): which paths of a patch
 * the server did not keep, how writes are recorded, and when a plan that would repeat one is stalled.
 */
import { describe, expect, it } from 'vitest';
import {
  conditionOf,
  droppedPaths,
  guardPerpetualDiff,
  perpetualDiffMessage,
  perpetualDiffs,
  recordWrites,
  type Application,
  type JsonPatchOperation,
  type PatchAction,
  type Plan,
  type Resource,
  type WriteRecord,
} from '../../core/internal.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const key = 'apps/v1|Deployment|shop|web';

const patchOf = (...patch: ReadonlyArray<JsonPatchOperation>): PatchAction => ({
  type: 'patch',
  ref,
  patch,
  changes: patch.map((operation) => ({ path: operation.path })),
});

const answer = (resourceVersion: string, spec: Record<string, unknown>): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', resourceVersion, labels: { 'app.kubernetes.io/name': 'web' } },
  spec: spec as Resource['spec'],
});

const minReady: JsonPatchOperation = { op: 'add', path: '/spec/minReadySeconds', value: 0 };
const replicas: JsonPatchOperation = { op: 'replace', path: '/spec/replicas', value: 3 };

describe('droppedPaths: what of a patch the answer lacks', () => {
  const cases: ReadonlyArray<{
    readonly name: string;
    readonly patch: ReadonlyArray<JsonPatchOperation>;
    readonly answer: Resource;
    readonly plannedAgainst?: string;
    readonly dropped: ReadonlyArray<string>;
  }> = [
    {
      name: 'a no-op write (same resourceVersion): every path',
      patch: [minReady, replicas],
      answer: answer('7', { replicas: 3 }),
      plannedAgainst: '7',
      dropped: ['spec.minReadySeconds', 'spec.replicas'],
    },
    {
      name: 'a zero value dropped while another field was kept',
      patch: [minReady, replicas],
      answer: answer('8', { replicas: 3 }),
      plannedAgainst: '7',
      dropped: ['spec.minReadySeconds'],
    },
    {
      name: 'everything kept',
      patch: [minReady, replicas],
      answer: answer('8', { replicas: 3, minReadySeconds: 0 }),
      plannedAgainst: '7',
      dropped: [],
    },
    {
      name: 'an object value kept with server additions (defaults) is kept',
      patch: [{ op: 'add', path: '/spec/strategy', value: { type: 'RollingUpdate' } }],
      answer: answer('8', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } } }),
      plannedAgainst: '7',
      dropped: [],
    },
    {
      name: 'a value rewritten (a mutating admission overriding it)',
      patch: [{ op: 'replace', path: '/metadata/labels/app.kubernetes.io~1name', value: 'shop' }],
      answer: answer('8', {}),
      plannedAgainst: '7',
      dropped: ['metadata.labels["app.kubernetes.io/name"]'],
    },
    {
      name: 'a removal the answer still holds; list elements by index; tests and appends never count',
      patch: [
        { op: 'remove', path: '/metadata/labels/app.kubernetes.io~1name' },
        { op: 'test', path: '/spec/x', value: 1 },
        { op: 'add', path: '/spec/list/-', value: 1 },
        { op: 'replace', path: '/spec/list/0', value: 5 },
      ],
      answer: answer('8', { list: [4, 1] }),
      plannedAgainst: '7',
      dropped: ['metadata.labels["app.kubernetes.io/name"]', 'spec.list[0]'],
    },
    {
      name: 'no version planned against: only what the answer lacks',
      patch: [minReady],
      answer: answer('7', { minReadySeconds: 0 }),
      dropped: [],
    },
  ];
  for (const row of cases)
    it(row.name, () => {
      expect(droppedPaths(patchOf(...row.patch), row.answer, row.plannedAgainst)).toEqual(row.dropped);
    });
});

const planOf = (...actions: ReadonlyArray<PatchAction>): Plan => ({
  actions,
  status: { observedGeneration: 2 },
  outcome: { _tag: 'RequeueAfter', ms: 5_000, reason: 'Progressing' },
  summary: { create: 0, patch: actions.length, delete: 0, conflict: 0 },
});

const noOp = (action: PatchAction, version = '7') => [{ action, response: answer(version, {}) }];
const versions = new Map([[key, '7']]);

/** `times` writes of `action` answered unchanged, for generation 2. */
const dropped = (action: PatchAction, times: number): ReadonlyArray<WriteRecord> =>
  Array.from({ length: times }).reduce<ReadonlyArray<WriteRecord>>(
    (history) => recordWrites(history, noOp(action), versions, 2),
    [],
  );

describe('perpetualDiffs: a patch the server did not keep, needed again', () => {
  const write = patchOf(minReady);
  const cases: ReadonlyArray<{
    readonly name: string;
    readonly history: ReadonlyArray<WriteRecord>;
    readonly plan: Plan;
    readonly generation: number;
    readonly found: number;
  }> = [
    {
      name: 'two no-op writes: under the bound',
      history: dropped(write, 2),
      plan: planOf(write),
      generation: 2,
      found: 0,
    },
    {
      name: 'three no-op writes, needed again',
      history: dropped(write, 3),
      plan: planOf(write),
      generation: 2,
      found: 1,
    },
    {
      name: 'three, but the plan wants another patch',
      history: dropped(write, 3),
      plan: planOf(patchOf(replicas)),
      generation: 2,
      found: 0,
    },
    { name: 'three, but for an older spec', history: dropped(write, 3), plan: planOf(write), generation: 3, found: 0 },
    {
      name: 'a write the server kept in between starts the count over',
      history: recordWrites(
        recordWrites(
          dropped(write, 2),
          [{ action: write, response: answer('9', { minReadySeconds: 0 }) }],
          versions,
          2,
        ),
        noOp(write, '9'),
        new Map([[key, '9']]),
        2,
      ),
      plan: planOf(write),
      generation: 2,
      found: 0,
    },
  ];
  for (const row of cases)
    it(row.name, () => {
      expect(perpetualDiffs(row.history, row.plan, row.generation)).toHaveLength(row.found);
    });

  it('records of another generation are forgotten, and no more than `keep`', () => {
    const history = recordWrites(dropped(write, 3), noOp(write), versions, 3);
    expect(history.map((record) => record.generation)).toEqual([3]);
    expect(recordWrites(dropped(write, 3), noOp(write), versions, 2, { bound: 3, keep: 2 })).toHaveLength(2);
  });
});

describe('guardPerpetualDiff', () => {
  const application: Application = {
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'shop', namespace: 'shop', generation: 2 },
    spec: { manifest: [] },
  };
  const other: PatchAction = { ...patchOf(replicas), ref: { ...ref, name: 'api' } };

  it('removes the patches of the object, keeps the rest, and stalls naming object, path and cause', () => {
    const write = patchOf(minReady);
    const guarded = guardPerpetualDiff({ history: dropped(write, 3), plan: planOf(write, other), application, now: 0 });
    expect(guarded.plan.actions).toEqual([other]);
    expect(guarded.plan.summary.patch).toBe(1);
    expect(guarded.plan.outcome).toEqual({ _tag: 'RequeueAfter', ms: 5_000, reason: 'Progressing' });
    const stalled = conditionOf(guarded.plan.status.conditions, 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'PerpetualDiff', observedGeneration: 2 });
    expect(stalled?.message).toMatch(
      /^the API server does not keep apps\/v1 Deployment shop\/web: spec\.minReadySeconds \(written 3 times.*remove it from the manifest or from the observer schema$/,
    );
  });

  it('with nothing left to write, waits for a change (a new spec); the same plan when nothing repeats', () => {
    const write = patchOf(minReady);
    expect(
      guardPerpetualDiff({ history: dropped(write, 3), plan: planOf(write), application, now: 0 }).plan.outcome,
    ).toEqual({
      _tag: 'AwaitChange',
    });
    const plan = planOf(write);
    expect(guardPerpetualDiff({ history: dropped(write, 2), plan, application, now: 0 }).plan).toBe(plan);
  });
});

describe('perpetualDiffMessage', () => {
  it('names at most ten objects and ten paths each, counting the rest', () => {
    const paths = Array.from({ length: 12 }, (_, i) => `data.k${i}`);
    const diffs = Array.from({ length: 11 }, (_, i) => ({ ref: { ...ref, name: `web-${i}` }, paths }));
    const message = perpetualDiffMessage(diffs, 3);
    expect(message).toContain('shop/web-9: data.k0, data.k1');
    expect(message).toContain('data.k9, … and 2 more; ');
    expect(message).not.toContain('web-10');
    expect(message).toContain('; … and 1 more (written 3 times');
  });
});
