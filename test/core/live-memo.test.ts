/**
 * What a planner keeps per live object (values learned, observed entries, patches) is keyed by every
 * input it was derived from: one drifted live object, planned through one planner for Applications
 * that share their observer schema but want other values, gives each the plan of a fresh call.
 */
import { describe, expect, it } from 'vitest';
import { createPlanner, plan, type Application, type ObserverSchema, type Resource } from '../../core/internal.js';
import { actionsOf, afterPlan, application, deepFreeze, execute, scopes, served } from './fixtures.js';

const NOW = '2024-01-02T00:00:00Z';

const settings = (mode: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings' },
  data: { mode, level: 'info' },
});

/** One schema object, shared by every Application below (as a template would share it). */
const SCHEMA: ObserverSchema = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings' },
  data: { mode: null, level: null },
};

/** The Application after a converged first reconcile, wanting `mode`, and the live object another actor changed. */
const driftedSetup = (): { readonly converged: Application; readonly live: ReadonlyArray<Resource> } => {
  const first = application({ manifest: [settings('a')], observerSchema: [SCHEMA] });
  const live = execute([], plan({ application: first, live: [], scopes, now: NOW }).actions).map((o, i) =>
    served(o, i),
  );
  const converged = afterPlan(first, plan({ application: first, live, scopes, now: NOW }));
  const tampered = live.map((object) => ({ ...object, data: { mode: 'tampered' } }));
  return { converged, live: deepFreeze(tampered) };
};

describe('a planner memo per live object', () => {
  it('re-plans one drifted object for other desired values as a fresh plan does', () => {
    const { converged, live } = driftedSetup();
    const wanting = (mode: string): Application => ({
      ...converged,
      spec: { ...converged.spec, manifest: [settings(mode)] },
    });
    const planner = createPlanner();
    for (const app of [converged, wanting('b'), converged, wanting('c')]) {
      const reused = planner.plan({ application: app, live, scopes, now: NOW });
      const fresh = plan({ application: structuredClone(app), live: structuredClone(live), scopes, now: NOW });
      expect(reused).toEqual(fresh);
    }
    const patches = actionsOf(planner.plan({ application: wanting('b'), live, scopes, now: NOW }), 'patch');
    expect(patches.flatMap((patch) => patch.changes.map((change) => [change.path, change.to]))).toEqual([
      ['data.mode', 'b'],
      ['data.level', 'info'],
    ]);
  });
});
