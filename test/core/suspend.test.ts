/** `spec.suspend` in the planner (core/plan/suspend.ts): nothing written, the status says so, deletion proceeds. */
import { describe, expect, it } from 'vitest';
import { conditionOf, plan, type Resource } from '../../core/internal.js';
import { application, marked, scopes } from './fixtures.js';

const configMap = (name: string, mode = 'a'): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { mode },
});

describe('spec.suspend', () => {
  it('writes nothing, not even the finalizer, keeps the stored status and says Suspended', () => {
    const stored = { lastAppliedManifest: [configMap('kept')] };
    const app = application(
      { manifest: [configMap('new')], suspend: true },
      { finalizer: false, generation: 3, status: stored },
    );
    const live = [
      {
        ...marked(configMap('drifted', 'theirs')),
        metadata: { ...marked(configMap('drifted')).metadata, namespace: 'default' },
      },
    ];
    const planned = plan({ application: app, live, scopes, now: '2026-01-01T00:00:00Z' });
    expect(planned.actions).toEqual([]);
    expect(planned.outcome).toEqual({ _tag: 'AwaitChange' });
    expect(planned.status.lastAppliedManifest).toEqual(stored.lastAppliedManifest);
    expect(planned.status.observedGeneration).toBe(3);
    expect(conditionOf(planned.status.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Suspended',
      message: 'spec.suspend is true: nothing is written until it is false',
    });
    expect(conditionOf(planned.status.conditions, 'Reconciling')?.status).toBe('False');
    expect(conditionOf(planned.status.conditions, 'Stalled')?.status).toBe('False');
    // Not suspended: the same input plans writes.
    expect(
      plan({ application: { ...app, spec: { manifest: [configMap('new')] } }, live, scopes, now: 'now' }).actions
        .length,
    ).toBeGreaterThan(0);
  });

  it('deleting a suspended Application still deletes its children', () => {
    const app = application({ manifest: [configMap('a')], suspend: true }, { deleting: true });
    const live = [
      { ...marked(configMap('a')), metadata: { ...marked(configMap('a')).metadata, namespace: 'default' } },
    ];
    const planned = plan({ application: app, live, scopes, now: 'now' });
    expect(planned.actions.map((action) => [action.type, action.ref.name])).toEqual([['delete', 'a']]);
  });
});
