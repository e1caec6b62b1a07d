/** Protection annotations in the planner (core/plan/protection.ts): prune: disabled, apply: IfNotPresent and Ignore. */
import { describe, expect, it } from 'vitest';
import { conditionOf, plan, type Application, type Plan, type Resource } from '../../core/internal.js';
import { actionsOf, afterPlan, application, execute, scopes } from './fixtures.js';

const configMap = (name: string, annotations: Record<string, string> = {}, mode = 'a'): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, annotations },
  data: { mode },
});

const KEPT = configMap('kept', { 'kreconcile.io/prune': 'disabled' });

/**
 * Plans and executes until a plan writes nothing (skips only); returns the last plan, the Application and the live
 * objects.
 */
const converge = (app: Application, live: ReadonlyArray<Resource>, rounds = 5) => {
  let current = app;
  let objects = live;
  for (let i = 0; i < rounds; i++) {
    const planned = plan({ application: current, live: objects, scopes, now: 'now' });
    objects = execute(objects, planned.actions);
    current = afterPlan(current, planned);
    if (planned.actions.every((action) => action.type === 'skip')) return { planned, app: current, live: objects };
  }
  throw new Error('did not converge');
};

const withManifest = (app: Application, manifest: ReadonlyArray<Resource>): Application => ({
  ...app,
  spec: { ...app.spec, manifest },
});

const ready = (planned: Plan): boolean => conditionOf(planned.status.conditions, 'Ready')?.status === 'True';

describe('kreconcile.io/prune: disabled', () => {
  const first = converge(application({ manifest: [KEPT, configMap('other')] }), []);

  it('a child leaving the manifest is orphaned by a guarded patch removing only our marks, then left alone', () => {
    const app = withManifest(first.app, [configMap('other')]);
    const orphaning = plan({ application: app, live: first.live, scopes, now: 'now' });
    expect(actionsOf(orphaning, 'delete')).toEqual([]);
    const [patch] = actionsOf(orphaning, 'patch');
    expect(patch?.orphan).toBe('RemovedFromSpec');
    expect(patch?.patch).toEqual([
      { op: 'test', path: '/metadata/annotations/kreconcile.io~1owner', value: 'default/app' },
      { op: 'remove', path: '/metadata/annotations/kreconcile.io~1owner' },
      { op: 'test', path: '/metadata/labels/app.kubernetes.io~1managed-by', value: 'kreconcile' },
      { op: 'remove', path: '/metadata/labels/app.kubernetes.io~1managed-by' },
      { op: 'test', path: '/metadata/ownerReferences/0/uid', value: 'app-uid' },
      { op: 'remove', path: '/metadata/ownerReferences/0' },
    ]);
    const after = converge(app, first.live);
    const kept = after.live.find((object) => object.metadata.name === 'kept');
    expect(kept?.metadata.annotations).toEqual({ 'kreconcile.io/prune': 'disabled' });
    expect(kept?.metadata.ownerReferences).toEqual([]);
    expect(kept?.data).toEqual({ mode: 'a' });
    expect(ready(after.planned)).toBe(true);
  });

  it('when the Application is deleted the child is orphaned, the others deleted, then the finalizer released', () => {
    const deleting: Application = {
      ...first.app,
      metadata: { ...first.app.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' },
    };
    const planned = plan({ application: deleting, live: first.live, scopes, now: 'now' });
    expect(planned.actions.map((a) => [a.type, a.ref.name, a.type === 'patch' ? a.orphan : undefined])).toEqual([
      ['delete', 'other', undefined],
      ['patch', 'kept', 'ApplicationDeleted'],
    ]);
    const after = converge(deleting, first.live);
    expect(after.app.metadata.finalizers).toEqual([]);
    expect(after.live.map((object) => object.metadata.name)).toEqual(['kept']);
  });
});

describe('kreconcile.io/apply', () => {
  it('IfNotPresent: created when missing, another actor’s change is never patched, and the Application is Ready', () => {
    const seeded = configMap('seeded', { 'kreconcile.io/apply': 'IfNotPresent' });
    const first = converge(application({ manifest: [seeded] }), []);
    expect(first.live.map((object) => object.data)).toEqual([{ mode: 'a' }]);
    const drifted = first.live.map((object) => ({ ...object, data: { mode: 'theirs' } }));
    const planned = plan({ application: first.app, live: drifted, scopes, now: 'now' });
    // The withheld patch is in the plan as a skip entry with the drift it leaves, not as a write.
    expect(planned.actions).toEqual([
      {
        type: 'skip',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'seeded' },
        apply: 'IfNotPresent',
        withheld: 'patch',
        changes: [{ path: 'data.mode', from: 'theirs', to: 'a' }],
      },
    ]);
    expect(planned.summary).toEqual({ create: 0, patch: 0, delete: 0, conflict: 0, skip: 1 });
    expect(ready(planned)).toBe(true);
    // In sync, it says nothing: a skip shows only a write the annotation withholds.
    expect(plan({ application: first.app, live: first.live, scopes, now: 'now' }).actions).toEqual([]);
    // Without the annotation the same drift is corrected.
    const plain = converge(application({ manifest: [configMap('seeded')] }), []);
    const corrected = plan({
      application: plain.app,
      live: plain.live.map((object) => ({ ...object, data: { mode: 'theirs' } })),
      scopes,
      now: 'now',
    });
    expect(actionsOf(corrected, 'patch')).toHaveLength(1);
  });

  it('Ignore: never created', () => {
    const planned = plan({
      application: application({
        manifest: [configMap('ignored', { 'kreconcile.io/apply': 'Ignore' }), configMap('x')],
      }),
      live: [],
      scopes,
      now: 'now',
    });
    expect(actionsOf(planned, 'create').map((a) => a.ref.name)).toEqual(['x']);
    expect(actionsOf(planned, 'skip')).toEqual([
      {
        type: 'skip',
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'ignored' },
        apply: 'Ignore',
        withheld: 'create',
        changes: [],
      },
    ]);
    expect(planned.summary.skip).toBe(1);
  });

  it('Ignore on an existing child of ours: its drift is a skip entry (withheld patch), never a write', () => {
    const first = converge(application({ manifest: [configMap('ours'), configMap('x')] }), []);
    const ignoring = withManifest(first.app, [
      configMap('ours', { 'kreconcile.io/apply': 'Ignore' }, 'b'),
      configMap('x'),
    ]);
    const planned = plan({ application: ignoring, live: first.live, scopes, now: 'now' });
    expect(planned.actions.filter((a) => a.type !== 'addFinalizer').map((a) => [a.type, a.ref.name])).toEqual([
      ['skip', 'ours'],
    ]);
    const [skip] = actionsOf(planned, 'skip');
    expect(skip).toMatchObject({ apply: 'Ignore', withheld: 'patch' });
    expect(skip?.changes.map((change) => change.path)).toContain('data.mode');
  });
});

