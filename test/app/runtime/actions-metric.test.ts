/** `kreconcile_actions_total` counts the writes a reconcile sent, not the plan entries that wrote nothing. */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../core/internal.js';
import { countWrittenActions, createMetrics } from '../../../app/runtime/metrics.js';

const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'settings' };

const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' } };

const done = (actions: ReadonlyArray<Action>) => actions.map((action) => ({ action }));

const counted = async (actions: ReadonlyArray<Action>): Promise<ReadonlyArray<string>> => {
  const metrics = createMetrics();
  countWrittenActions(metrics, done(actions));
  return (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith('kreconcile_actions_total{'));
};

describe('kreconcile_actions_total', () => {
  it('counts creates, patches, deletes and finalizer writes by type', async () => {
    expect(
      await counted([
        { type: 'create', ref, body, changes: [] },
        { type: 'create', ref: { ...ref, name: 'other' }, body, changes: [] },
        { type: 'delete', ref, reason: 'RemovedFromSpec', changes: [] },
        { type: 'addFinalizer', ref, finalizer: 'kreconcile.io/cleanup', changes: [] },
      ]),
    ).toEqual([
      'kreconcile_actions_total{type="create"} 2',
      'kreconcile_actions_total{type="delete"} 1',
      'kreconcile_actions_total{type="addFinalizer"} 1',
    ]);
  });

  it('does not count waits, conflicts, forbidden children or skipped writes: they sent nothing', async () => {
    expect(
      await counted([
        { type: 'wait', ref, until: 'DependenciesReady', for: [ref], changes: [] },
        { type: 'conflict', ref, reason: 'NotOwned', changes: [] },
        { type: 'forbidden', ref, rule: 'Destination', reason: 'not allowed', changes: [] },
        { type: 'skip', ref, apply: 'Ignore', withheld: 'create', changes: [] },
      ]),
    ).toEqual([]);
  });
});