describe('kreconcile.io/apply on an object that exists and is not ours', () => {
  const theirs: Resource = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'shared', namespace: 'default', resourceVersion: '1' },
    data: { mode: 'theirs' },
  };

  it('IfNotPresent and Ignore leave it alone: a skip entry instead of a NotOwned conflict, and the Application is Ready', () => {
    for (const policy of ['IfNotPresent', 'Ignore'] as const) {
      const app = application({ manifest: [configMap('shared', { 'kreconcile.io/apply': policy })] });
      const planned = plan({ application: app, live: [theirs], scopes, now: 'now' });
      expect(actionsOf(planned, 'conflict')).toEqual([]);
      expect(actionsOf(planned, 'create')).toEqual([]);
      expect(actionsOf(planned, 'skip')).toEqual([
        {
          type: 'skip',
          ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'shared' },
          apply: policy,
          withheld: 'conflict',
          changes: [],
        },
      ]);
      expect(conditionOf(planned.status.conditions, 'Stalled')?.status).not.toBe('True');
      const after = converge(app, [theirs]);
      expect(ready(after.planned)).toBe(true);
      expect(after.live).toEqual([theirs]);
    }
    // Without the annotation the same object is a conflict: it is never taken over silently.
    const plain = plan({
      application: application({ manifest: [configMap('shared')] }),
      live: [theirs],
      scopes,
      now: 'now',
    });
    expect(actionsOf(plain, 'conflict')).toHaveLength(1);
  });
});

describe('spec.driftPolicy: Report', () => {
  const secret = (password: string): Resource => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db' },
    data: { password },
  });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');

  it('withholds drift corrections, reports them with Secret values masked, and still applies spec changes', () => {
    const first = converge(
      application({ driftPolicy: 'Report', manifest: [configMap('c'), secret(b64('mine-pw-1'))] }),
      [],
    );
    const drifted = first.live.map((object): Resource =>
      object.kind === 'Secret'
        ? { ...object, data: { password: b64('theirs-pw-2') } }
        : { ...object, data: { mode: 'x' } },
    );
    const planned = plan({ application: first.app, live: drifted, scopes, now: 'now' });
    expect(actionsOf(planned, 'patch')).toEqual([]);
    const drift = planned.status.drift ?? [];
    expect(drift.map((entry) => [entry.resource.kind, entry.path])).toEqual([
      ['ConfigMap', 'data.mode'],
      ['Secret', 'data.password'],
    ]);
    expect(drift[0]).toMatchObject({ live: 'x', desired: 'a' });
    const text = JSON.stringify(planned.status);
    for (const value of ['mine-pw-1', 'theirs-pw-2', b64('mine-pw-1'), b64('theirs-pw-2')])
      expect(text).not.toContain(value);
    expect(ready(planned)).toBe(true);
    // Under Correct the same drift is patched back.
    const correcting = plan({
      application: withManifest(
        { ...first.app, spec: { ...first.app.spec, driftPolicy: 'Correct' } },
        first.app.spec.manifest ?? [],
      ),
      live: drifted,
      scopes,
      now: 'now',
    });
    expect(actionsOf(correcting, 'patch')).toHaveLength(2);
    // A spec change is applied in Report mode too.
    const changed = plan({
      application: withManifest(first.app, [configMap('c', {}, 'b'), secret(b64('mine-pw-1'))]),
      live: drifted,
      scopes,
      now: 'now',
    });
    expect(actionsOf(changed, 'patch').map((action) => action.ref.kind)).toEqual(['ConfigMap']);
  });
});
